// The 1024-byte header: every field at its documented offset, and the checks on it.
#include "runtime/neff/header.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

namespace trnsim::neff {
namespace {

using ::testing::HasSubstr;

uint64_t U64At(const std::array<uint8_t, kHeaderSize>& b, size_t off) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | b[off + i];
  return v;
}
uint32_t U32At(const std::array<uint8_t, kHeaderSize>& b, size_t off) {
  return static_cast<uint32_t>(U64At(b, off) & 0xffffffffu);
}

Header Sample() {
  Header h;
  h.pkg_version = 1;
  h.data_size = 0x0102030405060708ull;
  h.neff_version_major = 2;
  h.neff_version_minor = 7;
  h.neff_build_version = "build-1.2.3";
  h.num_tpb = 0x11223344;
  for (size_t i = 0; i < 32; ++i) h.hash[i] = static_cast<uint8_t>(0xa0 + i);
  for (size_t i = 0; i < 16; ++i) h.uuid[i] = static_cast<uint8_t>(0x10 + i);
  h.name = "model-name";
  h.requested_tpb_count = 0x55667788;
  for (size_t i = 0; i < 64; ++i) h.tpb_per_node[i] = static_cast<uint8_t>(i);
  h.feature_bits = 0xfeedfacecafebeefull;
  h.lnc_size = 2;
  return h;
}

TEST(NeffHeader, EveryFieldAtItsDocumentedOffset) {
  std::array<uint8_t, kHeaderSize> b = EncodeHeader(Sample());
  EXPECT_EQ(U64At(b, 0), 1u);                      // pkg_version
  EXPECT_EQ(U64At(b, 8), 1024u);                   // header_size
  EXPECT_EQ(U64At(b, 16), 0x0102030405060708ull);  // data_size
  EXPECT_EQ(U64At(b, 24), 2u);                     // neff_version_major
  EXPECT_EQ(U64At(b, 32), 7u);                     // neff_version_minor
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(&b[40])), "build-1.2.3");
  EXPECT_EQ(U32At(b, 168), 0x11223344u);  // num_tpb
  EXPECT_EQ(b[172], 0xa0);                // hash[0]
  EXPECT_EQ(b[203], 0xa0 + 31);           // hash[31]
  EXPECT_EQ(b[204], 0x10);                // uuid[0]
  EXPECT_EQ(b[219], 0x1f);                // uuid[15]
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(&b[220])), "model-name");
  EXPECT_EQ(U32At(b, 476), 0x55667788u);            // requested_tpb_count
  EXPECT_EQ(b[480], 0);                             // tpb_per_node[0]
  EXPECT_EQ(b[543], 63);                            // tpb_per_node[63]
  EXPECT_EQ(U64At(b, 544), 0xfeedfacecafebeefull);  // feature_bits
  EXPECT_EQ(U32At(b, 552), 2u);                     // lnc_size
  for (size_t i = 556; i < kHeaderSize; ++i) EXPECT_EQ(b[i], 0) << "pad byte " << i;
}

TEST(NeffHeader, DecodeInvertsEncode) {
  std::array<uint8_t, kHeaderSize> b = EncodeHeader(Sample());
  StatusOr<Header> h = DecodeHeader(b);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_TRUE(*h == Sample());
}

TEST(NeffHeader, ShorterThanTheHeaderIsInvalid) {
  std::array<uint8_t, kHeaderSize> b = EncodeHeader(Sample());
  for (size_t n : {size_t{0}, size_t{1}, size_t{8}, size_t{1023}}) {
    StatusOr<Header> h = DecodeHeader(std::span<const uint8_t>(b.data(), n));
    EXPECT_EQ(h.status().code(), StatusCode::kInvalid) << n;
    EXPECT_THAT(h.status().message(), HasSubstr("truncated"));
  }
}

TEST(NeffHeader, HeaderSizeMustBe1024) {
  Header s = Sample();
  s.header_size = 512;
  StatusOr<Header> h = DecodeHeader(EncodeHeader(s));
  EXPECT_EQ(h.status().code(), StatusCode::kInvalid);
  EXPECT_THAT(h.status().message(), HasSubstr("header_size"));
}

TEST(NeffHeader, StringsMustBeNulTerminatedWithinTheirField) {
  std::array<uint8_t, kHeaderSize> b = EncodeHeader(Sample());
  std::memset(&b[40], 'x', 128);
  StatusOr<Header> h = DecodeHeader(b);
  EXPECT_EQ(h.status().code(), StatusCode::kInvalid);
  EXPECT_THAT(h.status().message(), HasSubstr("neff_build_version (offset 40"));

  b = EncodeHeader(Sample());
  std::memset(&b[220], 'y', 256);
  h = DecodeHeader(b);
  EXPECT_EQ(h.status().code(), StatusCode::kInvalid);
  EXPECT_THAT(h.status().message(), HasSubstr("name (offset 220"));

  // Bytes after the terminator are ignored.
  b = EncodeHeader(Sample());
  b[220 + 200] = 'z';
  h = DecodeHeader(b);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->name, "model-name");
}

TEST(NeffHeader, NewerMajorVersionIsUnsupportedWithAwsMessage) {
  Header s = Sample();
  s.neff_version_major = 3;
  s.neff_version_minor = 0;
  StatusOr<Header> h = DecodeHeader(EncodeHeader(s));
  EXPECT_EQ(h.status().code(), StatusCode::kUnsupportedNeffVersion);
  EXPECT_EQ(h.status().message(), "NEFF version mismatch supported: 2.x received: 3.0");
  s.neff_version_major = 0;
  s.neff_version_minor = 9;
  EXPECT_EQ(DecodeHeader(EncodeHeader(s)).status().message(),
            "NEFF version mismatch supported: 2.x received: 0.9");
  s.neff_version_major = 1;
  EXPECT_TRUE(DecodeHeader(EncodeHeader(s)).ok());
}

TEST(NeffHeader, VersionIsCheckedBeforeEverythingButHeaderSize) {
  std::array<uint8_t, kHeaderSize> b = EncodeHeader(Sample());
  b[24] = 9;                      // major 9
  std::memset(&b[40], 'x', 128);  // and an unterminated string
  EXPECT_EQ(DecodeHeader(b).status().code(), StatusCode::kUnsupportedNeffVersion);
}

TEST(NeffHeader, UnknownPackageVersionIsUnsupported) {
  Header s = Sample();
  s.pkg_version = 3;
  StatusOr<Header> h = DecodeHeader(EncodeHeader(s));
  EXPECT_EQ(h.status().code(), StatusCode::kUnsupportedNeffVersion);
  EXPECT_THAT(h.status().message(), HasSubstr("pkg_version"));
}

TEST(NeffHeader, LncSizeIsZeroOneOrTwo) {
  Header s = Sample();
  for (uint32_t lnc : {0u, 1u, 2u}) {
    s.lnc_size = lnc;
    EXPECT_TRUE(DecodeHeader(EncodeHeader(s)).ok()) << lnc;
  }
  s.lnc_size = 4;
  StatusOr<Header> h = DecodeHeader(EncodeHeader(s));
  EXPECT_EQ(h.status().code(), StatusCode::kInvalid);
  EXPECT_THAT(h.status().message(), HasSubstr("lnc_size (offset 552)"));
}

TEST(NeffHeader, ValidateRejectsStringsThatDoNotFit) {
  Header s = Sample();
  s.name = std::string(256, 'n');
  EXPECT_THAT(ValidateHeader(s).message(), HasSubstr("name is 256 bytes"));
  s = Sample();
  s.neff_build_version = std::string("a\0b", 3);
  EXPECT_THAT(ValidateHeader(s).message(), HasSubstr("NUL"));
}

}  // namespace
}  // namespace trnsim::neff
