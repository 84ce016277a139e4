// Reference math of the sample kernels, on host arrays (numerics.h). Each function computes
// what its kernel computes, in the same order of roundings: fp32 arithmetic (matmul sums in
// double, then fp32 — the PE accumulates in fp32, so only the last bits may differ), and a
// bf16 rounding (RoundBf16) exactly where the kernel stores a bf16 tile.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include <Eigen/Dense>

#include "tools/samples/reference/numerics.h"

namespace trnsim::samples::ref {

// out[M, N] (fp32, unrounded) = at[K, M]^T . b[K, N], summed in double by Eigen's GEMM
// (an implementation independent of trnsim's PE path; a 4096^3 product takes seconds).
inline std::vector<float> MatmulAtB(const float* at, const float* b, int K, int M, int N) {
  using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<const RowMajor> a_map(at, K, M), b_map(b, K, N);
  Eigen::MatrixXd c = a_map.cast<double>().transpose() * b_map.cast<double>();
  std::vector<float> out(static_cast<size_t>(M) * N);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) out[static_cast<size_t>(m) * N + n] = static_cast<float>(c(m, n));
  return out;
}

// The transpose of a [rows, cols] matrix.
inline std::vector<float> Transposed(const std::vector<float>& x, int rows, int cols) {
  std::vector<float> t(x.size());
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c)
      t[static_cast<size_t>(c) * rows + r] = x[static_cast<size_t>(r) * cols + c];
  }
  return t;
}

inline float Gelu(float x) { return 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f)); }

// out = a + b, rounded to out's dtype.
inline Array VectorAdd(const Array& a, const Array& b, const char* out_name) {
  Array out = MakeArray(out_name, a.dtype, a.shape);
  for (size_t i = 0; i < out.data.size(); ++i)
    out.data[i] = RoundTo(a.dtype, a.data[i] + b.data[i]);
  return out;
}

// c[M, N] = bf16(a_t[K, M]^T . b[K, N])
inline Array Matmul(const Array& a_t, const Array& b, const char* out_name) {
  int K = static_cast<int>(a_t.shape[0]), M = static_cast<int>(a_t.shape[1]);
  int N = static_cast<int>(b.shape[1]);
  Array c =
      MakeArray(out_name, Dtype::kBfloat16, {static_cast<uint32_t>(M), static_cast<uint32_t>(N)});
  std::vector<float> acc = MatmulAtB(a_t.data.data(), b.data.data(), K, M, N);
  for (size_t i = 0; i < acc.size(); ++i) c.data[i] = RoundBf16(acc[i]);
  return c;
}

// Row-wise: e = exp(x - max(x)), y = bf16(e * (1 / sum(e))), all fp32 until the store.
inline Array Softmax(const Array& x, const char* out_name) {
  size_t cols = x.shape.back(), rows = x.data.size() / cols;
  Array y = MakeArray(out_name, Dtype::kBfloat16, x.shape);
  std::vector<float> e(cols);
  for (size_t r = 0; r < rows; ++r) {
    const float* row = x.data.data() + r * cols;
    float m = *std::max_element(row, row + cols);
    float s = 0.0f;
    for (size_t c = 0; c < cols; ++c) s += (e[c] = std::exp(row[c] - m));
    float inv = 1.0f / s;
    for (size_t c = 0; c < cols; ++c) y.data[r * cols + c] = RoundBf16(e[c] * inv);
  }
  return y;
}

// y = bf16((x * rsqrt(sum(x^2) / D + eps)) * gamma)
inline Array RmsNorm(const Array& x, const Array& gamma, float eps, const char* out_name) {
  size_t D = x.shape.back(), rows = x.data.size() / D;
  Array y = MakeArray(out_name, Dtype::kBfloat16, x.shape);
  for (size_t r = 0; r < rows; ++r) {
    const float* row = x.data.data() + r * D;
    float ss = 0.0f;
    for (size_t c = 0; c < D; ++c) ss += row[c] * row[c];
    float rstd = 1.0f / std::sqrt(ss * (1.0f / static_cast<float>(D)) + eps);
    for (size_t c = 0; c < D; ++c) y.data[r * D + c] = RoundBf16((row[c] * rstd) * gamma.data[c]);
  }
  return y;
}

// y = bf16(((x - mean) * rsqrt(var + eps)) * gamma + beta), var = mean((x - mean)^2)
inline Array LayerNorm(const Array& x, const Array& gamma, const Array& beta, float eps,
                       const char* out_name) {
  size_t D = x.shape.back(), rows = x.data.size() / D;
  float inv_d = 1.0f / static_cast<float>(D);
  Array y = MakeArray(out_name, Dtype::kBfloat16, x.shape);
  std::vector<float> xc(D);
  for (size_t r = 0; r < rows; ++r) {
    const float* row = x.data.data() + r * D;
    float sum = 0.0f;
    for (size_t c = 0; c < D; ++c) sum += row[c];
    float mean = sum * inv_d;
    float ss = 0.0f;
    for (size_t c = 0; c < D; ++c) {
      xc[c] = row[c] - mean;
      ss += xc[c] * xc[c];
    }
    float rstd = 1.0f / std::sqrt(ss * inv_d + eps);
    for (size_t c = 0; c < D; ++c) {
      y.data[r * D + c] = RoundBf16((xc[c] * rstd) * gamma.data[c] + beta.data[c]);
    }
  }
  return y;
}

// h = bf16(gelu(x . w1)), y = bf16(h . w2); x [T, D], w1 [D, H], w2 [H, D].
inline Array GeluMlp(const Array& x, const Array& w1, const Array& w2, const char* out_name) {
  int T = static_cast<int>(x.shape[0]), D = static_cast<int>(x.shape[1]);
  int H = static_cast<int>(w1.shape[1]), N = static_cast<int>(w2.shape[1]);
  std::vector<float> xt = Transposed(x.data, T, D);                      // [D, T]
  std::vector<float> h = MatmulAtB(xt.data(), w1.data.data(), D, T, H);  // [T, H]
  for (float& v : h) v = RoundBf16(Gelu(v));
  std::vector<float> ht = Transposed(h, T, H);  // [H, T]
  std::vector<float> y = MatmulAtB(ht.data(), w2.data.data(), H, T, N);
  Array out =
      MakeArray(out_name, Dtype::kBfloat16, {static_cast<uint32_t>(T), static_cast<uint32_t>(N)});
  for (size_t i = 0; i < y.size(); ++i) out.data[i] = RoundBf16(y[i]);
  return out;
}

// One head: s = q . k^T, p = bf16(exp(s/sqrt(d) - max(s)/sqrt(d))), l = sum(p),
// out = bf16((p . v) * (1 / l)). q, k, v: [S, d].
inline Array Attention(const Array& q, const Array& k, const Array& v, const char* out_name) {
  int S = static_cast<int>(q.shape[0]), d = static_cast<int>(q.shape[1]);
  int Skv = static_cast<int>(k.shape[0]);
  float scale = 1.0f / std::sqrt(static_cast<float>(d));
  std::vector<float> qt = Transposed(q.data, S, d), kt = Transposed(k.data, Skv, d);
  std::vector<float> s = MatmulAtB(qt.data(), kt.data(), d, S, Skv);  // [S, Skv]
  std::vector<float> pt(static_cast<size_t>(Skv) * S);                // p^T [Skv, S]
  std::vector<float> inv_l(S);
  for (int i = 0; i < S; ++i) {
    const float* row = s.data() + static_cast<size_t>(i) * Skv;
    float m = *std::max_element(row, row + Skv);
    float bias = -m * scale;
    float l = 0.0f;
    for (int j = 0; j < Skv; ++j) {
      float p = RoundBf16(std::exp(row[j] * scale + bias));
      pt[static_cast<size_t>(j) * S + i] = p;
      l += p;
    }
    inv_l[i] = 1.0f / l;
  }
  std::vector<float> o = MatmulAtB(pt.data(), v.data.data(), Skv, S, d);  // [S, d]
  Array out = MakeArray(out_name, Dtype::kBfloat16, q.shape);
  for (int i = 0; i < S; ++i) {
    for (int c = 0; c < d; ++c) {
      size_t at = static_cast<size_t>(i) * d + c;
      out.data[at] = RoundBf16(o[at] * inv_l[i]);
    }
  }
  return out;
}

}  // namespace trnsim::samples::ref
