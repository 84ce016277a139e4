#include "simulator/collective/collective_compute.h"

#include <algorithm>
#include <cstring>

#include "simulator/isa/dtype.h"
#include "simulator/numerics/alu.h"
#include "simulator/numerics/float_formats.h"

namespace trnsim::simulator::collective {
namespace {

using isa::AluOp;
using isa::Dtype;

bool IsReduction(CollectiveKind kind) {
  return kind == CollectiveKind::kAllReduce || kind == CollectiveKind::kReduceScatter;
}

bool IsSignedInt(Dtype dtype) {
  return dtype == Dtype::kInt8 || dtype == Dtype::kInt16 || dtype == Dtype::kInt32 ||
         dtype == Dtype::kInt64;
}

bool SupportedOp(Dtype dtype, AluOp op) {
  switch (op) {
    case AluOp::kAdd:
    case AluOp::kMultiply:
    case AluOp::kMaximum:
    case AluOp::kMinimum:
      return true;
    case AluOp::kBitwiseAnd:
    case AluOp::kBitwiseOr:
    case AluOp::kBitwiseXor:
      return !isa::IsFloat(dtype);
    default:
      return false;
  }
}

// Integer element `i` of `data`, sign- or zero-extended to 64 bits.
uint64_t LoadInt(const uint8_t* data, size_t i, int size, bool is_signed) {
  uint64_t raw = 0;
  std::memcpy(&raw, data + i * size, size);  // little-endian host, as everywhere in trnsim
  if (is_signed && size < 8 && (raw >> (size * 8 - 1)) & 1) raw |= ~uint64_t{0} << (size * 8);
  return raw;
}

uint64_t ReduceInt(AluOp op, uint64_t x, uint64_t y, bool is_signed) {
  switch (op) {
    case AluOp::kAdd:
      return x + y;
    case AluOp::kMultiply:
      return x * y;
    case AluOp::kMaximum:
      return is_signed ? static_cast<uint64_t>(std::max(int64_t(x), int64_t(y))) : std::max(x, y);
    case AluOp::kMinimum:
      return is_signed ? static_cast<uint64_t>(std::min(int64_t(x), int64_t(y))) : std::min(x, y);
    case AluOp::kBitwiseAnd:
      return x & y;
    case AluOp::kBitwiseOr:
      return x | y;
    default:
      return x ^ y;  // kBitwiseXor; ValidateCall admits nothing else
  }
}

// The reduction of the members' inputs, in position order (the ring order of a ring that
// starts at position 0).
std::vector<uint8_t> Reduce(std::span<const CollectiveCall* const> calls) {
  const CollectiveCall& first = *calls[0];
  const Dtype dtype = first.dtype;
  const int size = isa::DtypeSize(dtype);
  const size_t count = first.input.size() / size;
  std::vector<uint8_t> out(first.input.size());
  if (size == 4 && isa::IsFloat(dtype) &&
      (first.op == AluOp::kAdd || first.op == AluOp::kMultiply)) {
    // fp32 add/multiply: ApplyAlu's plain x + y and x * y, accumulated in place (no rounding
    // step: fp32 is the arithmetic's own format). Loads and stores through memcpy vectorise.
    out = first.input;
    const bool add = first.op == AluOp::kAdd;
    for (size_t k = 1; k < calls.size(); ++k) {
      const uint8_t* x = calls[k]->input.data();
      uint8_t* o = out.data();
      for (size_t i = 0; i < count; ++i) {
        float a, b;
        std::memcpy(&a, o + 4 * i, 4);
        std::memcpy(&b, x + 4 * i, 4);
        a = add ? a + b : a * b;
        std::memcpy(o + 4 * i, &a, 4);
      }
    }
    return out;
  }
  if (isa::IsFloat(dtype)) {
    const bool is_fp32 = size == 4;
    std::vector<float> acc(count), x(count);
    numerics::ConvertToFp32(dtype, first.input.data(), acc.data(), count);
    for (size_t k = 1; k < calls.size(); ++k) {
      numerics::ConvertToFp32(dtype, calls[k]->input.data(), x.data(), count);
      for (size_t i = 0; i < count; ++i) acc[i] = numerics::ApplyAlu(first.op, acc[i], x[i]);
      if (!is_fp32) {  // round every partial sum to the dtype, as the ring's hop does
        numerics::ConvertFromFp32(acc.data(), dtype, out.data(), count);
        numerics::ConvertToFp32(dtype, out.data(), acc.data(), count);
      }
    }
    numerics::ConvertFromFp32(acc.data(), dtype, out.data(), count);
    if (is_fp32) std::memcpy(out.data(), acc.data(), out.size());  // keep NaN payloads as-is
    return out;
  }
  const bool is_signed = IsSignedInt(dtype);
  for (size_t i = 0; i < count; ++i) {
    uint64_t acc = LoadInt(first.input.data(), i, size, is_signed);
    for (size_t k = 1; k < calls.size(); ++k) {
      acc =
          ReduceInt(first.op, acc, LoadInt(calls[k]->input.data(), i, size, is_signed), is_signed);
    }
    std::memcpy(out.data() + i * size, &acc, size);  // truncation = wrapping to the width
  }
  return out;
}

std::string Bytes(uint64_t n) { return std::to_string(n) + " B"; }

}  // namespace

Status ValidateCall(const CollectiveCall& call, uint32_t group_size) {
  const std::string name(CollectiveKindName(call.kind));
  if (static_cast<int>(call.kind) >= kCollectiveKindCount) {
    return InvalidError("collective kind " + std::to_string(static_cast<int>(call.kind)) +
                        " is not one of all_reduce, all_gather, reduce_scatter, all_to_all, "
                        "permute");
  }
  const int size = isa::DtypeSize(call.dtype);
  if (size == 0) return InvalidError(name + " with an unknown dtype");
  const uint64_t in = call.input.size(), out = call.output_bytes, g = group_size;
  const std::string dtype(isa::DtypeShortName(call.dtype));
  if (in % size != 0 || out % size != 0) {
    return InvalidError(name + ": input " + Bytes(in) + " and output " + Bytes(out) +
                        " must be whole " + dtype + " elements (" + std::to_string(size) + " B)");
  }
  std::string need;
  switch (call.kind) {
    case CollectiveKind::kAllReduce:
    case CollectiveKind::kPermute:
      if (out != in) need = "output = input";
      break;
    case CollectiveKind::kAllGather:
      if (out != g * in) need = "output = " + std::to_string(g) + " x input";
      break;
    case CollectiveKind::kReduceScatter:
      if (in != g * out) need = "input = " + std::to_string(g) + " x output";
      break;
    case CollectiveKind::kAllToAll:
      if (out != in || (in / size) % g != 0) {
        need = "output = input, a multiple of " + std::to_string(g) + " elements";
      }
      break;
  }
  if (!need.empty()) {
    return InvalidError(name + " over a group of " + std::to_string(g) + " needs " + need +
                        "; got input " + Bytes(in) + ", output " + Bytes(out));
  }
  if (IsReduction(call.kind) && !SupportedOp(call.dtype, call.op)) {
    return InvalidError(name + ": reduction '" + std::string(isa::AluOpName(call.op)) +
                        "' is not supported on " + dtype +
                        " (add, multiply, maximum, minimum; integers also bitwise and/or/xor)");
  }
  return Status();
}

std::string DescribeCall(const CollectiveCall& call, uint32_t world_size) {
  // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on "literal" + string.
  std::string s(CollectiveKindName(call.kind));
  if (IsReduction(call.kind)) {
    s += ' ';
    s += isa::AluOpName(call.op);
  }
  s += ' ';
  s += isa::DtypeShortName(call.dtype);
  s += ", " + Bytes(call.input.size());
  s += " -> " + Bytes(call.output_bytes);
  s += ", group " + std::to_string(call.group.size);
  s += " stride " + std::to_string(call.group.stride);
  if (call.kind == CollectiveKind::kPermute) s += ", shift " + std::to_string(call.shift);
  s += ", world " + std::to_string(world_size);
  return s;
}

std::vector<std::vector<uint8_t>> ComputeOutputs(std::span<const CollectiveCall* const> calls) {
  const size_t g = calls.size();
  const CollectiveCall& first = *calls[0];
  std::vector<std::vector<uint8_t>> outputs(g);
  switch (first.kind) {
    case CollectiveKind::kAllReduce: {
      std::vector<uint8_t> sum = Reduce(calls);
      for (size_t p = 0; p + 1 < g; ++p) outputs[p] = sum;
      outputs[g - 1] = std::move(sum);
      break;
    }
    case CollectiveKind::kReduceScatter: {
      const std::vector<uint8_t> sum = Reduce(calls);
      const size_t block = first.output_bytes;
      for (size_t p = 0; p < g; ++p) {
        outputs[p].assign(sum.begin() + p * block, sum.begin() + (p + 1) * block);
      }
      break;
    }
    case CollectiveKind::kAllGather: {
      std::vector<uint8_t> all;
      all.reserve(first.output_bytes);
      for (const CollectiveCall* c : calls) all.insert(all.end(), c->input.begin(), c->input.end());
      for (size_t p = 0; p + 1 < g; ++p) outputs[p] = all;
      outputs[g - 1] = std::move(all);
      break;
    }
    case CollectiveKind::kAllToAll: {
      const size_t block = first.input.size() / g;
      for (size_t p = 0; p < g; ++p) {
        outputs[p].resize(first.output_bytes);
        for (size_t j = 0; j < g; ++j) {
          std::memcpy(outputs[p].data() + j * block, calls[j]->input.data() + p * block, block);
        }
      }
      break;
    }
    case CollectiveKind::kPermute: {
      const int64_t n = static_cast<int64_t>(g);
      for (size_t p = 0; p < g; ++p) {
        const int64_t from = ((static_cast<int64_t>(p) - first.shift) % n + n) % n;
        outputs[p] = calls[from]->input;
      }
      break;
    }
  }
  return outputs;
}

}  // namespace trnsim::simulator::collective
