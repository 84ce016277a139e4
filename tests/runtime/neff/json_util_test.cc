// JSON parsing and typed field access.
#include "runtime/neff/json_util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/mman.h>

#include "runtime/neff/limits.h"
#include "tests/runtime/neff/neff_test_util.h"

namespace trnsim::neff {
namespace {

using testing::Bytes;
using ::testing::HasSubstr;

StatusOr<Json> Parse(std::string_view text) { return ParseJson("f.json", Bytes(text)); }

TEST(NeffJson, ParsesAndKeepsKeyOrder) {
  StatusOr<Json> j = Parse(R"({"z": 1, "a": [true, null, 1.5, "s"], "m": {"k": -3}})");
  ASSERT_TRUE(j.ok()) << j.status().ToString();
  std::vector<std::string> keys;
  for (const auto& [k, v] : j->items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"z", "a", "m"}));
  EXPECT_EQ((*j)["m"]["k"].get<int64_t>(), -3);
  EXPECT_EQ((*j)["a"][2].get<double>(), 1.5);
}

TEST(NeffJson, ManyKeysParseQuickly) {
  std::string text = "{";
  for (int i = 0; i < 200000; ++i) text += (i ? ",\"v" : "\"v") + std::to_string(i) + "\": 0";
  text += "}";
  StatusOr<Json> j = Parse(text);
  ASSERT_TRUE(j.ok());
  EXPECT_EQ(j->size(), 200000u);
}

TEST(NeffJson, RejectsMalformedDuplicateAndDeepJson) {
  EXPECT_THAT(Parse("{\"a\": ").status().message(), HasSubstr("f.json: malformed JSON"));
  EXPECT_THAT(Parse("{\"a\": 1} x").status().message(), HasSubstr("malformed JSON"));
  EXPECT_THAT(Parse("").status().message(), HasSubstr("malformed JSON"));
  EXPECT_THAT(Parse("{\"a\": \"\xff\"}").status().message(), HasSubstr("malformed JSON"));
  EXPECT_THAT(Parse("[1e999]").status().message(), HasSubstr("malformed JSON"));
  EXPECT_THAT(Parse(R"({"a": 1, "b": {"c": 1, "c": 2}})").status().message(),
              HasSubstr("duplicate key \"c\""));
  EXPECT_TRUE(Parse(R"({"c": 1, "b": {"c": 2}})").ok());  // same key, different objects
  std::string deep(kMaxJsonDepth, '[');
  deep += std::string(kMaxJsonDepth, ']');
  EXPECT_TRUE(Parse(deep).ok());
  std::string deeper(kMaxJsonDepth + 1, '[');
  deeper += std::string(kMaxJsonDepth + 1, ']');
  EXPECT_THAT(Parse(deeper).status().message(), HasSubstr("nested deeper than 64"));
  std::string very_deep(1000000, '[');
  EXPECT_EQ(Parse(very_deep).status().code(), StatusCode::kInvalid);
}

TEST(NeffJson, MembersPastTheSizeLimitAreRefusedUnread) {
  // Untouched anonymous pages: the limit is checked before a byte is read.
  size_t bytes = kMaxJsonBytes + 1;
  void* p = mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  StatusOr<Json> j = ParseJson("sg00/PE.json", std::span(static_cast<const uint8_t*>(p), bytes));
  EXPECT_THAT(j.status().message(), HasSubstr("sg00/PE.json: 268435457 bytes of JSON; at most"));
  munmap(p, bytes);
}

TEST(NeffJson, FieldReadersCheckTypesAndRanges) {
  Json obj = *Parse(R"({"s": "x", "i": -5, "u": 18446744073709551615, "f": 1.5, "b": true,
                       "l": [1, -2], "sl": ["a", 3], "big": 4294967296})");
  std::string s;
  EXPECT_TRUE(GetString(obj, "s", "w", &s).ok());
  EXPECT_EQ(s, "x");
  EXPECT_THAT(GetString(obj, "i", "w", &s).message(),
              HasSubstr("w: i: expected a string, got integer"));
  EXPECT_THAT(GetString(obj, "none", "w", &s, Need::kRequired).message(),
              HasSubstr("w: missing required field 'none'"));
  EXPECT_TRUE(GetString(obj, "none", "w", &s).ok());
  int64_t i = 0;
  EXPECT_TRUE(GetInt(obj, "i", "w", &i).ok());
  EXPECT_EQ(i, -5);
  EXPECT_THAT(GetInt(obj, "u", "w", &i).message(), HasSubstr("does not fit a signed"));
  EXPECT_THAT(GetInt(obj, "f", "w", &i).message(), HasSubstr("expected an integer, got number"));
  uint64_t u = 0;
  EXPECT_TRUE(GetUint(obj, "u", "w", UINT64_MAX, &u).ok());
  EXPECT_EQ(u, UINT64_MAX);
  EXPECT_THAT(GetUint(obj, "i", "w", UINT64_MAX, &u).message(), HasSubstr("-5 is negative"));
  EXPECT_THAT(GetUint(obj, "u", "w", 10, &u).message(), HasSubstr("is larger than 10"));
  uint32_t u32 = 0;
  EXPECT_THAT(GetUint32(obj, "big", "w", &u32).message(), HasSubstr("larger than 4294967295"));
  double d = 0;
  EXPECT_TRUE(GetNumber(obj, "i", "w", &d).ok());
  EXPECT_EQ(d, -5.0);
  EXPECT_THAT(GetNumber(obj, "s", "w", &d).message(), HasSubstr("expected a number"));
  bool b = false;
  EXPECT_TRUE(GetBool(obj, "b", "w", &b).ok());
  EXPECT_TRUE(b);
  EXPECT_THAT(GetBool(obj, "i", "w", &b).message(), HasSubstr("expected true or false"));
  std::vector<int64_t> l;
  EXPECT_TRUE(GetIntList(obj, "l", "w", 4, &l).ok());
  EXPECT_EQ(l, (std::vector<int64_t>{1, -2}));
  EXPECT_THAT(GetIntList(obj, "l", "w", 1, &l).message(), HasSubstr("2 entries; at most 1"));
  std::vector<uint64_t> ul;
  EXPECT_THAT(GetUintList(obj, "l", "w", 4, &ul).message(), HasSubstr("w: l[1]: -2 is negative"));
  std::vector<std::string> sl;
  EXPECT_THAT(GetStringList(obj, "sl", "w", &sl).message(),
              HasSubstr("w: sl[1]: expected a string"));
  isa::Dtype dt = isa::Dtype::kUint8;
  EXPECT_THAT(GetDtype(obj, "s", "w", &dt).message(), HasSubstr("unknown dtype \"x\""));
}

TEST(NeffJson, FieldPathQuotesOddKeys) {
  EXPECT_EQ(FieldPath("f: var", "size"), "f: var.size");
  EXPECT_EQ(FieldPath("f: var", "input:0"), "f: var.\"input:0\"");
}

TEST(NeffJson, DumpRefusesInvalidUtf8) {
  Json j = Json::object();
  j["k"] = std::string("\xff");
  EXPECT_EQ(DumpJson("x.json", j).status().code(), StatusCode::kInvalid);
  j["k"] = "ok";
  EXPECT_TRUE(DumpJson("x.json", j).ok());
}

}  // namespace
}  // namespace trnsim::neff
