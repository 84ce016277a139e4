// .npy constants: versions 1.0/2.0/3.0, little-endian dtypes, C order, exact data size.
#include "runtime/neff/npy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace trnsim::neff {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A .npy of `major` with the literal header `dict` (padded) and `data`.
std::vector<uint8_t> Npy(uint8_t major, std::string dict, const std::vector<uint8_t>& data) {
  size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + dict.size() + 1) % 64 != 0) dict += ' ';
  dict += '\n';
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', major, 0};
  uint32_t len = static_cast<uint32_t>(dict.size());
  for (size_t i = 0; i < (major == 1 ? 2u : 4u); ++i) out.push_back((len >> (8 * i)) & 0xff);
  out.insert(out.end(), dict.begin(), dict.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

Status Error(const std::vector<uint8_t>& file) { return ParseNpy(file, "sg00/c.npy").status(); }

TEST(Npy, ParsesAllThreeVersions) {
  std::vector<uint8_t> data(24, 7);
  for (uint8_t major : {1, 2, 3}) {
    auto file = Npy(major, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", data);
    StatusOr<NpyArray> a = ParseNpy(file, "x.npy");
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    EXPECT_EQ(a->descr, "<f4");
    EXPECT_EQ(a->item_bytes, 4u);
    EXPECT_THAT(a->shape, ElementsAre(2, 3));
    EXPECT_EQ(a->data_offset, file.size() - 24);
    EXPECT_EQ(a->data_bytes, 24u);
  }
}

TEST(Npy, KeysInAnyOrderDoubleQuotesScalarsAndEmptyArrays) {
  auto file = Npy(1, "{\"shape\": (), \"fortran_order\": False, \"descr\": \"|u1\"}", {42});
  StatusOr<NpyArray> a = ParseNpy(file, "x.npy");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_TRUE(a->shape.empty());
  EXPECT_EQ(a->data_bytes, 1u);
  auto empty = Npy(1, "{'descr': '<V2', 'fortran_order': False, 'shape': (0, 5)}", {});
  ASSERT_TRUE(ParseNpy(empty, "e.npy").ok());
  auto longs =
      Npy(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (1L,)}", std::vector<uint8_t>(8));
  EXPECT_TRUE(ParseNpy(longs, "l.npy").ok());
}

TEST(Npy, MakeNpyReadsBack) {
  std::vector<uint8_t> data = {1, 2, 3, 4, 5, 6};
  std::vector<uint8_t> file = MakeNpy("<i2", {3}, data);
  EXPECT_EQ(file.size() % 64, 6u);  // data starts on a 64-byte boundary
  StatusOr<NpyArray> a = ParseNpy(file, "m.npy");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->data_offset, 128u);  // the 56-character dict needs a second 64-byte line
  EXPECT_THAT(a->shape, ElementsAre(3));
  EXPECT_TRUE(ParseNpy(MakeNpy("|u1", {2, 0, 3}, {}), "z.npy").ok());
}

TEST(Npy, RejectsMalformedFiles) {
  const std::string ok_dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  std::vector<uint8_t> data(8);
  EXPECT_THAT(Error({1, 2, 3}).message(), HasSubstr("sg00/c.npy: .npy: missing the"));
  auto bad_version = Npy(1, ok_dict, data);
  bad_version[6] = 4;
  EXPECT_THAT(Error(bad_version).message(), HasSubstr("format version 4.0"));
  auto bad_minor = Npy(1, ok_dict, data);
  bad_minor[7] = 1;
  EXPECT_THAT(Error(bad_minor).message(), HasSubstr("format version 1.1"));
  auto long_header = Npy(1, ok_dict, data);
  long_header[8] = 0xff;
  long_header[9] = 0xff;
  EXPECT_THAT(Error(long_header).message(), HasSubstr("runs past"));
  auto v2_huge = Npy(2, ok_dict, data);
  v2_huge[11] = 0xff;
  EXPECT_THAT(Error(v2_huge).message(), HasSubstr("runs past"));
  EXPECT_THAT(Error(Npy(1, ok_dict, std::vector<uint8_t>(7))).message(),
              HasSubstr("describes 8 data bytes, the file has 7"));
  EXPECT_THAT(Error(Npy(1, ok_dict, std::vector<uint8_t>(9))).message(),
              HasSubstr("the file has 9"));
  EXPECT_EQ(Error(std::vector<uint8_t>{0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0}).code(),
            StatusCode::kInvalid);
}

TEST(Npy, RejectsHeadersTrnsimDoesNotRead) {
  std::vector<uint8_t> d8(8);
  auto err = [&](const std::string& dict) { return Error(Npy(1, dict, d8)).message(); };
  EXPECT_THAT(err("{'descr': '>f4', 'fortran_order': False, 'shape': (2,)}"),
              HasSubstr("big-endian"));
  EXPECT_THAT(err("{'descr': '=f4', 'fortran_order': False, 'shape': (2,)}"),
              HasSubstr("byte order"));
  EXPECT_THAT(err("{'descr': '<f4', 'fortran_order': True, 'shape': (2,)}"), HasSubstr("C order"));
  EXPECT_THAT(err("{'descr': '|O8', 'fortran_order': False, 'shape': (1,)}"), HasSubstr("kind"));
  EXPECT_THAT(err("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}"),
              HasSubstr("structured"));
  EXPECT_THAT(err("{'descr': '<f0', 'fortran_order': False, 'shape': (2,)}"),
              HasSubstr("item size"));
  EXPECT_THAT(err("{'descr': '<f4', 'shape': (2,)}"), HasSubstr("needs"));
  EXPECT_THAT(err("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}"),
              HasSubstr("repeated"));
  EXPECT_THAT(err("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}"),
              HasSubstr("unexpected"));
  EXPECT_THAT(err("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}"),
              HasSubstr("integers"));
  EXPECT_THAT(err("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} junk"),
              HasSubstr("after the closing"));
  EXPECT_THAT(err("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}"),
              HasSubstr("overflows"));
  EXPECT_THAT(err("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296,)}"),
              HasSubstr("overflows"));
  EXPECT_THAT(err("{'descr': '<f4"), HasSubstr("unterminated"));
  std::string rank33 = "{'descr': '|u1', 'fortran_order': False, 'shape': (";
  for (int i = 0; i < 33; ++i) rank33 += "1,";
  EXPECT_THAT(err(rank33 + ")}"), HasSubstr("dimensions"));
}

TEST(Npy, FileNameRule) {
  EXPECT_TRUE(IsNpyFileName("w.npy"));
  EXPECT_TRUE(IsNpyFileName("a/b.npy"));
  EXPECT_FALSE(IsNpyFileName("w.NPY"));
  EXPECT_FALSE(IsNpyFileName("npy"));
  EXPECT_FALSE(IsNpyFileName("w.bin"));
}

}  // namespace
}  // namespace trnsim::neff
