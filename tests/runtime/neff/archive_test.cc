// The tar payload: plain and gzip'd, path rules, entry types, limits.
#include "runtime/neff/archive.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/neff/limits.h"
#include "tests/runtime/neff/neff_test_util.h"

namespace trnsim::neff {
namespace {

using ::testing::HasSubstr;
using namespace testing;  // NOLINT: the builders

constexpr uint64_t kBudget = 1 << 20;

StatusOr<std::vector<ArchiveMember>> Read(const std::vector<TarMember>& members, bool gzip = false,
                                          uint64_t budget = kBudget) {
  std::vector<uint8_t> tar = Tar(members);
  return ReadArchive(gzip ? Gzip(tar) : tar, budget);
}

std::string Message(const std::vector<TarMember>& members) {
  return Read(members).status().message();
}

TEST(NeffArchive, ReadsPlainAndGzipTarsInOrder) {
  std::vector<TarMember> members = {{"b.txt", "bee"}, {"dir/", "", '5'}, {"a/x.bin", "xx"}};
  for (bool gzip : {false, true}) {
    StatusOr<std::vector<ArchiveMember>> m = Read(members, gzip);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    ASSERT_EQ(m->size(), 2u);  // the directory carries nothing
    EXPECT_EQ((*m)[0].path, "b.txt");
    EXPECT_EQ(std::string((*m)[0].data.begin(), (*m)[0].data.end()), "bee");
    EXPECT_EQ((*m)[1].path, "a/x.bin");
  }
}

TEST(NeffArchive, WriteArchiveIsAGzipPaxTarThatReadsBack) {
  std::vector<uint8_t> one = {1}, empty;
  std::string long_path(300, 'p');
  StatusOr<std::vector<uint8_t>> tar = WriteArchive(
      {ArchiveEntry{"x/one", one}, ArchiveEntry{"empty", empty}, ArchiveEntry{long_path, one}});
  ASSERT_TRUE(tar.ok());
  ASSERT_GE(tar->size(), 2u);
  EXPECT_EQ((*tar)[0], 0x1f);  // gzip magic
  EXPECT_EQ((*tar)[1], 0x8b);
  StatusOr<std::vector<ArchiveMember>> m = ReadArchive(*tar, kBudget);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_EQ(m->size(), 3u);
  EXPECT_EQ((*m)[0].path, "x/one");
  EXPECT_TRUE((*m)[1].data.empty());
  EXPECT_EQ((*m)[2].path, long_path);
}

TEST(NeffArchive, NormalisesPaths) {
  StatusOr<std::vector<ArchiveMember>> m = Read({{"./a//b/./c", "x"}, {"./top", "y"}});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ((*m)[0].path, "a/b/c");
  EXPECT_EQ((*m)[1].path, "top");
  EXPECT_EQ(*NormalizeMemberPath("sg00/", "t"), "sg00");
}

TEST(NeffArchive, RejectsUnsafePaths) {
  EXPECT_THAT(Message({{"/etc/passwd", "x"}}), HasSubstr("absolute path '/etc/passwd'"));
  EXPECT_THAT(Message({{"sg00/../../x", "x"}}), HasSubstr("'..' component"));
  EXPECT_THAT(Message({{"..", "", '5'}}), HasSubstr("'..' component"));
  EXPECT_THAT(Message({{".", "x"}}), HasSubstr("names no file"));
  EXPECT_THAT(Message({{"/abs/", "", '5'}}), HasSubstr("absolute path"));
  EXPECT_THAT(NormalizeMemberPath(std::string(kMaxPathBytes + 1, 'a'), "t").status().message(),
              HasSubstr("longer than"));
}

TEST(NeffArchive, RejectsLinksDevicesAndFifos) {
  EXPECT_THAT(Message({{"l", "", '2', "/etc/passwd"}}), HasSubstr("symbolic link"));
  EXPECT_THAT(Message({{"a", "x"}, {"h", "", '1', "a"}}), HasSubstr("hard link"));
  EXPECT_THAT(Message({{"c", "", '3'}}), HasSubstr("character device"));
  EXPECT_THAT(Message({{"b", "", '4'}}), HasSubstr("block device"));
  EXPECT_THAT(Message({{"f", "", '6'}}), HasSubstr("FIFO"));
}

TEST(NeffArchive, RejectsDuplicatesAndFilesUsedAsDirectories) {
  EXPECT_THAT(Message({{"a", "1"}, {"./a", "2"}}), HasSubstr("duplicate tar member 'a'"));
  EXPECT_THAT(Message({{"sg00", "1"}, {"sg00/def.json", "2"}}),
              HasSubstr("'sg00' is a file, but 'sg00/def.json' needs it as a directory"));
  EXPECT_THAT(Message({{"a/b/c", "1"}, {"a/b", "2"}}), HasSubstr("'a/b' is a file"));
}

TEST(NeffArchive, RejectsGarbageEmptyAndTruncatedArchives) {
  EXPECT_THAT(ReadArchive({}, kBudget).status().message(), HasSubstr("empty"));
  std::vector<uint8_t> garbage(4096, 0xa5);
  EXPECT_THAT(ReadArchive(garbage, kBudget).status().message(), HasSubstr("tar"));
  std::vector<uint8_t> tar = Tar({{"a", std::string(3000, 'x')}});
  for (size_t cut : {size_t{100}, size_t{600}, size_t{2000}}) {
    std::vector<uint8_t> part(tar.begin(), tar.begin() + cut);
    EXPECT_EQ(ReadArchive(part, kBudget).status().code(), StatusCode::kInvalid) << cut;
    std::vector<uint8_t> gz = Gzip(tar);
    std::vector<uint8_t> gpart(gz.begin(), gz.begin() + std::min(cut / 20, gz.size() - 1));
    EXPECT_EQ(ReadArchive(gpart, kBudget).status().code(), StatusCode::kInvalid) << cut;
  }
  // A header whose size claims more than the data that follows.
  EXPECT_EQ(Read({{"a", "abc", '0', "", 100000}}).status().code(), StatusCode::kInvalid);
  // A bad header checksum.
  tar = Tar({{"a", "abc"}});
  tar[0] = 'b';
  EXPECT_EQ(ReadArchive(tar, kBudget).status().code(), StatusCode::kInvalid);
}

TEST(NeffArchive, AtMostMaxMembersEntries) {
  std::vector<TarMember> members;
  for (size_t i = 0; i <= kMaxMembers; ++i)
    members.push_back({"d" + std::to_string(i) + "/", "", '5'});
  std::string message = Read(members, true).status().message();
  EXPECT_THAT(message, HasSubstr("more than 65536 tar entries"));
  members.pop_back();
  EXPECT_TRUE(Read(members, true).ok());
}

TEST(NeffArchive, DeclaredSizesMayNotPassTheBudget) {
  std::vector<TarMember> members = {{"a", std::string(600, 'a')}, {"b", std::string(600, 'b')}};
  EXPECT_TRUE(Read(members, false, 1200).ok());
  std::string message = Read(members, false, 1199).status().message();
  EXPECT_THAT(message, HasSubstr("tar member 'b' (600 bytes) takes the decompressed payload past "
                                 "1199 bytes"));
  // Refused from the header: the data need not even be there.
  EXPECT_THAT(Read({{"big", "", '0', "", int64_t{1} << 40}}).status().message(),
              HasSubstr("past 1048576 bytes"));
}

}  // namespace
}  // namespace trnsim::neff
