// The sample kernel generators: each fills a KernelBuilder from its SampleSpec
// (reference/samples.h, which fixes names, dtypes and shapes). gen_main.cc runs them at build
// time and writes <name>.neff files; docs/toolchain.md ("Sample kernels") describes each.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/status.h"
#include "tools/kernel_builder/kernel_builder.h"
#include "tools/samples/reference/samples.h"

namespace trnsim::samples {

using Generator = std::function<Status(const SampleSpec&, kb::KernelBuilder&)>;

Status GenerateVectorAdd(const SampleSpec& spec, kb::KernelBuilder& k);  // vector_add.cc
Status GenerateMatmul(const SampleSpec& spec, kb::KernelBuilder& k);     // matmul.cc
Status GenerateSoftmax(const SampleSpec& spec, kb::KernelBuilder& k);    // softmax.cc
Status GenerateRmsNorm(const SampleSpec& spec, kb::KernelBuilder& k);    // norms.cc
Status GenerateLayerNorm(const SampleSpec& spec, kb::KernelBuilder& k);  // norms.cc
Status GenerateGeluMlp(const SampleSpec& spec, kb::KernelBuilder& k);    // mlp.cc
Status GenerateAttention(const SampleSpec& spec, kb::KernelBuilder& k);  // attention.cc
Status GenerateAllReduce(const SampleSpec& spec, kb::KernelBuilder& k);  // collectives.cc
Status GenerateAllGather(const SampleSpec& spec, kb::KernelBuilder& k);  // collectives.cc
Status GenerateTpMlp(const SampleSpec& spec, kb::KernelBuilder& k);      // collectives.cc

// The body of mlp_gelu: y = (gelu(x . w1) rounded to bf16) . w2, accumulated in fp32 and
// stored in y's dtype, 128 rows at a time by DVE on DMA queue 3 (mlp.cc). Returns the stores,
// in order (one queue: the last one's completion means all have landed).
StatusOr<std::vector<kb::InstRef>> EmitGeluMlp(kb::KernelBuilder& k, const kb::HbmTensor& x,
                                               const kb::HbmTensor& w1, const kb::HbmTensor& w2,
                                               const kb::HbmTensor& y);

// The generator of a sample, by the sample's name prefix; nullptr if none.
Generator GeneratorFor(const std::string& sample_name);

// Declares the spec's inputs then outputs on `k` (in every subgraph), in spec order.
StatusOr<std::vector<kb::HbmTensor>> DeclareIo(const SampleSpec& spec, kb::KernelBuilder& k);

inline isa::Dtype IsaDtype(Dtype d) {
  return d == Dtype::kFloat32 ? isa::Dtype::kFloat32 : isa::Dtype::kBfloat16;
}

// Double-buffer slot of iteration i.
inline int Slot(int i) { return i % 2; }

}  // namespace trnsim::samples
