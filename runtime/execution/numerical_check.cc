#include "runtime/execution/numerical_check.h"

#include <cmath>
#include <cstring>

#include "simulator/numerics/float_formats.h"

namespace trnsim::runtime::execution {
namespace {

template <typename Decode>
NonFiniteCount Count(std::span<const uint8_t> bytes, size_t width, Decode decode) {
  NonFiniteCount c;
  const size_t n = bytes.size() / width;
  for (size_t i = 0; i < n; ++i) {
    const float v = decode(bytes.data() + i * width);
    const bool nan = std::isnan(v), inf = std::isinf(v);
    if (!nan && !inf) continue;
    if (c.nan + c.inf == 0) c.first = i;
    c.nan += nan;
    c.inf += inf;
  }
  return c;
}

uint16_t Load16(const uint8_t* p) { return uint16_t(p[0] | (p[1] << 8)); }

}  // namespace

NonFiniteCount CountNonFinite(isa::Dtype dtype, std::span<const uint8_t> bytes) {
  using isa::Dtype;
  switch (dtype) {
    case Dtype::kFloat32:
    case Dtype::kFloat32r:
      return Count(bytes, 4, [](const uint8_t* p) {
        float f;
        std::memcpy(&f, p, 4);
        return f;
      });
    case Dtype::kBfloat16:
      return Count(bytes, 2, [](const uint8_t* p) { return numerics::Bf16ToFp32(Load16(p)); });
    case Dtype::kFloat16:
      return Count(bytes, 2, [](const uint8_t* p) { return numerics::Fp16ToFp32(Load16(p)); });
    case Dtype::kFloat8E3:
      return Count(bytes, 1, [](const uint8_t* p) { return numerics::Fp8E3ToFp32(*p); });
    case Dtype::kFloat8E4:
      return Count(bytes, 1, [](const uint8_t* p) { return numerics::Fp8E4ToFp32(*p); });
    case Dtype::kFloat8E5:
      return Count(bytes, 1, [](const uint8_t* p) { return numerics::Fp8E5ToFp32(*p); });
    default:
      return {};
  }
}

Status NumericalErrorStatus(const std::string& name, isa::Dtype dtype,
                            const NonFiniteCount& count) {
  if (!count.any()) return Status::Ok();
  return Status(StatusCode::kExecCompletedWithNumErr,
                "output '" + name + "' (" + std::string(isa::DtypeShortName(dtype)) + ") holds " +
                    std::to_string(count.nan) + " NaN and " + std::to_string(count.inf) +
                    " infinite values, the first at element " + std::to_string(count.first));
}

}  // namespace trnsim::runtime::execution
