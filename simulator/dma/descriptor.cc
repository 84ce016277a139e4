// dma::Descriptor execution: binding endpoints to memory with exact bounds checks, the memcpy
// fast path for same-dtype copies, and the element-wise ops (semantics in descriptor.h).
#include "simulator/dma/descriptor.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "simulator/isa/dtype.h"
#include "simulator/memory/staging_bytes.h"
#include "simulator/numerics/alu.h"
#include "simulator/numerics/float_formats.h"

namespace trnsim::simulator::dma {
namespace {

using isa::Dtype;

// Element counts above this are refused; it keeps every extent computation inside __int128.
constexpr uint64_t kMaxElements = uint64_t{1} << 60;

// An endpoint bound to its memory. Dims are innermost first, with element counts (dim 0 too)
// and byte steps; dims of count 1 are dropped and dims that continue their inner neighbour are
// merged, which keeps the element order and makes contiguous runs as long as possible.
struct Bound {
  uint8_t* base = nullptr;  // first byte of the memory
  int64_t offset = 0;
  int rank = 0;
  uint64_t n[4] = {1, 1, 1, 1};
  int64_t step[4] = {0, 0, 0, 0};
  int esz = 0;
  Dtype dtype = Dtype::kUint8;
  uint64_t elements = 0;
  uint64_t lo = 0, hi = 0;  // bytes [lo, hi) of the memory that are touched (empty: none)

  uint64_t bytes() const { return elements * uint64_t(esz); }
  // The whole pattern is one run of bytes starting at `offset`.
  bool single_run() const { return rank == 0 || (rank == 1 && step[0] == esz); }
};

Status Fail(const std::string& what) { return InvalidError("execution error: " + what); }

// Which endpoint of which descriptor, named only when a message needs it: Execute runs on every
// transfer, so its success path builds no strings.
struct Who {
  int64_t id = 0;
  int source = -1;  // -1: the destination
  std::string Text() const {
    return "descriptor " + std::to_string(id) +
           (source < 0 ? std::string(" destination") : " source " + std::to_string(source));
  }
};

StatusOr<Bound> Bind(const Endpoint& ep, std::span<uint8_t> mem, const Who& who) {
  Bound b;
  b.base = mem.data();
  b.dtype = ep.dtype;
  b.esz = isa::DtypeSize(ep.dtype);
  const uint64_t size = mem.size();
  if (b.esz == 0) return Fail(who.Text() + " has no dtype");
  if (ep.offset > size)
    return Fail(who.Text() + ": offset " + std::to_string(ep.offset) + " is past the end of its " +
                std::to_string(size) + "-byte memory");
  uint64_t n[4] = {1, 1, 1, 1};
  int64_t step[4] = {0, 0, 0, 0};
  int rank = 0;
  if (ep.steps.empty() && ep.sizes.empty()) {
    uint64_t rest = size - ep.offset;
    if (rest % uint64_t(b.esz) != 0)
      return Fail(who.Text() + ": the rest of its memory (" + std::to_string(rest) +
                  " bytes) is not a whole number of " + std::string(isa::DtypeNeffName(b.dtype)) +
                  " elements");
    n[0] = rest / uint64_t(b.esz);
    step[0] = b.esz;
    rank = 1;
  } else {
    if (ep.steps.size() != ep.sizes.size() || ep.sizes.size() > 4)
      return Fail(who.Text() + ": steps and sizes must have the same length, at most 4 (" +
                  std::to_string(ep.steps.size()) + " and " + std::to_string(ep.sizes.size()) +
                  ")");
    if (ep.sizes[0] % uint64_t(b.esz) != 0)
      return Fail(who.Text() + ": innermost size " + std::to_string(ep.sizes[0]) +
                  " bytes is not a whole number of " + std::string(isa::DtypeNeffName(b.dtype)) +
                  " elements");
    rank = int(ep.sizes.size());
    for (int i = 0; i < rank; ++i) {
      n[i] = i == 0 ? ep.sizes[0] / uint64_t(b.esz) : ep.sizes[i];
      step[i] = ep.steps[i];
    }
  }
  unsigned __int128 count = 1;
  for (int i = 0; i < rank; ++i) {
    count *= n[i];
    if (count > kMaxElements) return Fail(who.Text() + " has too many elements");
  }
  b.offset = int64_t(ep.offset);
  b.elements = uint64_t(count);
  if (b.elements == 0) return b;
  __int128 lo = b.offset, hi = b.offset;
  for (int i = 0; i < rank; ++i) {
    __int128 extent = __int128(n[i] - 1) * step[i];
    (extent < 0 ? lo : hi) += extent;
  }
  if (lo < 0 || hi + b.esz > __int128(size))
    return Fail(who.Text() + " touches bytes [" + std::to_string(int64_t(lo)) + ", " +
                std::to_string(int64_t(hi + b.esz)) + ") outside its " + std::to_string(size) +
                "-byte memory");
  b.lo = uint64_t(lo);
  b.hi = uint64_t(hi + b.esz);
  // Normalise: drop count-1 dims, merge a dim into its inner neighbour when it continues it.
  for (int i = 0; i < rank; ++i) {
    if (n[i] == 1) continue;
    if (b.rank > 0 && step[i] == int64_t(b.n[b.rank - 1]) * b.step[b.rank - 1]) {
      b.n[b.rank - 1] *= n[i];
      continue;
    }
    b.n[b.rank] = n[i];
    b.step[b.rank] = step[i];
    ++b.rank;
  }
  return b;
}

// Calls f(byte offset, bytes) for each run of `b` in element order: whole dim-0 rows when dim 0
// is contiguous, else single elements.
template <typename F>
void ForEachRun(const Bound& b, F&& f) {
  if (b.elements == 0) return;
  if (b.rank == 0) return f(b.offset, uint64_t(b.esz));
  const bool rows = b.step[0] == b.esz;
  const uint64_t n0 = rows ? 1 : b.n[0];
  const uint64_t run = rows ? b.n[0] * uint64_t(b.esz) : uint64_t(b.esz);
  for (uint64_t i3 = 0; i3 < b.n[3]; ++i3)
    for (uint64_t i2 = 0; i2 < b.n[2]; ++i2)
      for (uint64_t i1 = 0; i1 < b.n[1]; ++i1) {
        int64_t at =
            b.offset + int64_t(i1) * b.step[1] + int64_t(i2) * b.step[2] + int64_t(i3) * b.step[3];
        for (uint64_t i0 = 0; i0 < n0; ++i0) f(at + int64_t(i0) * b.step[0], run);
      }
}

// The elements of `b`, packed, into `out` (b.bytes() bytes).
void Gather(const Bound& b, uint8_t* out) {
  ForEachRun(b, [&](int64_t at, uint64_t len) {
    std::memcpy(out, b.base + at, len);
    out += len;
  });
}

// Packed elements from `in` into the pattern `b`.
void Scatter(const Bound& b, const uint8_t* in) {
  ForEachRun(b, [&](int64_t at, uint64_t len) {
    std::memcpy(b.base + at, in, len);
    in += len;
  });
}

bool Overlap(const Bound& a, const Bound& b) {
  if (a.elements == 0 || b.elements == 0) return false;
  const uint8_t *a0 = a.base + a.lo, *a1 = a.base + a.hi, *b0 = b.base + b.lo, *b1 = b.base + b.hi;
  return std::less<const uint8_t*>()(a0, b1) && std::less<const uint8_t*>()(b0, a1);
}

// Destinations of more runs than this are not listed for a run-to-run copy (the list would cost
// more than staging).
constexpr uint64_t kMaxListedRuns = 1 << 16;

uint64_t RunCount(const Bound& b) {
  if (b.rank == 0) return 1;
  return b.step[0] == b.esz ? b.elements / b.n[0] : b.elements;
}

// Source runs memcpy'd straight into destination runs (the same number of bytes in all): the
// destination's runs are listed (a list reused per thread), then the source's walked against
// them.
void CopyRunToRun(const Bound& src, const Bound& dst) {
  thread_local std::vector<std::pair<int64_t, uint64_t>> runs;
  runs.clear();
  ForEachRun(dst, [&](int64_t at, uint64_t len) { runs.emplace_back(at, len); });
  size_t k = 0;
  uint64_t done = 0;  // bytes of runs[k] written
  ForEachRun(src, [&](int64_t at, uint64_t len) {
    const uint8_t* p = src.base + at;
    while (len > 0) {
      const uint64_t n = std::min(len, runs[k].second - done);
      std::memcpy(dst.base + runs[k].first + done, p, n);
      p += n;
      len -= n;
      done += n;
      if (done == runs[k].second) {
        ++k;
        done = 0;
      }
    }
  });
}

// Same-dtype copy: memcpy per run, straight from source to destination when the two do not
// overlap, else through a packed copy of the source.
void CopyBits(const Bound& src, const Bound& dst) {
  if (!Overlap(src, dst)) {
    if (dst.single_run()) return Gather(src, dst.base + dst.offset);
    if (src.single_run()) return Scatter(dst, src.base + src.offset);
    if (RunCount(dst) <= kMaxListedRuns) return CopyRunToRun(src, dst);
  }
  StagingBytes packed(src.bytes());
  Gather(src, packed.data());
  Scatter(dst, packed.data());
}

std::vector<float> ReadF32(const Bound& b) {
  StagingBytes packed(b.bytes());
  Gather(b, packed.data());
  std::vector<float> out(b.elements);
  numerics::ConvertToFp32(b.dtype, packed.data(), out.data(), b.elements);
  return out;
}

void WriteF32(const Bound& b, const std::vector<float>& values) {
  StagingBytes packed(b.bytes());
  numerics::ConvertFromFp32(values.data(), b.dtype, packed.data(), b.elements);
  Scatter(b, packed.data());
}

bool IsSigned(Dtype d) {
  return d == Dtype::kInt8 || d == Dtype::kInt16 || d == Dtype::kInt32 || d == Dtype::kInt64;
}

// Integer elements, sign- or zero-extended to 128 bits (exact for every integer dtype).
std::vector<__int128> ReadInt(const Bound& b) {
  StagingBytes packed(b.bytes());
  Gather(b, packed.data());
  std::vector<__int128> out(b.elements);
  const int bits = b.esz * 8;
  for (uint64_t k = 0; k < b.elements; ++k) {
    uint64_t raw = 0;
    std::memcpy(&raw, packed.data() + k * uint64_t(b.esz), size_t(b.esz));  // little-endian
    if (IsSigned(b.dtype) && bits < 64 && (raw >> (bits - 1)) & 1) raw |= ~uint64_t{0} << bits;
    out[k] = IsSigned(b.dtype) ? __int128(int64_t(raw)) : __int128(raw);
  }
  return out;
}

// Stores the low esz bytes of each value (wrap to the destination width).
void WriteInt(const Bound& b, const std::vector<__int128>& values) {
  StagingBytes packed(b.bytes());
  for (uint64_t k = 0; k < b.elements; ++k) {
    uint64_t raw = uint64_t((unsigned __int128)values[k]);
    std::memcpy(packed.data() + k * uint64_t(b.esz), &raw, size_t(b.esz));
  }
  Scatter(b, packed.data());
}

// `v` is an integer that an __int128 holds with room to spare.
bool IntegralValue(double v) {
  return std::isfinite(v) && v == std::trunc(v) && std::fabs(v) <= 0x1p64;
}

Status Transpose(const Descriptor& d, const Bound& src, const Bound& dst) {
  const uint64_t rows = d.transpose_rows, cols = d.transpose_cols, es = d.transpose_element_size;
  if (rows == 0 || cols == 0 || !(es == 1 || es == 2 || es == 4 || es == 8))
    return Fail("transpose needs rows, cols >= 1 and an element size of 1, 2, 4 or 8 (have " +
                std::to_string(rows) + " x " + std::to_string(cols) + " of " + std::to_string(es) +
                " bytes)");
  const unsigned __int128 wide = (unsigned __int128)rows * cols * es;
  const uint64_t bytes = wide > kMaxElements ? 0 : uint64_t(wide);
  if (bytes == 0 || src.bytes() != bytes || dst.bytes() != bytes)
    return Fail("transpose of " + std::to_string(rows) + " x " + std::to_string(cols) + " x " +
                std::to_string(es) + " bytes moves " + std::to_string(bytes) +
                " bytes, but the source has " + std::to_string(src.bytes()) +
                " and the destination " + std::to_string(dst.bytes()));
  StagingBytes in(bytes), out(bytes);
  Gather(src, in.data());
  for (uint64_t i = 0; i < rows; ++i)
    for (uint64_t j = 0; j < cols; ++j)
      std::memcpy(out.data() + (j * rows + i) * es, in.data() + (i * cols + j) * es, es);
  Scatter(dst, out.data());
  return Status::Ok();
}

// add, fma, min, max on exact integers (every endpoint an integer dtype).
void ComputeInt(const Descriptor& d, const std::vector<Bound>& src, const Bound& dst) {
  using U = unsigned __int128;  // wrapping arithmetic; the store keeps the low bits
  std::vector<__int128> acc = ReadInt(src[0]);
  switch (d.op) {
    case Op::kAdd:
      if (src.size() == 1) {
        std::vector<__int128> old = ReadInt(dst);
        for (uint64_t k = 0; k < acc.size(); ++k) acc[k] = __int128(U(old[k]) + U(acc[k]));
      }
      for (size_t s = 1; s < src.size(); ++s) {
        std::vector<__int128> v = ReadInt(src[s]);
        for (uint64_t k = 0; k < acc.size(); ++k) acc[k] = __int128(U(acc[k]) + U(v[k]));
      }
      break;
    case Op::kFma: {
      std::vector<__int128> old = ReadInt(dst);
      const U scale = U(__int128(d.scale));
      for (uint64_t k = 0; k < acc.size(); ++k) acc[k] = __int128(U(old[k]) + U(acc[k]) * scale);
      break;
    }
    case Op::kMin:
    case Op::kMax: {
      const __int128 c = __int128(d.constant);
      for (__int128& v : acc) v = d.op == Op::kMin ? std::min(v, c) : std::max(v, c);
      break;
    }
    default:
      break;
  }
  WriteInt(dst, acc);
}

// add, fma, min, max in fp32, rounded to the destination with RNE.
void ComputeF32(const Descriptor& d, const std::vector<Bound>& src, const Bound& dst) {
  std::vector<float> acc = ReadF32(src[0]);
  switch (d.op) {
    case Op::kAdd:
      if (src.size() == 1) {
        std::vector<float> old = ReadF32(dst);
        for (uint64_t k = 0; k < acc.size(); ++k) acc[k] = old[k] + acc[k];
      }
      for (size_t s = 1; s < src.size(); ++s) {
        std::vector<float> v = ReadF32(src[s]);
        for (uint64_t k = 0; k < acc.size(); ++k) acc[k] = acc[k] + v[k];
      }
      break;
    case Op::kFma: {
      std::vector<float> old = ReadF32(dst);
      const float scale = float(d.scale);
      for (uint64_t k = 0; k < acc.size(); ++k) acc[k] = std::fmaf(acc[k], scale, old[k]);
      break;
    }
    case Op::kMin:
    case Op::kMax: {
      const float c = float(d.constant);
      const isa::AluOp op = d.op == Op::kMin ? isa::AluOp::kMinimum : isa::AluOp::kMaximum;
      for (float& v : acc) v = numerics::ApplyAlu(op, v, c);
      break;
    }
    default:
      break;
  }
  WriteF32(dst, acc);
}

StatusOr<std::span<uint8_t>> Memory(uint32_t var_id, reference::CoreState& state,
                                    reference::HbmView& hbm) {
  if (var_id == kSbufVarId) return std::span<uint8_t>(state.sbuf);
  return hbm.Var(var_id);
}

uint64_t EndpointBytes(const Endpoint& e) {
  if (e.sizes.empty()) return 0;  // "the rest of the memory": unknown without the memory
  unsigned __int128 bytes = e.sizes[0];
  for (size_t i = 1; i < e.sizes.size(); ++i) bytes *= e.sizes[i];
  return bytes > ~uint64_t{0} ? ~uint64_t{0} : uint64_t(bytes);
}

}  // namespace

const Descriptor* DescriptorTable::Find(isa::Engine engine, int64_t id) const {
  if (int(engine) >= isa::kEngineCount) return nullptr;
  const std::vector<Descriptor>& list = per_engine[int(engine)];
  auto it = std::lower_bound(list.begin(), list.end(), id,
                             [](const Descriptor& d, int64_t v) { return d.id < v; });
  return it != list.end() && it->id == id ? &*it : nullptr;
}

TransferShape ShapeOf(const Descriptor& d) {
  TransferShape t;
  t.bytes = EndpointBytes(d.dest);
  const int esz = isa::DtypeSize(d.dest.dtype);
  if (d.dest.steps.empty() || d.dest.sizes.empty())
    t.chunk_bytes = t.bytes;
  else
    t.chunk_bytes = d.dest.steps[0] == esz ? d.dest.sizes[0] : uint64_t(esz);
  t.chunk_bytes = std::min(t.chunk_bytes, t.bytes);
  int sides = 0;
  for (const Endpoint& s : d.sources) {
    if (s.var_id == kSbufVarId) continue;
    ++sides;
    t.hbm_read_bytes += EndpointBytes(s);
  }
  if (d.dest.var_id != kSbufVarId) {
    ++sides;
    t.hbm_write_bytes = t.bytes;
    // Read-modify-write ops also read the destination.
    if (d.op == Op::kFma || (d.op == Op::kAdd && d.sources.size() == 1))
      t.hbm_read_bytes += t.bytes;
  }
  t.hbm_sides = std::min(sides, 2);
  return t;
}

Status Execute(const Descriptor& d, reference::CoreState& state, reference::HbmView& hbm) {
  auto name = [&] { return "descriptor " + std::to_string(d.id); };
  if (d.sources.empty() || d.sources.size() > 16)
    return Fail(name() + " has " + std::to_string(d.sources.size()) + " sources (1 to 16)");
  if (d.sources.size() > 1 && d.op != Op::kAdd)
    return Fail(name() + ": only add takes more than one source");
  std::vector<Bound> src;
  for (size_t s = 0; s < d.sources.size(); ++s) {
    const Who side{d.id, int(s)};
    StatusOr<std::span<uint8_t>> mem = Memory(d.sources[s].var_id, state, hbm);
    if (!mem.ok()) return Fail(side.Text() + ": " + mem.status().message());
    TRNSIM_ASSIGN_OR_RETURN(Bound b, Bind(d.sources[s], *mem, side));
    src.push_back(b);
  }
  StatusOr<std::span<uint8_t>> mem = Memory(d.dest.var_id, state, hbm);
  if (!mem.ok()) return Fail(name() + " destination: " + mem.status().message());
  TRNSIM_ASSIGN_OR_RETURN(Bound dst, Bind(d.dest, *mem, Who{d.id, -1}));

  if (d.op == Op::kTranspose) return Transpose(d, src[0], dst);
  for (size_t s = 0; s < src.size(); ++s)
    if (src[s].elements != dst.elements)
      return Fail(name() + ": source " + std::to_string(s) + " has " +
                  std::to_string(src[s].elements) + " elements, the destination " +
                  std::to_string(dst.elements));
  if (dst.elements == 0) return Status::Ok();

  if (d.op == Op::kCopy || d.op == Op::kCast) {
    const bool same = dst.dtype == src[0].dtype ||
                      (isa::DtypeSize(dst.dtype) == 4 && isa::IsFloat(dst.dtype) &&
                       isa::IsFloat(src[0].dtype) && isa::DtypeSize(src[0].dtype) == 4);
    if (same) {
      CopyBits(src[0], dst);
      return Status::Ok();
    }
    // Gather completes before the scatter, so overlap reads the old source.
    StagingBytes in(src[0].bytes()), out(dst.bytes());
    Gather(src[0], in.data());
    numerics::ConvertElements(src[0].dtype, in.data(), dst.dtype, out.data(), dst.elements);
    Scatter(dst, out.data());
    return Status::Ok();
  }

  bool integer = !isa::IsFloat(dst.dtype);
  for (const Bound& b : src) integer = integer && !isa::IsFloat(b.dtype);
  if (d.op == Op::kFma) integer = integer && IntegralValue(d.scale);
  if (d.op == Op::kMin || d.op == Op::kMax) integer = integer && IntegralValue(d.constant);
  // Every input is read in full before the destination is written.
  integer ? ComputeInt(d, src, dst) : ComputeF32(d, src, dst);
  return Status::Ok();
}

}  // namespace trnsim::simulator::dma
