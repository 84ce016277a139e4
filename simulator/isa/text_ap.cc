// Text form of access patterns (docs/isa.md §10.2):
//   sbuf[p0:128, 4096 + [512 x 1]] bf16          partitions start:end, byte offset, free dims
//   psum[p0:128, bank2 + 64 + [512 x 1]] fp32     bankN = N x 2048 bytes
//   sbuf[p0:128, 0 + r5*2048 + [512 x 1]] bf16    dynamic offset: + reg x bytes
//   hbm[var3 + 0, [128 x 1024, 1024 x 1]] fp32    rows x row stride, then free dims
//   iota[0, [128 x 1, 512 x 1]] int32             base, rows x row step, then free dims
#include <bit>
#include <charconv>
#include <cmath>
#include <string>

#include "simulator/isa/text.h"
#include "simulator/isa/text_internal.h"

namespace trnsim::isa {
namespace internal {

void Cursor::SkipBlanks() {
  while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
}

bool Cursor::AtEnd() {
  SkipBlanks();
  return pos_ == text_.size();
}

bool Cursor::Eat(std::string_view token) {
  SkipBlanks();
  if (text_.substr(pos_, token.size()) != token) return false;
  pos_ += token.size();
  return true;
}

std::optional<int64_t> Cursor::Int() {
  SkipBlanks();
  size_t end = pos_;
  if (end < text_.size() && text_[end] == '-') ++end;
  while (end < text_.size() && text_[end] >= '0' && text_[end] <= '9') ++end;
  auto v = ParseInt(text_.substr(pos_, end - pos_));
  if (v) pos_ = end;
  return v;
}

std::string_view Cursor::Word() {
  SkipBlanks();
  size_t end = pos_;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (end < text_.size() && alpha(text_[end])) {
    while (end < text_.size() && (alpha(text_[end]) || digit(text_[end]))) ++end;
  }
  std::string_view w = text_.substr(pos_, end - pos_);
  pos_ = end;
  return w;
}

std::optional<int64_t> ParseInt(std::string_view token) {
  int64_t v = 0;
  if (token.empty() || token.size() > 20) return std::nullopt;
  auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
  if (ec != std::errc() || ptr != token.data() + token.size()) return std::nullopt;
  return v;
}

std::string FormatImm(uint32_t bits, bool integer) {
  if (integer) return std::to_string(static_cast<int32_t>(bits));
  float f = std::bit_cast<float>(bits);
  if (std::isnan(f)) {
    if (bits == 0x7FC00000u) return "nan";
    char buf[16];
    auto [ptr, ec] = std::to_chars(buf, buf + sizeof(buf), bits, 16);
    return "0x" + std::string(buf, ptr);
  }
  char buf[64];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof(buf), f);
  std::string s(buf, ptr);
  if (s.find_first_of(".eni") == std::string::npos) s += ".0";  // "inf" has 'n'/'i'
  return s;
}

std::optional<uint32_t> ParseImm(std::string_view t) {
  if (t.empty()) return std::nullopt;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    uint32_t v = 0;
    auto [ptr, ec] = std::from_chars(t.data() + 2, t.data() + t.size(), v, 16);
    if (ec != std::errc() || ptr != t.data() + t.size()) return std::nullopt;
    return v;
  }
  if (t.find_first_of(".eEnNiI") != std::string_view::npos) {
    float f = 0;
    auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), f);
    if (ec != std::errc() || ptr != t.data() + t.size()) return std::nullopt;
    if (std::isnan(f)) return 0x7FC00000u;  // "nan": the canonical quiet NaN
    return std::bit_cast<uint32_t>(f);
  }
  auto v = ParseInt(t);
  if (!v || *v < INT32_MIN || *v > static_cast<int64_t>(UINT32_MAX)) return std::nullopt;
  return static_cast<uint32_t>(*v);
}

}  // namespace internal

namespace {

using internal::Cursor;
using internal::kTextPsumBankBytes;

std::string S(int64_t v) { return std::to_string(v); }

std::string Dims(const AccessPattern& ap, bool with_rows) {
  std::string s = "[";
  if (with_rows) s += S(ap.num_partitions) + " x " + S(ap.partition_stride);
  for (int d = 0; d < ap.num_dims && d < kMaxFreeDims; ++d) {
    if (with_rows || d > 0) s += ", ";
    s += S(ap.sizes[d]) + " x " + S(ap.strides[d]);
  }
  return s + "]";
}

std::string RegTerm(const AccessPattern& ap) {
  if (ap.offset_reg == kNoRegister) return "";
  return " + r" + S(ap.offset_reg) + "*" + S(ap.reg_stride_bytes);
}

Status Bad(std::string_view text, const std::string& why) {
  return InvalidError("access pattern \"" + std::string(text) + "\": " + why);
}

// "[s x t, s x t, ...]"; a bare size means stride 1.
bool ParseDims(Cursor& c, std::pair<int64_t, int64_t>* dims, int max, int* n) {
  if (!c.Eat("[")) return false;
  *n = 0;
  do {
    if (*n == max) return false;
    auto size = c.Int();
    if (!size) return false;
    int64_t stride = 1;
    if (c.Eat("x")) {
      auto st = c.Int();
      if (!st) return false;
      stride = *st;
    }
    dims[(*n)++] = {*size, stride};
  } while (c.Eat(","));
  return c.Eat("]");
}

}  // namespace

std::string FormatAccessPattern(const AccessPattern& ap) {
  std::string dtype(DtypeShortName(ap.dtype));
  switch (ap.memory) {
    case Memory::kSbuf:
    case Memory::kPsum: {
      std::string off = S(ap.offset);
      if (ap.memory == Memory::kPsum && ap.offset >= 0) {
        off = "bank" + S(ap.offset / kTextPsumBankBytes);
        if (ap.offset % kTextPsumBankBytes) off += " + " + S(ap.offset % kTextPsumBankBytes);
      }
      return std::string(MemoryName(ap.memory)) + "[p" + S(ap.start_partition) + ":" +
             S(ap.start_partition + ap.num_partitions) + ", " + off + RegTerm(ap) + " + " +
             Dims(ap, false) + "] " + dtype;
    }
    case Memory::kHbm:
      return "hbm[var" + S(ap.var_id) + " + " + S(ap.offset) + RegTerm(ap) + ", " + Dims(ap, true) +
             "] " + dtype;
    case Memory::kPattern:
      return "iota[" + S(ap.offset) + ", " + Dims(ap, true) + "] " + dtype;
    default:
      return "none";
  }
}

StatusOr<AccessPattern> ParseAccessPattern(std::string_view text) {
  Cursor c(text);
  AccessPattern ap;
  std::string_view mem = c.Word();
  if (mem == "sbuf")
    ap.memory = Memory::kSbuf;
  else if (mem == "psum")
    ap.memory = Memory::kPsum;
  else if (mem == "hbm")
    ap.memory = Memory::kHbm;
  else if (mem == "iota")
    ap.memory = Memory::kPattern;
  else
    return Bad(text, "expected sbuf, psum, hbm or iota");
  if (!c.Eat("[")) return Bad(text, "expected '['");
  bool rows = !ap.on_chip();
  if (ap.on_chip()) {
    if (!c.Eat("p")) return Bad(text, "expected p<start>:<end>");
    auto start = c.Int();
    if (!start || !c.Eat(":")) return Bad(text, "expected p<start>:<end>");
    auto end = c.Int();
    if (!end || *start < 0 || *end <= *start || *end - *start > 0xFFFF || *start > 0xFFFF) {
      return Bad(text, "bad partition range");
    }
    ap.start_partition = static_cast<uint16_t>(*start);
    ap.num_partitions = static_cast<uint16_t>(*end - *start);
    if (!c.Eat(",")) return Bad(text, "expected ','");
    if (ap.memory == Memory::kPsum && c.Eat("bank")) {
      auto bank = c.Int();
      if (!bank || *bank < 0 || *bank > (int64_t{1} << 40)) return Bad(text, "bad bank");
      ap.offset = *bank * kTextPsumBankBytes;
      Cursor probe = c;
      if (probe.Eat("+") && !probe.Eat("[") && !probe.Eat("r")) {
        c.Eat("+");
        auto extra = c.Int();
        if (!extra || *extra < 0 || *extra > (int64_t{1} << 40)) return Bad(text, "bad offset");
        ap.offset += *extra;
      }
    } else {
      auto off = c.Int();
      if (!off) return Bad(text, "expected a byte offset");
      ap.offset = *off;
    }
  } else if (ap.memory == Memory::kHbm) {
    if (!c.Eat("var")) return Bad(text, "expected var<id>");
    auto id = c.Int();
    if (!id || *id < 0 || *id > UINT32_MAX || !c.Eat("+")) return Bad(text, "expected var<id> +");
    ap.var_id = static_cast<uint32_t>(*id);
    auto off = c.Int();
    if (!off) return Bad(text, "expected a byte offset");
    ap.offset = *off;
  } else {
    auto base = c.Int();
    if (!base) return Bad(text, "expected the iota base");
    ap.offset = *base;
  }
  Cursor probe = c;
  if (ap.memory != Memory::kPattern && probe.Eat("+") && probe.Eat("r")) {
    c = probe;
    auto reg = c.Int();
    if (!reg || *reg < 0 || *reg >= kNoRegister || !c.Eat("*"))
      return Bad(text, "bad r<n>*<bytes>");
    auto stride = c.Int();
    if (!stride || *stride < INT32_MIN || *stride > INT32_MAX)
      return Bad(text, "bad register stride");
    ap.offset_reg = static_cast<uint8_t>(*reg);
    ap.reg_stride_bytes = static_cast<int32_t>(*stride);
  }
  if (!(ap.on_chip() ? c.Eat("+") : c.Eat(","))) return Bad(text, "expected the dims list");
  std::pair<int64_t, int64_t> dims[kMaxFreeDims + 1];
  int n = 0;
  if (!ParseDims(c, dims, kMaxFreeDims + (rows ? 1 : 0), &n) || n < (rows ? 2 : 1)) {
    return Bad(text, "bad dims list (at most 4 free dims of [size x stride])");
  }
  int first = 0;
  if (rows) {
    if (dims[0].first < 1 || dims[0].first > 0xFFFF || dims[0].second < INT32_MIN ||
        dims[0].second > INT32_MAX) {
      return Bad(text, "bad rows x row stride");
    }
    ap.num_partitions = static_cast<uint16_t>(dims[0].first);
    ap.partition_stride = static_cast<int32_t>(dims[0].second);
    first = 1;
  }
  for (int i = first; i < n; ++i) {
    auto [size, stride] = dims[i];
    if (size < 0 || size > 0xFFFF || stride < INT32_MIN || stride > INT32_MAX) {
      return Bad(text, "free size or stride out of range");
    }
    ap.sizes[ap.num_dims] = static_cast<uint16_t>(size);
    ap.strides[ap.num_dims] = static_cast<int32_t>(stride);
    ++ap.num_dims;
  }
  if (!c.Eat("]")) return Bad(text, "expected ']'");
  std::string_view dtype = c.Word();
  auto d = DtypeFromShortName(dtype);
  if (!d) return Bad(text, "unknown dtype \"" + std::string(dtype) + "\"");
  ap.dtype = *d;
  if (!c.AtEnd()) return Bad(text, "trailing text \"" + std::string(c.Rest()) + "\"");
  return ap;
}

}  // namespace trnsim::isa
