// The public NRT API in-process against the same calls through neurond, in one run: what a
// client pays for TRNSIM_DAEMON. The daemon is the real neurond binary, started by this
// benchmark as a child process on a unix socket (as a same-host CI farm runs it).
//   Execute/<0 in-process | 1 remote>   nrt_execute of a tiny NEFF built here with the kernel
//                                        builder (a 32 KiB fp32 tensor copied in and out through
//                                        SBUF by two DMAs): items_per_second = executions/s
//   TensorWrite/<0|1>, TensorRead/<0|1> nrt_tensor_write / nrt_tensor_read of 64 MiB:
//                                        bytes_per_second
// The summary prints remote / in-process for each. Switching between the two re-runs nrt_init
// with or without TRNSIM_DAEMON (outside the timed loops).
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
      execl(NEUROND_PATH, NEUROND_PATH, "--listen", address_.c_str(), "--instance", kInstance,
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

// One initialised runtime with the model loaded and its tensors allocated, in one mode.
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
    static const std::vector<uint8_t> neff = TinyNeff();
    Check(nrt_load(neff.data(), neff.size(), 0, 1, &model_), "nrt_load");
    nrt_tensor_info_array_t* info = nullptr;
    Check(nrt_get_model_tensor_info(model_, &info), "nrt_get_model_tensor_info");
    Check(nrt_allocate_tensor_set(&inputs_), "nrt_allocate_tensor_set");
    Check(nrt_allocate_tensor_set(&outputs_), "nrt_allocate_tensor_set");
    for (uint64_t i = 0; i < info->tensor_count; ++i) {
      const nrt_tensor_info_t& t = info->tensor_array[i];
      nrt_tensor_t* tensor = nullptr;
      Check(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, t.size, t.name, &tensor),
            "nrt_tensor_allocate");
      std::vector<float> ones(t.size / sizeof(float), 1.0f);
      Check(nrt_tensor_write(tensor, ones.data(), 0, ones.size() * sizeof(float)),
            "nrt_tensor_write");
      bool input = t.usage == NRT_TENSOR_USAGE_INPUT;
      Check(nrt_add_tensor_to_tensor_set(input ? inputs_ : outputs_, t.name, tensor),
            "nrt_add_tensor_to_tensor_set");
      tensors_.push_back(tensor);
    }
    nrt_free_model_tensor_info(info);
    Check(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, kTensorBytes, "big", &big_),
          "nrt_tensor_allocate");
    mode_ = mode;
  }

  void Close() {
    if (mode_ < 0) return;
    nrt_tensor_free(&big_);
    for (nrt_tensor_t*& tensor : tensors_) nrt_tensor_free(&tensor);
    tensors_.clear();
    nrt_destroy_tensor_set(&inputs_);
    nrt_destroy_tensor_set(&outputs_);
    nrt_unload(model_);
    nrt_close();
    mode_ = -1;
  }

  nrt_model_t* model() const { return model_; }
  nrt_tensor_set_t* inputs() const { return inputs_; }
  nrt_tensor_set_t* outputs() const { return outputs_; }
  nrt_tensor_t* big() const { return big_; }

 private:
  Daemon daemon_;  // destroyed after Close() in ~Client
  int mode_ = -1;
  nrt_model_t* model_ = nullptr;
  nrt_tensor_set_t* inputs_ = nullptr;
  nrt_tensor_set_t* outputs_ = nullptr;
  std::vector<nrt_tensor_t*> tensors_;
  nrt_tensor_t* big_ = nullptr;
};

Client& TheClient() {
  static Client client;
  return client;
}

void BM_Execute(benchmark::State& state) {
  Client& client = TheClient();
  client.Use(int(state.range(0)));
  for (auto _ : state) {
    Check(nrt_execute(client.model(), client.inputs(), client.outputs()), "nrt_execute");
  }
  state.SetItemsProcessed(int64_t(state.iterations()));
}
BENCHMARK(BM_Execute)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_TensorWrite(benchmark::State& state) {
  Client& client = TheClient();
  client.Use(int(state.range(0)));
  std::vector<uint8_t> host(kTensorBytes, 0x5A);
  for (auto _ : state) {
    Check(nrt_tensor_write(client.big(), host.data(), 0, kTensorBytes), "nrt_tensor_write");
  }
  state.SetBytesProcessed(int64_t(state.iterations() * kTensorBytes));
}
BENCHMARK(BM_TensorWrite)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_TensorRead(benchmark::State& state) {
  Client& client = TheClient();
  client.Use(int(state.range(0)));
  std::vector<uint8_t> host(kTensorBytes);
  for (auto _ : state) {
    Check(nrt_tensor_read(client.big(), host.data(), 0, kTensorBytes), "nrt_tensor_read");
  }
  state.SetBytesProcessed(int64_t(state.iterations() * kTensorBytes));
}
BENCHMARK(BM_TensorRead)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

class NrtRemoteRatios : public trnsim::bench::RatioReporter {
 public:
  using RatioReporter::RatioReporter;

 protected:
  void PrintRatios() override {
    std::printf("\nremote (neurond on a unix socket) / in-process, same run:\n");
    for (const char* family : {"BM_TensorWrite", "BM_TensorRead"}) {
      const double local = Mean(family, 0), remote = Mean(family, 1);
      if (local > 0 && remote > 0)
        std::printf("  %-15s %8.2f GB/s remote vs %8.2f GB/s in-process  ratio %.3f\n", family,
                    remote / 1e9, local / 1e9, remote / local);
    }
    const double local = Items("BM_Execute/0/real_time");
    const double remote = Items("BM_Execute/1/real_time");
    if (local > 0 && remote > 0)
      std::printf("  %-15s %8.1f us remote vs %8.1f us in-process  latency x%.2f\n",
                  "BM_Execute", 1e6 / remote, 1e6 / local, local / remote);
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
