#include "runtime/neff/json_util.h"

#include <cctype>
#include <cmath>
#include <limits>
#include <set>

#include "runtime/neff/limits.h"

namespace trnsim::neff {
namespace {

// Builds the DOM through nlohmann's SAX interface instead of its DOM parser: insertion into an
// ordered_json object is then O(1) (the DOM parser's operator[] searches the object, which is
// quadratic for a def.json with many variables), duplicate keys are detected, and the nesting
// depth is bounded.
class DomBuilder final : public nlohmann::json_sax<Json> {
 public:
  bool null() override { return Put(Json(nullptr)); }
  bool boolean(bool v) override { return Put(Json(v)); }
  bool number_integer(number_integer_t v) override { return Put(Json(v)); }
  bool number_unsigned(number_unsigned_t v) override { return Put(Json(v)); }
  bool number_float(number_float_t v, const string_t&) override { return Put(Json(v)); }
  bool string(string_t& v) override { return Put(Json(std::move(v))); }
  bool binary(binary_t&) override {
    error_ = "binary values are not JSON";
    return false;
  }
  bool start_object(std::size_t) override { return Open(Json::object()); }
  bool key(string_t& k) override {
    Frame& top = stack_.back();
    if (!top.keys.insert(k).second) {
      error_ = "duplicate key " + Shown(k) + " in one object";
      return false;
    }
    auto& container =
        static_cast<Json::object_t::Container&>(top.value->get_ref<Json::object_t&>());
    container.emplace_back(std::move(k), nullptr);
    pending_ = &container.back().second;
    return true;
  }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t) override { return Open(Json::array()); }
  bool end_array() override { return Close(); }
  bool parse_error(std::size_t, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    error_ = ex.what();
    return false;
  }

  Json& root() { return root_; }
  const std::string& error() const { return error_; }

 private:
  struct Frame {
    Json* value;
    std::set<std::string> keys;  // ordered: no hash-collision worst case on hostile keys
  };

  static std::string Shown(const std::string& k) {
    return "\"" + (k.size() > 100 ? k.substr(0, 100) + "..." : k) + "\"";
  }

  // Stores `v` where the parser is: the root, the next array element, or the pending key's
  // value. Returns where it went (only containers use it). Pointers into a container stay
  // valid while it is open: only the innermost open container grows.
  Json* Place(Json v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    Json* top = stack_.back().value;
    if (top->is_array()) {
      top->get_ref<Json::array_t&>().push_back(std::move(v));
      return &top->get_ref<Json::array_t&>().back();
    }
    *pending_ = std::move(v);
    return pending_;
  }
  bool Put(Json v) {
    Place(std::move(v));
    return true;
  }
  bool Open(Json v) {
    if (stack_.size() >= kMaxJsonDepth) {
      error_ = "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels";
      return false;
    }
    Json* placed = Place(std::move(v));
    stack_.push_back(Frame{placed, {}});
    return true;
  }
  bool Close() {
    stack_.pop_back();
    return true;
  }

  Json root_;
  std::vector<Frame> stack_;
  Json* pending_ = nullptr;
  std::string error_;
};

bool IsIdentifier(std::string_view key) {
  if (key.empty()) return false;
  for (char c : key) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
  }
  return true;
}

}  // namespace

StatusOr<Json> ParseJson(std::string_view file, std::span<const uint8_t> bytes) {
  if (bytes.size() > kMaxJsonBytes) {
    return InvalidError(std::string(file) + ": " + std::to_string(bytes.size()) +
                        " bytes of JSON; at most " + std::to_string(kMaxJsonBytes) + " are read");
  }
  DomBuilder builder;
  bool ok = false;
  try {
    ok = Json::sax_parse(bytes.begin(), bytes.end(), &builder);
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kFailHostMemAlloc, std::string(file) + ": out of memory");
  } catch (const std::exception& e) {
    return InvalidError(std::string(file) + ": malformed JSON: " + e.what());
  }
  if (!ok) {
    return InvalidError(std::string(file) + ": malformed JSON: " +
                        (builder.error().empty() ? "parse failed" : builder.error()));
  }
  return std::move(builder.root());
}

StatusOr<std::vector<uint8_t>> DumpJson(std::string_view file, const Json& json) {
  try {
    std::string text = json.dump(1, ' ', false, Json::error_handler_t::strict);
    text += '\n';
    return std::vector<uint8_t>(text.begin(), text.end());
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kFailHostMemAlloc, std::string(file) + ": out of memory");
  } catch (const std::exception& e) {
    return InvalidError(std::string(file) + ": cannot be written as JSON: " + e.what());
  }
}

void AppendField(Json* obj, std::string key, Json value) {
  if (!obj->is_object()) *obj = Json::object();
  static_cast<Json::object_t::Container&>(obj->get_ref<Json::object_t&>())
      .emplace_back(std::move(key), std::move(value));
}

std::string_view JsonTypeName(const Json& v) {
  switch (v.type()) {
    case Json::value_t::object:
      return "object";
    case Json::value_t::array:
      return "array";
    case Json::value_t::string:
      return "string";
    case Json::value_t::boolean:
      return "boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return "integer";
    case Json::value_t::number_float:
      return "number";
    case Json::value_t::null:
      return "null";
    default:
      return "binary";
  }
}

std::string FieldPath(std::string_view where, std::string_view key) {
  // `where` is a member file ("sg00/def.json") or a path inside one ("sg00/def.json: var");
  // a file is followed by ": ", a path by ".".
  std::string out(where);
  out += where.find(": ") == std::string_view::npos ? ": " : ".";
  if (IsIdentifier(key)) {
    out += key;
  } else {
    out += '"';
    out += key.size() > 100 ? std::string(key.substr(0, 100)) + "..." : std::string(key);
    out += '"';
  }
  return out;
}

Status RequireObject(const Json& value, std::string_view where) {
  if (value.is_object()) return Status::Ok();
  return InvalidError(std::string(where) + ": expected an object, got " +
                      std::string(JsonTypeName(value)));
}

const Json* FindField(const Json& obj, std::string_view key) {
  if (!obj.is_object()) return nullptr;
  for (const auto& [k, v] : obj.items()) {
    if (k == key) return &v;
  }
  return nullptr;
}

namespace {
Status TypeError(std::string_view what, std::string_view expected, const Json& got) {
  return InvalidError(std::string(what) + ": expected " + std::string(expected) + ", got " +
                      std::string(JsonTypeName(got)));
}
}  // namespace

StatusOr<std::string> AsString(const Json& v, std::string_view what) {
  if (!v.is_string()) return TypeError(what, "a string", v);
  return v.get_ref<const std::string&>();
}

StatusOr<int64_t> AsInt(const Json& v, std::string_view what) {
  if (v.is_number_unsigned()) {
    uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return InvalidError(std::string(what) + ": " + std::to_string(u) +
                          " does not fit a signed 64-bit integer");
    }
    return static_cast<int64_t>(u);
  }
  if (v.is_number_integer()) return v.get<int64_t>();
  return TypeError(what, "an integer", v);
}

StatusOr<uint64_t> AsUint(const Json& v, std::string_view what, uint64_t max) {
  uint64_t u = 0;
  if (v.is_number_unsigned()) {
    u = v.get<uint64_t>();
  } else if (v.is_number_integer()) {
    int64_t i = v.get<int64_t>();
    if (i < 0) {
      return InvalidError(std::string(what) + ": " + std::to_string(i) + " is negative");
    }
    u = static_cast<uint64_t>(i);
  } else {
    return TypeError(what, "an unsigned integer", v);
  }
  if (u > max) {
    return InvalidError(std::string(what) + ": " + std::to_string(u) + " is larger than " +
                        std::to_string(max));
  }
  return u;
}

StatusOr<double> AsNumber(const Json& v, std::string_view what) {
  if (!v.is_number()) return TypeError(what, "a number", v);
  double d = v.get<double>();
  if (!std::isfinite(d)) return InvalidError(std::string(what) + ": not a finite number");
  return d;
}

#define TRNSIM_FIELD_OR_ABSENT(obj, key, where, need)                                            \
  const Json* v = FindField(obj, key);                                                           \
  if (v == nullptr) {                                                                            \
    if (need == Need::kRequired) {                                                               \
      return InvalidError(std::string(where) + ": missing required field '" + std::string(key) + \
                          "'");                                                                  \
    }                                                                                            \
    return Status::Ok();                                                                         \
  }                                                                                              \
  const std::string what = FieldPath(where, key)

Status GetString(const Json& obj, std::string_view key, std::string_view where, std::string* out,
                 Need need) {
  TRNSIM_FIELD_OR_ABSENT(obj, key, where, need);
  TRNSIM_ASSIGN_OR_RETURN(*out, AsString(*v, what));
  return Status::Ok();
}

Status GetBool(const Json& obj, std::string_view key, std::string_view where, bool* out,
               Need need) {
  TRNSIM_FIELD_OR_ABSENT(obj, key, where, need);
  if (!v->is_boolean()) return TypeError(what, "true or false", *v);
  *out = v->get<bool>();
  return Status::Ok();
}

Status GetInt(const Json& obj, std::string_view key, std::string_view where, int64_t* out,
              Need need) {
  TRNSIM_FIELD_OR_ABSENT(obj, key, where, need);
  TRNSIM_ASSIGN_OR_RETURN(*out, AsInt(*v, what));
  return Status::Ok();
}

Status GetOptionalInt(const Json& obj, std::string_view key, std::string_view where,
                      std::optional<int64_t>* out) {
  TRNSIM_FIELD_OR_ABSENT(obj, key, where, Need::kOptional);
  TRNSIM_ASSIGN_OR_RETURN(*out, AsInt(*v, what));
  return Status::Ok();
}

Status GetUint(const Json& obj, std::string_view key, std::string_view where, uint64_t max,
               uint64_t* out, Need need) {
  TRNSIM_FIELD_OR_ABSENT(obj, key, where, need);
  TRNSIM_ASSIGN_OR_RETURN(*out, AsUint(*v, what, max));
  return Status::Ok();
}

Status GetUint32(const Json& obj, std::string_view key, std::string_view where, uint32_t* out,
                 Need need) {
  TRNSIM_FIELD_OR_ABSENT(obj, key, where, need);
  TRNSIM_ASSIGN_OR_RETURN(uint64_t u, AsUint(*v, what, std::numeric_limits<uint32_t>::max()));
  *out = static_cast<uint32_t>(u);
  return Status::Ok();
}

Status GetNumber(const Json& obj, std::string_view key, std::string_view where, double* out,
                 Need need) {
  TRNSIM_FIELD_OR_ABSENT(obj, key, where, need);
  TRNSIM_ASSIGN_OR_RETURN(*out, AsNumber(*v, what));
  return Status::Ok();
}

namespace {
Status CheckList(const Json& v, std::string_view what, size_t max_len) {
  if (!v.is_array()) return TypeError(what, "an array", v);
  if (v.size() > max_len) {
    return InvalidError(std::string(what) + ": " + std::to_string(v.size()) + " entries; at most " +
                        std::to_string(max_len) + " are allowed");
  }
  return Status::Ok();
}
std::string Element(const std::string& what, size_t i) {
  return what + "[" + std::to_string(i) + "]";
}
}  // namespace

Status GetIntList(const Json& obj, std::string_view key, std::string_view where, size_t max_len,
                  std::vector<int64_t>* out) {
  TRNSIM_FIELD_OR_ABSENT(obj, key, where, Need::kOptional);
  TRNSIM_RETURN_IF_ERROR(CheckList(*v, what, max_len));
  std::vector<int64_t> list;
  list.reserve(v->size());
  for (size_t i = 0; i < v->size(); ++i) {
    TRNSIM_ASSIGN_OR_RETURN(int64_t x, AsInt((*v)[i], Element(what, i)));
    list.push_back(x);
  }
  *out = std::move(list);
  return Status::Ok();
}

Status GetUintList(const Json& obj, std::string_view key, std::string_view where, size_t max_len,
                   std::vector<uint64_t>* out) {
  TRNSIM_FIELD_OR_ABSENT(obj, key, where, Need::kOptional);
  TRNSIM_RETURN_IF_ERROR(CheckList(*v, what, max_len));
  std::vector<uint64_t> list;
  list.reserve(v->size());
  for (size_t i = 0; i < v->size(); ++i) {
    TRNSIM_ASSIGN_OR_RETURN(
        uint64_t x, AsUint((*v)[i], Element(what, i), std::numeric_limits<uint64_t>::max()));
    list.push_back(x);
  }
  *out = std::move(list);
  return Status::Ok();
}

Status GetStringList(const Json& obj, std::string_view key, std::string_view where,
                     std::vector<std::string>* out) {
  TRNSIM_FIELD_OR_ABSENT(obj, key, where, Need::kOptional);
  TRNSIM_RETURN_IF_ERROR(CheckList(*v, what, std::numeric_limits<size_t>::max()));
  std::vector<std::string> list;
  list.reserve(v->size());
  for (size_t i = 0; i < v->size(); ++i) {
    TRNSIM_ASSIGN_OR_RETURN(std::string s, AsString((*v)[i], Element(what, i)));
    list.push_back(std::move(s));
  }
  *out = std::move(list);
  return Status::Ok();
}

Status GetDtype(const Json& obj, std::string_view key, std::string_view where, isa::Dtype* out) {
  TRNSIM_FIELD_OR_ABSENT(obj, key, where, Need::kOptional);
  TRNSIM_ASSIGN_OR_RETURN(std::string name, AsString(*v, what));
  std::optional<isa::Dtype> dtype = isa::DtypeFromNeffName(name);
  if (!dtype) {
    return InvalidError(what + ": unknown dtype \"" + name.substr(0, 64) +
                        "\" (expected float8e3, float8e4, float8e5, float16, float32, float32r, "
                        "bfloat16, uint8, uint16, uint32, uint64, int8, int16, int32 or int64)");
  }
  *out = *dtype;
  return Status::Ok();
}

#undef TRNSIM_FIELD_OR_ABSENT

}  // namespace trnsim::neff
