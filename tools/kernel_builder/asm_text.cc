#include "tools/kernel_builder/asm_text.h"

#include <charconv>
#include <cstdio>

namespace trnsim::kb::asmtext {

std::optional<std::vector<std::string>> Tokenize(std::string_view line) {
  std::vector<std::string> out;
  size_t i = 0;
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (i < line.size()) {
    while (i < line.size() && blank(line[i])) ++i;
    if (i == line.size()) break;
    size_t start = i;
    int depth = 0;
    bool quoted = false;
    while (i < line.size() && (depth > 0 || quoted || !blank(line[i]))) {
      char c = line[i];
      if (c == '"') quoted = !quoted;
      if (!quoted && c == '[') ++depth;
      if (!quoted && c == ']') --depth;
      ++i;
    }
    if (depth != 0 || quoted) return std::nullopt;
    out.emplace_back(line.substr(start, i - start));
  }
  return out;
}

std::pair<std::string, std::string> SplitKey(const std::string& token) {
  size_t eq = token.find('=');
  if (eq == std::string::npos || token[0] == '"') return {token, ""};
  return {token.substr(0, eq), token.substr(eq + 1)};
}

std::optional<int64_t> ParseInt(std::string_view s) {
  int64_t v = 0;
  if (s.empty()) return std::nullopt;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<uint64_t> ParseUint(std::string_view s) {
  uint64_t v = 0;
  if (s.empty() || s[0] == '-') return std::nullopt;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<double> ParseDouble(std::string_view s) {
  double v = 0;
  if (s.empty()) return std::nullopt;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<std::vector<uint32_t>> ParseShape(std::string_view s) {
  if (s.size() < 2 || s.front() != '[' || s.back() != ']') return std::nullopt;
  s = s.substr(1, s.size() - 2);
  std::vector<uint32_t> shape;
  while (true) {
    size_t comma = s.find(',');
    std::string_view item = s.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    auto v = ParseUint(item);
    if (!v || *v == 0 || *v > UINT32_MAX) return std::nullopt;
    shape.push_back(static_cast<uint32_t>(*v));
    if (comma == std::string_view::npos) break;
    s = s.substr(comma + 1);
  }
  return shape;
}

std::optional<std::vector<int64_t>> ParseIntList(std::string_view s) {
  std::vector<int64_t> out;
  if (s.empty()) return out;
  while (true) {
    size_t comma = s.find(',');
    auto v = ParseInt(s.substr(0, comma));
    if (!v) return std::nullopt;
    out.push_back(*v);
    if (comma == std::string_view::npos) break;
    s = s.substr(comma + 1);
  }
  return out;
}

std::optional<std::string> ParseQuoted(std::string_view s) {
  if (s.size() < 2 || s.front() != '"' || s.back() != '"') return std::nullopt;
  std::string_view inner = s.substr(1, s.size() - 2);
  if (inner.find('"') != std::string_view::npos) return std::nullopt;
  return std::string(inner);
}

std::string QuoteEscaped(std::string_view text) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out = "\"";
  for (char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"' || b < 0x20 || b == 0x7f) {
      out += "\\x";
      out += kDigits[b >> 4];
      out += kDigits[b & 0xF];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::optional<std::string> ParseQuotedEscaped(std::string_view s) {
  if (s.size() < 2 || s.front() != '"' || s.back() != '"') return std::nullopt;
  std::string_view inner = s.substr(1, s.size() - 2);
  std::string out;
  for (size_t i = 0; i < inner.size(); ++i) {
    char c = inner[i];
    if (c == '"') return std::nullopt;
    if (c != '\\') {
      out += c;
      continue;
    }
    if (i + 1 < inner.size() && inner[i + 1] == '\\') {
      out += '\\';
      ++i;
      continue;
    }
    // "\xNN": the backslash at i, 'x' at i + 1, the digits at i + 2 and i + 3.
    if (i + 3 >= inner.size() || inner[i + 1] != 'x') return std::nullopt;
    std::optional<std::vector<uint8_t>> byte = ParseHex(inner.substr(i + 2, 2));
    if (!byte || byte->size() != 1) return std::nullopt;
    out += static_cast<char>((*byte)[0]);
    i += 3;
  }
  return out;
}

std::string Hex(std::span<const uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  s.reserve(bytes.size() * 2);
  for (uint8_t b : bytes) {
    s += kDigits[b >> 4];
    s += kDigits[b & 0xF];
  }
  return s;
}

std::optional<std::vector<uint8_t>> ParseHex(std::string_view s) {
  if (s.size() % 2 != 0) return std::nullopt;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::vector<uint8_t> out(s.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    int hi = nibble(s[2 * i]), lo = nibble(s[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return out;
}

std::string ShapeText(const std::vector<uint32_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string IntListText(std::span<const int64_t> v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

std::string DoubleText(double v) {
  char buf[64];
  auto [p, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, p);
}

}  // namespace trnsim::kb::asmtext
