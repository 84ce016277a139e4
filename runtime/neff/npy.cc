#include "runtime/neff/npy.h"

#include <cstring>

#include "runtime/neff/limits.h"

namespace trnsim::neff {
namespace {

constexpr uint8_t kMagic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

// A cursor over the header's Python dict literal.
class DictParser {
 public:
  DictParser(std::string_view text, std::string_view what) : text_(text), what_(what) {}

  Status Parse(NpyArray* out) {
    bool have_descr = false, have_order = false, have_shape = false;
    SkipSpace();
    if (!Eat('{')) return Error("expected '{'");
    while (true) {
      SkipSpace();
      if (Eat('}')) break;
      TRNSIM_ASSIGN_OR_RETURN(std::string key, String());
      SkipSpace();
      if (!Eat(':')) return Error("expected ':' after '" + key + "'");
      SkipSpace();
      if (key == "descr" && !have_descr) {
        if (Peek() == '[') return Error("structured dtypes are not supported");
        TRNSIM_ASSIGN_OR_RETURN(out->descr, String());
        have_descr = true;
      } else if (key == "fortran_order" && !have_order) {
        if (EatWord("False")) {
        } else if (EatWord("True")) {
          return Error("'fortran_order': True; constants must be in C order");
        } else {
          return Error("'fortran_order' must be True or False");
        }
        have_order = true;
      } else if (key == "shape" && !have_shape) {
        TRNSIM_RETURN_IF_ERROR(Shape(&out->shape));
        have_shape = true;
      } else {
        return Error("unexpected or repeated key '" + key.substr(0, 40) + "'");
      }
      SkipSpace();
      if (Eat(',')) continue;
      SkipSpace();
      if (Eat('}')) break;
      return Error("expected ',' or '}'");
    }
    SkipSpace();
    if (pos_ != text_.size()) return Error("text after the closing '}'");
    if (!have_descr || !have_order || !have_shape) {
      return Error("the header needs 'descr', 'fortran_order' and 'shape'");
    }
    return Status::Ok();
  }

 private:
  Status Error(const std::string& m) const {
    return InvalidError(std::string(what_) + ": .npy header: " + m);
  }
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool Eat(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  bool EatWord(std::string_view w) {
    if (text_.substr(pos_, w.size()) != w) return false;
    pos_ += w.size();
    return true;
  }
  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\t' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  StatusOr<std::string> String() {
    char quote = Peek();
    if (quote != '\'' && quote != '"') return Error("expected a quoted string");
    ++pos_;
    size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos) return Error("unterminated string");
    std::string s(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return s;
  }
  Status Shape(std::vector<uint64_t>* shape) {
    if (!Eat('(')) return Error("'shape' must be a tuple");
    while (true) {
      SkipSpace();
      if (Eat(')')) return Status::Ok();
      if (Peek() < '0' || Peek() > '9') return Error("'shape' entries must be integers");
      uint64_t v = 0;
      while (Peek() >= '0' && Peek() <= '9') {
        uint64_t digit = static_cast<uint64_t>(Peek() - '0');
        if (v > (UINT64_MAX - digit) / 10) return Error("a 'shape' entry overflows 64 bits");
        v = v * 10 + digit;
        ++pos_;
      }
      Eat('L');  // Python 2 longs
      if (shape->size() >= kMaxShapeRank) {
        return Error("more than " + std::to_string(kMaxShapeRank) + " dimensions");
      }
      shape->push_back(v);
      SkipSpace();
      if (Eat(',')) continue;
      SkipSpace();
      if (Eat(')')) return Status::Ok();
      return Error("expected ',' or ')' in 'shape'");
    }
  }

  std::string_view text_;
  std::string_view what_;
  size_t pos_ = 0;
};

StatusOr<uint32_t> ItemBytes(const std::string& descr, std::string_view what) {
  auto bad = [&](const std::string& why) {
    return InvalidError(std::string(what) + ": .npy dtype '" + descr.substr(0, 40) + "': " + why);
  };
  if (descr.size() < 3) return bad("expected <byte order><kind><size>, e.g. '<f4'");
  char order = descr[0], kind = descr[1];
  if (order == '>') return bad("big-endian data is not supported");
  if (order != '<' && order != '|') return bad("byte order must be '<' or '|'");
  if (std::strchr("biufcV", kind) == nullptr) {
    return bad("kind must be one of b, i, u, f, c, V");
  }
  uint32_t n = 0;
  for (size_t i = 2; i < descr.size(); ++i) {
    if (descr[i] < '0' || descr[i] > '9' || n > 1000) return bad("bad item size");
    n = n * 10 + static_cast<uint32_t>(descr[i] - '0');
  }
  if (n == 0 || n > 64) return bad("item size must be 1..64 bytes");
  return n;
}

}  // namespace

bool IsNpyFileName(std::string_view name) {
  return name.size() >= 4 && name.substr(name.size() - 4) == ".npy";
}

StatusOr<NpyArray> ParseNpy(std::span<const uint8_t> file, std::string_view what) {
  auto error = [&](const std::string& m) {
    return InvalidError(std::string(what) + ": .npy: " + m);
  };
  if (file.size() < 10 || std::memcmp(file.data(), kMagic, sizeof(kMagic)) != 0) {
    return error("missing the \\x93NUMPY magic (a constant named *.npy must be a .npy file)");
  }
  uint8_t major = file[6], minor = file[7];
  if (major < 1 || major > 3 || minor != 0) {
    return error("format version " + std::to_string(major) + "." + std::to_string(minor) +
                 " (supported: 1.0, 2.0, 3.0)");
  }
  uint64_t header_len = 0;
  size_t len_bytes = major == 1 ? 2 : 4;
  if (file.size() < 8 + len_bytes) return error("truncated header length");
  for (size_t i = 0; i < len_bytes; ++i) header_len |= uint64_t{file[8 + i]} << (8 * i);
  uint64_t data_offset = 8 + len_bytes + header_len;
  if (data_offset > file.size()) {
    return error("header of " + std::to_string(header_len) + " bytes runs past the " +
                 std::to_string(file.size()) + "-byte file");
  }
  std::string_view text(reinterpret_cast<const char*>(file.data()) + 8 + len_bytes, header_len);
  NpyArray out;
  TRNSIM_RETURN_IF_ERROR(DictParser(text, what).Parse(&out));
  TRNSIM_ASSIGN_OR_RETURN(out.item_bytes, ItemBytes(out.descr, what));
  uint64_t bytes = out.item_bytes;
  for (uint64_t d : out.shape) {
    if (d != 0 && bytes > UINT64_MAX / d) return error("shape overflows 64 bits");
    bytes *= d;
  }
  out.data_offset = data_offset;
  out.data_bytes = bytes;
  if (file.size() - data_offset != bytes) {
    return error("the header describes " + std::to_string(bytes) + " data bytes, the file has " +
                 std::to_string(file.size() - data_offset));
  }
  return out;
}

std::vector<uint8_t> MakeNpy(std::string_view descr, const std::vector<uint64_t>& shape,
                             std::span<const uint8_t> data) {
  std::string dict = "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < shape.size(); ++i) {
    dict += std::to_string(shape[i]);
    if (shape.size() == 1 || i + 1 < shape.size()) dict += ",";
    if (i + 1 < shape.size()) dict += " ";
  }
  dict += "), }";
  // Pad with spaces and a newline so that the data starts on a 64-byte boundary (NumPy does).
  size_t total = 10 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict += '\n';
  std::vector<uint8_t> out(kMagic, kMagic + sizeof(kMagic));
  out.push_back(1);
  out.push_back(0);
  out.push_back(static_cast<uint8_t>(dict.size() & 0xff));
  out.push_back(static_cast<uint8_t>(dict.size() >> 8));
  out.insert(out.end(), dict.begin(), dict.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

}  // namespace trnsim::neff
