// What continuous device profiling (nrt_profile_continuous_start) costs an ordinary run, as a
// ratio in one run: nrt_execute of a sample NEFF with continuous profiling off, then on (every
// execution traced by the chip model, the latest per core kept, nothing written). The models
// are matmul_bf16_128 (a few hundred instructions) and vector_add_fp32 (DMA-bound, few
// instructions), on logical core 0 of a trn2.3xlarge at LNC=1.
//   BM_Matmul/0, BM_VectorAdd/0  continuous profiling off
//   BM_Matmul/1, BM_VectorAdd/1  on
// items_per_second = executions per second. The summary prints on / off per model (means over
// repetitions). A save (nrt_profile_continuous_save) outside the timed loop checks the profile
// is there.
#include <benchmark/benchmark.h>
#include <nrt/nrt.h>
#include <nrt/nrt_experimental.h>
#include <nrt/nrt_profile.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "bench/ratio_reporter.h"

namespace {

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "continuous_profile_bench: %s\n", what.c_str());
  std::exit(1);
}

void Check(NRT_STATUS status, const char* call) {
  if (status != NRT_SUCCESS) Die(std::string(call) + ": " + nrt_get_status_as_str(status));
}

// A model on core 0 with zeroed inputs and outputs.
struct Model {
  nrt_model_t* model = nullptr;
  nrt_tensor_set_t* inputs = nullptr;
  nrt_tensor_set_t* outputs = nullptr;
};

Model Load(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::vector<char> neff((std::istreambuf_iterator<char>(file)), {});
  if (neff.empty()) Die("cannot read " + path);
  Model m;
  Check(nrt_load(neff.data(), neff.size(), 0, 1, &m.model), "nrt_load");
  nrt_tensor_info_array_t* info = nullptr;
  Check(nrt_get_model_tensor_info(m.model, &info), "nrt_get_model_tensor_info");
  Check(nrt_allocate_tensor_set(&m.inputs), "set");
  Check(nrt_allocate_tensor_set(&m.outputs), "set");
  for (uint64_t i = 0; i < info->tensor_count; ++i) {
    const nrt_tensor_info_t& t = info->tensor_array[i];
    nrt_tensor_t* tensor = nullptr;
    Check(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, t.size, t.name, &tensor), "alloc");
    Check(nrt_tensor_memset(tensor, 0, 0, t.size), "memset");
    Check(nrt_add_tensor_to_tensor_set(t.usage == NRT_TENSOR_USAGE_INPUT ? m.inputs : m.outputs,
                                       t.name, tensor),
          "add");
  }
  nrt_free_model_tensor_info(info);
  return m;
}

class Client {
 public:
  Client() {
    setenv("TRNSIM_INSTANCE", "trn2.3xlarge", 1);
    setenv("NEURON_LOGICAL_NC_CONFIG", "1", 1);
    setenv("NEURON_RT_LOG_LEVEL", "WARN", 0);
    Check(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), "nrt_init");
    models_[0] = Load(TRNSIM_SAMPLES_DIR "/matmul_bf16_128.neff");
    models_[1] = Load(TRNSIM_SAMPLES_DIR "/vector_add_fp32.neff");
    Check(nrt_profile_continuous_options_allocate(&options_), "options");
    out_dir_ = (std::filesystem::temp_directory_path() / "continuous_profile_bench").string();
    Check(nrt_profile_continuous_options_set_output_dir(options_, out_dir_.c_str()), "dir");
  }
  ~Client() {
    nrt_profile_continuous_options_free(options_);
    std::filesystem::remove_all(out_dir_);
    nrt_close();
  }
  const Model& model(int i) const { return models_[i]; }
  nrt_profile_continuous_options_t* options() { return options_; }

 private:
  Model models_[2];
  nrt_profile_continuous_options_t* options_ = nullptr;
  std::string out_dir_;
};

Client& TheClient() {
  static Client client;
  return client;
}

// Executes model `model` with continuous profiling off (state.range(0) == 0) or on.
void Execute(benchmark::State& state, int model) {
  Client& c = TheClient();
  const Model& m = c.model(model);
  const bool continuous = state.range(0) != 0;
  Check(nrt_execute(m.model, m.inputs, m.outputs), "warm-up");
  if (continuous) Check(nrt_profile_continuous_start(c.options()), "continuous start");
  for (auto _ : state) Check(nrt_execute(m.model, m.inputs, m.outputs), "nrt_execute");
  if (continuous) {
    Check(nrt_profile_continuous_save(0, c.options()), "continuous save");
    Check(nrt_profile_continuous_stop(), "continuous stop");
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_Matmul(benchmark::State& state) { Execute(state, 0); }
void BM_VectorAdd(benchmark::State& state) { Execute(state, 1); }
BENCHMARK(BM_Matmul)->Arg(0)->Arg(1)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_VectorAdd)->Arg(0)->Arg(1)->UseRealTime()->Unit(benchmark::kMillisecond);

class ContinuousRatios : public trnsim::bench::RatioReporter {
 public:
  using RatioReporter::RatioReporter;

 protected:
  void PrintRatios() override {
    std::printf("\nexecutions/s with continuous profiling on / off, same run:\n");
    for (const char* family : {"BM_Matmul", "BM_VectorAdd"}) {
      const double off = Mean(family, 0), on = Mean(family, 1);
      if (off > 0 && on > 0) {
        std::printf("  %-13s off %8.1f  on %8.1f  ratio %.3f\n", family, off, on, on / off);
      }
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  ContinuousRatios reporter(benchmark::ConsoleReporter::OO_Defaults, "items_per_second");
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
