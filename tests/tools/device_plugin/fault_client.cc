// device_plugin_fault_client: a libnrt-style client of the daemon (TRNSIM_DAEMON) that executes
// one small matmul (the sample generator's, 128x128 bf16) on its first visible core, with the
// TRNSIM_FAULTS, NEURON_RT_VISIBLE_CORES and NEURON_LOGICAL_NC_CONFIG its environment gives
// it. The device plugin's test runs it with an nc_ue fault so the daemon counts a memory error
// on that core's chip. Prints the execution's status; exit status 0 when it is the one named
// by argv[1] as a number (e.g. 1202 for NRT_EXEC_HW_ERR_NC_UE), else 1.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/runtime.h"
#include "tools/kernel_builder/kernel_builder.h"
#include "tools/samples/sample_kernels.h"

namespace {

using namespace trnsim;

int Fail(const Status& status) {
  std::fprintf(stderr, "fault client: %s\n", status.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: device_plugin_fault_client EXPECTED_NRT_STATUS\n");
    return 2;
  }
  const int expected = std::atoi(argv[1]);
  runtime::Runtime& rt = runtime::Runtime::Get();
  if (Status init = rt.Init(1, "test", "test"); !init.ok()) return Fail(init);
  samples::SampleSpec spec = samples::internal::Matmul(128);
  kb::KernelBuilder k({"fault_matmul", "trn2", spec.lnc});
  if (Status generated = samples::GenerateMatmul(spec, k); !generated.ok()) return Fail(generated);
  StatusOr<neff::Neff> neff = k.Build();
  if (!neff.ok()) return Fail(neff.status());
  StatusOr<runtime::model::Model*> model = rt.models().Load(std::move(*neff), 0, -1);
  if (!model.ok()) return Fail(model.status());
  runtime::TensorSet* in = *rt.tensors().AllocateSet();
  runtime::TensorSet* out = *rt.tensors().AllocateSet();
  constexpr uint64_t kBytes = 128 * 128 * 2;
  std::vector<uint16_t> ones(128 * 128, 0x3F80);  // bf16 1.0
  for (const char* name : {"a_t", "b", "c"}) {
    StatusOr<runtime::Tensor*> tensor =
        rt.tensors().Allocate(runtime::Placement::kDevice, 0, kBytes, name);
    if (!tensor.ok()) return Fail(tensor.status());
    if (Status wrote = rt.tensors().Write(*tensor, ones.data(), 0, kBytes); !wrote.ok()) {
      return Fail(wrote);
    }
    const bool output = std::string(name) == "c";
    if (Status added = rt.tensors().AddToSet(output ? out : in, name, *tensor); !added.ok()) {
      return Fail(added);
    }
  }
  const Status executed = rt.executions().Execute(*model, in, out, 1);
  std::printf("fault client: execution status %d (%s)\n", int(executed.code()),
              executed.ToString().c_str());
  rt.Close();
  return int(executed.code()) == expected ? 0 : 1;
}
