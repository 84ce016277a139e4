// The public NRT API in-process against the same calls through neurond, in one run: what a
// client pays for TRNSIM_DAEMON. The daemon is the real neurond binary, started by this
// benchmark as a child process on a unix socket (as a same-host CI farm runs it).
//   Execute/<0 in-process | 1 remote>   nrt_execute of a tiny NEFF built here with the kernel
//                                        builder (a 32 KiB fp32 tensor copied in and out through
//                                        SBUF by two DMAs): items_per_second = executions/s
//   ExecuteVectorAdd/<0|1>               nrt_execute of the vector_add_fp32 sample (two 2 MiB
//                                        inputs, one 2 MiB output): items_per_second
//   TensorWrite/<0|1>, TensorRead/<0|1> nrt_tensor_write / nrt_tensor_read of 64 MiB:
//                                        bytes_per_second
//   TensorWrite1M/<0|1>, TensorRead1M/<0|1>  the same of 1 MiB
//   TensorWriteOnce/<0|1>                a 256 KiB tensor allocated, written once and freed, as
//                                        a model's weights are: items_per_second = tensors/s
// The summary prints remote / in-process for each. Switching between the two re-runs nrt_init
// with or without TRNSIM_DAEMON (outside the timed loops). TRNSIM_BENCH_NEUROND names another
// neurond binary than the one built beside this benchmark (to compare two builds).
#include <benchmark/benchmark.h>
#include <nrt/nrt.h>
#include <nrt/nrt_experimental.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "bench/ratio_reporter.h"
#include "tools/kernel_builder/kernel_builder.h"

namespace {

constexpr size_t kTensorBytes = 64ull << 20;
constexpr size_t kSmallTensorBytes = 1ull << 20;
constexpr size_t kOnceTensorBytes = 256ull << 10;  // TensorWriteOnce
constexpr const char* kInstance = "trn2.3xlarge";

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "nrt_remote_bench: %s\n", what.c_str());
  std::exit(1);
}

// out = a, fp32 [128, 64]: HBM -> SBUF on queue 0, SBUF -> HBM on queue 1.
std::vector<uint8_t> TinyNeff() {
  using trnsim::isa::Dtype;
  trnsim::kb::KernelBuilder k({"tiny_copy", "trn2", 1});
  trnsim::kb::HbmTensor a = k.AddInput("a", Dtype::kFloat32, {128, 64}).value();
  trnsim::kb::HbmTensor out = k.AddOutput("out", Dtype::kFloat32, {128, 64}).value();
  trnsim::kb::Core& core = k.core(0);
  trnsim::kb::Tile tile = core.AllocSbuf("t", Dtype::kFloat32, 128, 64).value();
  trnsim::kb::InstRef load = core.sp().DmaCopy(tile.ap(), a.Block(0, 128, 0, 64), 0);
  trnsim::kb::InstRef store = core.sp().DmaCopy(out.Block(0, 128, 0, 64), tile.ap(), 1);
  k.Depend(store, load);
  trnsim::StatusOr<std::vector<uint8_t>> bytes = k.BuildBytes();
  if (!bytes.ok()) Die("building the tiny NEFF: " + bytes.status().message());
  return *bytes;
}

void Check(NRT_STATUS status, const char* call) {
  if (status != NRT_SUCCESS) Die(std::string(call) + ": " + nrt_get_status_as_str(status));
}

// The neurond child process: started on first use, stopped with SIGTERM at exit.
class Daemon {
 public:
  ~Daemon() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      int ignored = 0;
      waitpid(pid_, &ignored, 0);
      std::filesystem::remove(socket_);
    }
  }

  const std::string& Address() {
    if (pid_ > 0) return address_;
    socket_ = "/tmp/trnsim-nrt-remote-bench-" + std::to_string(getpid()) + ".sock";
    address_ = "unix:" + socket_;
    pid_ = fork();
    if (pid_ < 0) Die("fork failed");
    if (pid_ == 0) {
      setenv("NEURON_RT_LOG_LEVEL", "WARN", 1);  // not a line per session
      const char* neurond = std::getenv("TRNSIM_BENCH_NEUROND");
      if (neurond == nullptr) neurond = NEUROND_PATH;
      execl(neurond, neurond, "--listen", address_.c_str(), "--instance", kInstance,
            static_cast<char*>(nullptr));
      _exit(127);
    }
    for (int i = 0; i < 1000 && !std::filesystem::exists(socket_); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (!std::filesystem::exists(socket_)) Die("neurond did not start (" NEUROND_PATH ")");
    return address_;
  }

 private:
  pid_t pid_ = 0;
  std::string socket_, address_;
};

// A loaded model and a tensor set of each usage, every tensor allocated and filled with 1.0f.
struct LoadedModel {
  nrt_model_t* model = nullptr;
  nrt_tensor_set_t* inputs = nullptr;
  nrt_tensor_set_t* outputs = nullptr;
  std::vector<nrt_tensor_t*> tensors;

  void Load(const std::vector<uint8_t>& neff) {
    Check(nrt_load(neff.data(), neff.size(), 0, 1, &model), "nrt_load");
    nrt_tensor_info_array_t* info = nullptr;
    Check(nrt_get_model_tensor_info(model, &info), "nrt_get_model_tensor_info");
    Check(nrt_allocate_tensor_set(&inputs), "nrt_allocate_tensor_set");
    Check(nrt_allocate_tensor_set(&outputs), "nrt_allocate_tensor_set");
    for (uint64_t i = 0; i < info->tensor_count; ++i) {
      const nrt_tensor_info_t& t = info->tensor_array[i];
      nrt_tensor_t* tensor = nullptr;
      Check(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, t.size, t.name, &tensor),
            "nrt_tensor_allocate");
      std::vector<float> ones(t.size / sizeof(float), 1.0f);
      Check(nrt_tensor_write(tensor, ones.data(), 0, ones.size() * sizeof(float)),
            "nrt_tensor_write");
      bool input = t.usage == NRT_TENSOR_USAGE_INPUT;
      Check(nrt_add_tensor_to_tensor_set(input ? inputs : outputs, t.name, tensor),
            "nrt_add_tensor_to_tensor_set");
      tensors.push_back(tensor);
    }
    nrt_free_model_tensor_info(info);
  }

  void Unload() {
    for (nrt_tensor_t*& tensor : tensors) nrt_tensor_free(&tensor);
    tensors.clear();
    nrt_destroy_tensor_set(&inputs);
    nrt_destroy_tensor_set(&outputs);
    nrt_unload(model);
  }
};

std::vector<uint8_t> ReadFile(const char* path) {
  FILE* f = std::fopen(path, "rb");
  if (f == nullptr) Die(std::string("cannot open ") + path);
  std::vector<uint8_t> bytes;
  uint8_t buffer[65536];
  for (size_t n; (n = std::fread(buffer, 1, sizeof(buffer), f)) > 0;) {
    bytes.insert(bytes.end(), buffer, buffer + n);
  }
  std::fclose(f);
  return bytes;
}

// One initialised runtime with the models loaded and their tensors allocated, in one mode.
class Client {
 public:
  ~Client() { Close(); }

  void Use(int mode) {
    if (mode == mode_) return;
    Close();
    if (mode == 1) {
      setenv("TRNSIM_DAEMON", daemon_.Address().c_str(), 1);
    } else {
      unsetenv("TRNSIM_DAEMON");
    }
    setenv("TRNSIM_INSTANCE", kInstance, 1);
    setenv("NEURON_RT_NUM_CORES", "1", 1);
    setenv("NEURON_LOGICAL_NC_CONFIG", "1", 1);  // the NEFF is an LNC=1 one
    Check(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), "nrt_init");
    static const std::vector<uint8_t> tiny = TinyNeff();
    static const std::vector<uint8_t> vector_add = ReadFile(TRNSIM_SAMPLE_NEFF);
    tiny_.Load(tiny);
    vector_add_.Load(vector_add);
    Check(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, kTensorBytes, "big", &big_),
          "nrt_tensor_allocate");
    mode_ = mode;
  }

  void Close() {
    if (mode_ < 0) return;
    nrt_tensor_free(&big_);
    tiny_.Unload();
    vector_add_.Unload();
    nrt_close();
    mode_ = -1;
  }

  const LoadedModel& tiny() const { return tiny_; }
  const LoadedModel& vector_add() const { return vector_add_; }
  nrt_tensor_t* big() const { return big_; }

 private:
  Daemon daemon_;  // destroyed after Close() in ~Client
  int mode_ = -1;
  LoadedModel tiny_, vector_add_;
  nrt_tensor_t* big_ = nullptr;
};

Client& TheClient() {
  static Client client;
  return client;
}

void Execute(benchmark::State& state, const LoadedModel& model) {
  for (auto _ : state) Check(nrt_execute(model.model, model.inputs, model.outputs), "nrt_execute");
  state.SetItemsProcessed(int64_t(state.iterations()));
}

void BM_Execute(benchmark::State& state) {
  Client& client = TheClient();
  client.Use(int(state.range(0)));
  Execute(state, client.tiny());
}
BENCHMARK(BM_Execute)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_ExecuteVectorAdd(benchmark::State& state) {
  Client& client = TheClient();
  client.Use(int(state.range(0)));
  Execute(state, client.vector_add());
}
BENCHMARK(BM_ExecuteVectorAdd)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond)->UseRealTime();

void TensorWrite(benchmark::State& state, size_t bytes) {
  Client& client = TheClient();
  client.Use(int(state.range(0)));
  std::vector<uint8_t> host(bytes, 0x5A);
  for (auto _ : state) {
    Check(nrt_tensor_write(client.big(), host.data(), 0, bytes), "nrt_tensor_write");
  }
  state.SetBytesProcessed(int64_t(state.iterations() * bytes));
}

void TensorRead(benchmark::State& state, size_t bytes) {
  Client& client = TheClient();
  client.Use(int(state.range(0)));
  std::vector<uint8_t> host(bytes);
  for (auto _ : state) {
    Check(nrt_tensor_read(client.big(), host.data(), 0, bytes), "nrt_tensor_read");
  }
  state.SetBytesProcessed(int64_t(state.iterations() * bytes));
}

void BM_TensorWrite(benchmark::State& state) { TensorWrite(state, kTensorBytes); }
void BM_TensorRead(benchmark::State& state) { TensorRead(state, kTensorBytes); }
void BM_TensorWrite1M(benchmark::State& state) { TensorWrite(state, kSmallTensorBytes); }
void BM_TensorRead1M(benchmark::State& state) { TensorRead(state, kSmallTensorBytes); }
BENCHMARK(BM_TensorWrite)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TensorRead)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TensorWrite1M)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_TensorRead1M)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond)->UseRealTime();

// A tensor written once, as a model's weights are: allocate, write, free.
void BM_TensorWriteOnce(benchmark::State& state) {
  Client& client = TheClient();
  client.Use(int(state.range(0)));
  std::vector<uint8_t> host(kOnceTensorBytes, 0x3C);
  for (auto _ : state) {
    nrt_tensor_t* tensor = nullptr;
    Check(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, host.size(), "once", &tensor),
          "nrt_tensor_allocate");
    Check(nrt_tensor_write(tensor, host.data(), 0, host.size()), "nrt_tensor_write");
    nrt_tensor_free(&tensor);
  }
  state.SetItemsProcessed(int64_t(state.iterations()));
}
BENCHMARK(BM_TensorWriteOnce)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond)->UseRealTime();

class NrtRemoteRatios : public trnsim::bench::RatioReporter {
 public:
  using RatioReporter::RatioReporter;

 protected:
  void PrintRatios() override {
    std::printf("\nremote (neurond on a unix socket) / in-process, same run:\n");
    for (const char* family :
         {"BM_TensorWrite", "BM_TensorRead", "BM_TensorWrite1M", "BM_TensorRead1M"}) {
      const double local = Mean(family, 0), remote = Mean(family, 1);
      if (local > 0 && remote > 0)
        std::printf("  %-15s %8.2f GB/s remote vs %8.2f GB/s in-process  ratio %.3f\n", family,
                    remote / 1e9, local / 1e9, remote / local);
    }
    for (const char* family : {"BM_Execute", "BM_ExecuteVectorAdd", "BM_TensorWriteOnce"}) {
      const double local = Items(std::string(family) + "/0/real_time");
      const double remote = Items(std::string(family) + "/1/real_time");
      if (local > 0 && remote > 0)
        std::printf("  %-19s %8.1f us remote vs %8.1f us in-process  extra %8.1f us\n", family,
                    1e6 / remote, 1e6 / local, 1e6 / remote - 1e6 / local);
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  NrtRemoteRatios reporter(benchmark::ConsoleReporter::OO_Defaults, "bytes_per_second");
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  TheClient().Close();
  return 0;
}
