// DeclareIo and the generator registry (sample_kernels.h).
#include "tools/samples/sample_kernels.h"

namespace trnsim::samples {

StatusOr<std::vector<kb::HbmTensor>> DeclareIo(const SampleSpec& spec, kb::KernelBuilder& k) {
  std::vector<kb::HbmTensor> out;
  for (const TensorSpec& t : spec.inputs) {
    TRNSIM_ASSIGN_OR_RETURN(kb::HbmTensor h, k.AddInput(t.name, IsaDtype(t.dtype), t.shape));
    out.push_back(std::move(h));
  }
  for (const TensorSpec& t : spec.outputs) {
    TRNSIM_ASSIGN_OR_RETURN(kb::HbmTensor h, k.AddOutput(t.name, IsaDtype(t.dtype), t.shape));
    out.push_back(std::move(h));
  }
  return out;
}

Generator GeneratorFor(const std::string& name) {
  auto starts = [&](const char* prefix) { return name.rfind(prefix, 0) == 0; };
  if (starts("vector_add_")) return GenerateVectorAdd;
  if (starts("matmul_")) return GenerateMatmul;
  if (starts("softmax_")) return GenerateSoftmax;
  if (starts("rmsnorm_")) return GenerateRmsNorm;
  if (starts("layernorm_")) return GenerateLayerNorm;
  if (starts("mlp_gelu_")) return GenerateGeluMlp;
  if (starts("attention_")) return GenerateAttention;
  if (starts("allreduce_")) return GenerateAllReduce;
  if (starts("allgather_")) return GenerateAllGather;
  if (starts("mlp_tp")) return GenerateTpMlp;
  return nullptr;
}

}  // namespace trnsim::samples
