// Lexical helpers of the .s format, shared by the assembler and the disassembler.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace trnsim::kb::asmtext {

// Splits at blanks outside [...] and "...": `.input x bf16 [128, 512] id=0` has 5 tokens.
// Returns nullopt for an unterminated bracket or quote.
std::optional<std::vector<std::string>> Tokenize(std::string_view line);

// "key=value" -> (key, value); a token without '=' gives (token, "").
std::pair<std::string, std::string> SplitKey(const std::string& token);

std::optional<int64_t> ParseInt(std::string_view s);    // decimal, optionally signed
std::optional<uint64_t> ParseUint(std::string_view s);  // decimal
std::optional<double> ParseDouble(std::string_view s);
// "[128, 512]" -> {128, 512}; every entry 1..2^32-1.
std::optional<std::vector<uint32_t>> ParseShape(std::string_view s);
// "1,2,-3" -> {1, 2, -3}
std::optional<std::vector<int64_t>> ParseIntList(std::string_view s);
// "\"text\"" -> text (no escapes; the text may not contain '"').
std::optional<std::string> ParseQuoted(std::string_view s);
// Any bytes as a quoted string that Tokenize keeps whole: '\\' for a backslash, '\xNN' for '"'
// and for control bytes (below 0x20, and 0x7f); every other byte as itself.
std::string QuoteEscaped(std::string_view text);
// The inverse; nullopt when not quoted, on a raw '"' inside, or on a malformed escape.
std::optional<std::string> ParseQuotedEscaped(std::string_view s);

std::string Hex(std::span<const uint8_t> bytes);
std::optional<std::vector<uint8_t>> ParseHex(std::string_view s);

std::string ShapeText(const std::vector<uint32_t>& shape);  // "[128, 512]"
std::string IntListText(std::span<const int64_t> v);        // "1,2,3"
std::string DoubleText(double v);                           // shortest text that round-trips

}  // namespace trnsim::kb::asmtext
