// JSON members of a NEFF: bounded parsing into nlohmann::ordered_json (member order kept,
// duplicate keys refused) and typed field access whose errors name the file and the field.
//
// Every error message starts with `where`, the member and the path of the value inside it,
// e.g. "sg00/def.json: var.w.size: expected an unsigned integer, got string".
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status_or.h"
#include "simulator/isa/dtype.h"

namespace trnsim::neff {

using Json = nlohmann::ordered_json;

// Parses the member `file`. NRT_INVALID for malformed JSON (message from the parser), more
// than kMaxJsonBytes or kMaxJsonDepth, or a key repeated within one object. Never throws.
StatusOr<Json> ParseJson(std::string_view file, std::span<const uint8_t> bytes);

// Serialises `json` (indent 1) for the member `file`; NRT_INVALID if a string is not UTF-8.
StatusOr<std::vector<uint8_t>> DumpJson(std::string_view file, const Json& json);

// Appends `key` to the object `obj` without searching it (ordered_json's operator[] is a linear
// search); the caller guarantees the key is new.
void AppendField(Json* obj, std::string key, Json value);

// "object", "array", "string", "boolean", "integer", "number", "null".
std::string_view JsonTypeName(const Json& value);
// The path of `key` inside `where`: "sg00/def.json" + "var" -> "sg00/def.json: var";
// "sg00/def.json: var" + "w" -> "sg00/def.json: var.w"; keys that are not plain identifiers
// are quoted ("sg00/def.json: var.\"input:0\"").
std::string FieldPath(std::string_view where, std::string_view key);

enum class Need { kOptional, kRequired };

// NRT_INVALID unless `value` is an object.
Status RequireObject(const Json& value, std::string_view where);
// The value of `key` in the object `obj`, or nullptr.
const Json* FindField(const Json& obj, std::string_view key);

// Conversions of one value; `what` names it in the error.
StatusOr<std::string> AsString(const Json& value, std::string_view what);
StatusOr<int64_t> AsInt(const Json& value, std::string_view what);
StatusOr<uint64_t> AsUint(const Json& value, std::string_view what, uint64_t max);
StatusOr<double> AsNumber(const Json& value, std::string_view what);  // finite

// Field readers: with Need::kOptional an absent field leaves *out unchanged; a present field
// of the wrong type or range is NRT_INVALID. `obj` must be an object.
Status GetString(const Json& obj, std::string_view key, std::string_view where, std::string* out,
                 Need need = Need::kOptional);
Status GetBool(const Json& obj, std::string_view key, std::string_view where, bool* out,
               Need need = Need::kOptional);
Status GetInt(const Json& obj, std::string_view key, std::string_view where, int64_t* out,
              Need need = Need::kOptional);
Status GetOptionalInt(const Json& obj, std::string_view key, std::string_view where,
                      std::optional<int64_t>* out);
Status GetUint(const Json& obj, std::string_view key, std::string_view where, uint64_t max,
               uint64_t* out, Need need = Need::kOptional);
Status GetUint32(const Json& obj, std::string_view key, std::string_view where, uint32_t* out,
                 Need need = Need::kOptional);
Status GetNumber(const Json& obj, std::string_view key, std::string_view where, double* out,
                 Need need = Need::kOptional);
Status GetIntList(const Json& obj, std::string_view key, std::string_view where, size_t max_len,
                  std::vector<int64_t>* out);
Status GetUintList(const Json& obj, std::string_view key, std::string_view where, size_t max_len,
                   std::vector<uint64_t>* out);
Status GetStringList(const Json& obj, std::string_view key, std::string_view where,
                     std::vector<std::string>* out);
// A descriptor dtype ("bfloat16", "float8e4", ...: isa::DtypeFromNeffName).
Status GetDtype(const Json& obj, std::string_view key, std::string_view where, isa::Dtype* out);

}  // namespace trnsim::neff
