// Lexing helpers shared by text.cc (instructions) and text_ap.cc (access patterns).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace trnsim::isa::internal {

// PSUM offsets print as `bankN + bytes`; the bank size of every Trainium PSUM (facts §2.2).
inline constexpr int64_t kTextPsumBankBytes = 2048;

// A left-to-right reader over one piece of text; blanks are skipped before every token.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}
  void SkipBlanks();
  bool AtEnd();
  // Consumes `token` (after blanks) when it is next.
  bool Eat(std::string_view token);
  // A decimal integer, optionally signed.
  std::optional<int64_t> Int();
  // [A-Za-z_][A-Za-z0-9_]*
  std::string_view Word();
  std::string_view Rest() const { return text_.substr(pos_); }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

// An immediate: signed decimal for integers, a float that always shows it is one ("1.0",
// "1e+30", "inf", "nan"), or raw bits "0x7fc00001" for a NaN that is not the canonical one.
std::string FormatImm(uint32_t bits, bool integer);
// Accepts all of FormatImm's forms; integers in [-2^31, 2^32).
std::optional<uint32_t> ParseImm(std::string_view token);
// A whole token as a decimal integer.
std::optional<int64_t> ParseInt(std::string_view token);

}  // namespace trnsim::isa::internal
