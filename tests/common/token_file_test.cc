// Token files as neurond (--token-file) and clients (TRNSIM_TOKEN_FILE) read them: the first
// line without trailing whitespace; a missing or empty file is NRT_INVALID naming the path and
// the reason.
#include "common/token_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace trnsim {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class TokenFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/trnsim-token-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  std::filesystem::path dir_;
};

TEST_F(TokenFileTest, TheTokenIsTheFirstLineWithoutTrailingWhitespace) {
  EXPECT_EQ(*ReadTokenFile(Write("plain", "s3cret")), "s3cret");
  EXPECT_EQ(*ReadTokenFile(Write("newline", "s3cret\n")), "s3cret");
  EXPECT_EQ(*ReadTokenFile(Write("crlf", "s3cret \t\r\nsecond line\n")), "s3cret");
  // Leading and inner spaces are part of the token.
  EXPECT_EQ(*ReadTokenFile(Write("inner", " a b\n")), " a b");
}

TEST_F(TokenFileTest, AMissingFileNamesThePathAndTheReason) {
  const std::string path = (dir_ / "missing").string();
  StatusOr<std::string> token = ReadTokenFile(path);
  ASSERT_FALSE(token.ok());
  EXPECT_EQ(token.status().code(), StatusCode::kInvalid);
  EXPECT_THAT(token.status().message(), HasSubstr(path));
  EXPECT_THAT(token.status().message(), HasSubstr("No such file or directory"));
}

TEST_F(TokenFileTest, AnEmptyFirstLineIsRefused) {
  for (const char* text : {"", "\n", "  \t\r\nsecond\n"}) {
    const std::string path = Write("empty", text);
    StatusOr<std::string> token = ReadTokenFile(path);
    ASSERT_FALSE(token.ok()) << "'" << text << "'";
    EXPECT_EQ(token.status().code(), StatusCode::kInvalid);
    EXPECT_THAT(token.status().message(), HasSubstr("is empty"));
  }
}

// Issue 20 F6: neurond --token-file naming a directory said the file "is empty" (how reading a
// directory stream fails depends on the C++ library); it says what the path is.
TEST_F(TokenFileTest, ADirectoryIsNotAToken) {
  for (const std::string& path : {dir_.string(), dir_.string() + "/"}) {
    StatusOr<std::string> token = ReadTokenFile(path);
    ASSERT_FALSE(token.ok());
    EXPECT_EQ(token.status().code(), StatusCode::kInvalid);
    EXPECT_EQ(token.status().message(),
              "cannot read the token file " + path +
                  ": it is a directory, not a file (give the file inside it)");
    EXPECT_THAT(token.status().message(), Not(HasSubstr("empty")));
  }
}

}  // namespace
}  // namespace trnsim
