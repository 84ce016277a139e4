// The sample kernels as data: for each, its NEFF, inputs and outputs (names, dtypes, shapes —
// what the generator declares and nrt_get_model_tensor_info reports), the input-generation
// recipe, the reference math and the tolerance a run must meet. tools/samples/ generates the
// NEFFs from this table; the chip-model tests run them and compare:
//
//   for (const SampleSpec& s : AllSamples()) {
//     std::vector<Array> in = MakeInputs(s);         // fixed seeds: the same bytes every time
//     std::vector<Array> want = s.reference(in);
//     ... load share/trnsim/neff/<s.name>.neff, write ToBytes(in[i]), execute, read outputs ...
//     CompareResult r = Compare(got, want[i], s.tolerance);
//   }
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tools/samples/reference/math.h"
#include "tools/samples/reference/numerics.h"

namespace trnsim::samples {

struct TensorSpec {
  std::string name;
  Dtype dtype = Dtype::kBfloat16;
  std::vector<uint32_t> shape;
  float lo = -1.0f;  // inputs: values are Uniform(lo, hi), then rounded to dtype
  float hi = 1.0f;
};

struct SampleSpec {
  std::string name;  // the NEFF is <name>.neff
  int lnc = 1;
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  Tolerance tolerance;
  std::string math;  // one line for docs and the manifest
  // The reference of a single-core sample; empty for collective samples, whose result depends
  // on the other ranks (their tests compute it).
  std::function<std::vector<Array>(const std::vector<Array>&)> reference;
  // Collective samples (CollectiveSamples): the world size the NEFF is built for, -1 for any
  // world (an all-reduce over whatever world nrt_load_collectives gives); 0 for the others.
  int ranks = 0;
};

inline constexpr float kRmsNormEps = 1e-6f;
inline constexpr float kLayerNormEps = 1e-5f;

// Seed of one input: FNV-1a of "<sample>/<input>".
inline uint64_t InputSeed(const std::string& sample, const std::string& input) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : sample + "/" + input) h = (h ^ static_cast<uint8_t>(c)) * 0x100000001b3ull;
  return h;
}

inline std::vector<Array> MakeInputs(const SampleSpec& s) {
  std::vector<Array> out;
  for (const TensorSpec& t : s.inputs) {
    Array a = MakeArray(t.name, t.dtype, t.shape);
    Rng rng(InputSeed(s.name, t.name));
    for (float& v : a.data) v = RoundTo(t.dtype, rng.Uniform(t.lo, t.hi));
    out.push_back(std::move(a));
  }
  return out;
}

namespace internal {

inline SampleSpec VectorAdd(Dtype dtype, int lnc) {
  std::string name = std::string("vector_add_") + (dtype == Dtype::kFloat32 ? "fp32" : "bf16") +
                     (lnc == 2 ? "_lnc2" : "");
  Tolerance tol = dtype == Dtype::kFloat32 ? Tolerance{1e-6, 0.0} : Tolerance{7.9e-3, 0.0};
  return {name,
          lnc,
          {{"a", dtype, {512, 1024}}, {"b", dtype, {512, 1024}}},
          {{"out", dtype, {512, 1024}}},
          tol,
          "out = a + b (rounded to the dtype)",
          [](const std::vector<Array>& in) {
            return std::vector<Array>{ref::VectorAdd(in[0], in[1], "out")};
          }};
}

inline SampleSpec Matmul(uint32_t n) {
  double atol = 1e-2 * std::sqrt(n / 128.0);
  return {"matmul_bf16_" + std::to_string(n),
          1,
          {{"a_t", Dtype::kBfloat16, {n, n}}, {"b", Dtype::kBfloat16, {n, n}}},
          {{"c", Dtype::kBfloat16, {n, n}}},
          {1.6e-2, atol},
          "c[M,N] = bf16(a_t[K,M]^T . b[K,N]), fp32 accumulation over K tiles of 128 in PSUM",
          [](const std::vector<Array>& in) {
            return std::vector<Array>{ref::Matmul(in[0], in[1], "c")};
          }};
}

}  // namespace internal

inline std::vector<SampleSpec> AllSamples() {
  using internal::Matmul;
  using internal::VectorAdd;
  constexpr Dtype kBf16 = Dtype::kBfloat16;
  std::vector<SampleSpec> s = {VectorAdd(Dtype::kFloat32, 1),
                               VectorAdd(kBf16, 1),
                               VectorAdd(Dtype::kFloat32, 2),
                               VectorAdd(kBf16, 2),
                               Matmul(128),
                               Matmul(512),
                               Matmul(1024),
                               Matmul(4096)};
  s.push_back(
      {"softmax_bf16",
       1,
       {{"x", kBf16, {512, 1024}, -4.0f, 4.0f}},
       {{"y", kBf16, {512, 1024}}},
       {2e-2, 1e-4},
       "y = bf16(exp(x - max) * (1 / sum(exp(x - max)))), row-wise, fp32 math",
       [](const std::vector<Array>& in) { return std::vector<Array>{ref::Softmax(in[0], "y")}; }});
  s.push_back({"rmsnorm_bf16",
               1,
               {{"x", kBf16, {512, 1024}, -2.0f, 2.0f}, {"gamma", kBf16, {1024}, 0.5f, 1.5f}},
               {{"y", kBf16, {512, 1024}}},
               {2e-2, 1e-3},
               "y = bf16(x * rsqrt(mean(x^2) + 1e-6) * gamma), row-wise, fp32 math",
               [](const std::vector<Array>& in) {
                 return std::vector<Array>{ref::RmsNorm(in[0], in[1], kRmsNormEps, "y")};
               }});
  s.push_back({"layernorm_bf16",
               1,
               {{"x", kBf16, {512, 1024}, -2.0f, 2.0f},
                {"gamma", kBf16, {1024}, 0.5f, 1.5f},
                {"beta", kBf16, {1024}, -0.5f, 0.5f}},
               {{"y", kBf16, {512, 1024}}},
               {2e-2, 2e-3},
               "y = bf16((x - mean) * rsqrt(var + 1e-5) * gamma + beta), row-wise, fp32 math",
               [](const std::vector<Array>& in) {
                 return std::vector<Array>{ref::LayerNorm(in[0], in[1], in[2], kLayerNormEps, "y")};
               }});
  s.push_back({"mlp_gelu_bf16",
               1,
               {{"x", kBf16, {256, 512}},
                {"w1", kBf16, {512, 1024}, -0.08f, 0.08f},
                {"w2", kBf16, {1024, 512}, -0.06f, 0.06f}},
               {{"y", kBf16, {256, 512}}},
               {2e-2, 2e-3},
               "h = bf16(gelu(x . w1)) (erf gelu), y = bf16(h . w2), fp32 accumulation",
               [](const std::vector<Array>& in) {
                 return std::vector<Array>{ref::GeluMlp(in[0], in[1], in[2], "y")};
               }});
  s.push_back({"attention_bf16",
               1,
               {{"q", kBf16, {512, 128}}, {"k", kBf16, {512, 128}}, {"v", kBf16, {512, 128}}},
               {{"out", kBf16, {512, 128}}},
               {2e-2, 2e-3},
               "p = bf16(exp((q.k^T - rowmax) / sqrt(128))), out = bf16((p . v) / rowsum(p))",
               [](const std::vector<Array>& in) {
                 return std::vector<Array>{ref::Attention(in[0], in[1], in[2], "out")};
               }});
  return s;
}

// The hidden width of the tensor-parallel MLP samples: mlp_gelu_bf16's 1024 for 4 ranks (so
// the single-core sample is the reference), 2048 for 16 (128 hidden units per rank).
inline uint32_t TpMlpHidden(int ranks) { return ranks == 4 ? 1024 : 2048; }

// Collective samples (load with nrt_load_collectives; docs/toolchain.md "Sample kernels"):
//   allreduce_<dtype>[_small][_lnc2]  one input `in`, one output `out` = the sum of every rank's
//                                     `in` over the world given at load
//   allgather_fp32_w<W>_lnc2          one input `in` [128, 256], one output `out` [W·128, 256]:
//                                     rows [128r, 128r+128) are rank r's `in` (a world of W)
//   mlp_tp<R>_bf16                    mlp_gelu_bf16 split over R ranks Megatron-style: each rank
//                                     holds columns [r·H/R, (r+1)·H/R) of w1 and the same rows of
//                                     w2, computes its partial y in fp32, and an fp32 all-reduce
//                                     sums the partials before the bf16 rounding
inline std::vector<SampleSpec> CollectiveSamples() {
  constexpr Dtype kF32 = Dtype::kFloat32, kBf16 = Dtype::kBfloat16;
  auto all_reduce = [](std::string name, Dtype dtype, uint32_t cols, int lnc) {
    SampleSpec s;
    s.name = std::move(name);
    s.lnc = lnc;
    s.inputs = {{"in", dtype, {128, cols}}};
    s.outputs = {{"out", dtype, {128, cols}}};
    s.tolerance = {0.0, 0.0};
    s.math = "out = sum over the world of in (exact for fp32 integers; docs/collectives.md)";
    s.ranks = -1;
    return s;
  };
  std::vector<SampleSpec> s = {all_reduce("allreduce_fp32", kF32, 1024, 1),
                               all_reduce("allreduce_fp32_lnc2", kF32, 1024, 2),
                               all_reduce("allreduce_fp32_small_lnc2", kF32, 256, 2),
                               all_reduce("allreduce_bf16_lnc2", kBf16, 1024, 2)};
  SampleSpec gather;
  gather.name = "allgather_fp32_w8_lnc2";
  gather.lnc = 2;
  gather.inputs = {{"in", kF32, {128, 256}}};
  gather.outputs = {{"out", kF32, {8 * 128, 256}}};
  gather.tolerance = {0.0, 0.0};
  gather.math = "out rows [128r, 128r+128) = in of rank r, over a world of 8";
  gather.ranks = 8;
  s.push_back(std::move(gather));
  for (int ranks : {4, 16}) {
    const uint32_t h = TpMlpHidden(ranks) / uint32_t(ranks);
    SampleSpec tp;
    tp.name = "mlp_tp" + std::to_string(ranks) + "_bf16";
    tp.lnc = 1;
    tp.inputs = {{"x", kBf16, {256, 512}},
                 {"w1", kBf16, {512, h}, -0.08f, 0.08f},
                 {"w2", kBf16, {h, 512}, -0.06f, 0.06f}};
    tp.outputs = {{"y", kBf16, {256, 512}}};
    tp.tolerance = {2e-2, 2e-3};
    tp.math = "y = bf16(all_reduce_fp32(gelu(x . w1[:, shard]) . w2[shard, :])) over " +
              std::to_string(ranks) + " ranks";
    tp.ranks = ranks;
    s.push_back(std::move(tp));
  }
  return s;
}

}  // namespace trnsim::samples
