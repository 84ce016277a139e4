// Bad .s input: one NRT_INVALID naming the file and line, never a crash.
#include <gtest/gtest.h>

#include "tools/kernel_builder/assembler.h"

namespace trnsim::kb {
namespace {

struct Case {
  const char* text;
  const char* expect;  // a substring of the message, after "bad.s:<line>: "
  int line;
};

constexpr char kEnd[] = "notify_end code=0";

class AssemblerErrorsTest : public ::testing::TestWithParam<Case> {};

TEST_P(AssemblerErrorsTest, NamesTheLine) {
  AssembleOptions o;
  o.source_name = "bad.s";
  StatusOr<neff::Neff> r = Assemble(GetParam().text, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
  std::string prefix =
      GetParam().line > 0 ? "bad.s:" + std::to_string(GetParam().line) + ": " : "bad.s: ";
  EXPECT_EQ(r.status().message().rfind(prefix, 0), 0u) << r.status().message();
  EXPECT_NE(r.status().message().find(GetParam().expect), std::string::npos)
      << r.status().message();
}

INSTANTIATE_TEST_SUITE_P(
    Cases, AssemblerErrorsTest,
    ::testing::Values(
        Case{".kernel k\n.foo 1\n", "unknown directive '.foo'", 2},
        Case{"nop\n", "outside an .engine section", 1},
        Case{".engine xyz\n", "not pe, act, dve, pool or sp", 1},
        Case{".engine sp\nfrobnicate\n", "cannot parse instruction", 2},
        Case{".engine pe\n\n# c\ntensor_tensor dst=sbuf[p0:128, 0 + [4 x 1]] fp32 in0=sbuf[p0:128, "
             "0 + [4 x 1]] fp32 in1=sbuf[p0:128, 0 + [4 x 1]] fp32 op0=add\n",
             "not an instruction of the pe engine", 4},
        Case{".input a fp99 [4]\n", "unknown dtype 'fp99'", 1},
        Case{".input a fp32 [4, 0]\n", "is not like [128, 512]", 1},
        Case{".input a fp32 [4]\n.output a fp32 [4]\n", "declared twice", 2},
        Case{".input a fp32 [4] id=x\n", "not a number", 1},
        Case{".const c fp32 [2]\n", "needs hex=DATA or file=PATH", 1},
        Case{".const c fp32 [2] hex=0102\n", "2 bytes of data for 8 bytes", 1},
        Case{".const c fp32 [2] hex=xyz\n", "hex", 1},
        Case{".const c uint8 [2] file=/nonexistent/x.bin\n", "cannot read", 1},
        Case{".scratch s many\n", "is not a number", 1}, Case{".lnc 3\n", "expected 1 or 2", 1},
        Case{".engine sp\nnop\n.lnc 2\n", "before anything is emitted", 3},
        Case{".subgraph sg01\n", "set .lnc first", 1}, Case{".uuid 1234\n", "32 hex digits", 1},
        Case{".build_version unquoted\n", "quoted string", 1},
        Case{".header colour=3\n", "unknown key", 1},
        Case{".queue_set q\n", "type= is required", 1},
        Case{".queue_set q type=in bogus=1\n", "unknown or malformed key", 1},
        Case{".engine sp\n.dma queue=q from=a to=b\n", "id= is required", 2},
        Case{".engine sp\n.dma id=0 queue=nope from=a to=b\n", "no queue set 'nope'", 2},
        Case{".engine sp\n.dma id=0 from=a to=b colour=red\n", "unknown or malformed key", 2},
        Case{".dma id=0\n", "outside an .engine section", 1},
        Case{".engine sp\nx: nop\nx: nop\n", "bound twice", 3},
        Case{".input a fp32 [4, 4\n", "unbalanced", 1},
        Case{".debug_prefix 0\n", "takes ID \"TEXT\"", 1},
        Case{".debug_prefix x \"a\"\n", "takes ID \"TEXT\"", 1},
        Case{".debug_prefix 0 \"bad \\q escape\"\n", "takes ID \"TEXT\"", 1},
        Case{".debug_prefix 0 \"cut \\x4\"\n", "takes ID \"TEXT\"", 1},
        Case{".debug_prefix 1 \"first\"\n", "out of order: the next is 0", 1},
        Case{".debug_prefix 0 \"nul \\x00\"\n", "NUL", 1},
        Case{".debug_prefix 0 \"a\"\n.debug_prefix 0 \"b\"\n", "the next is 1", 2},
        // Whole-NEFF errors found at the end name the file and the engine.
        Case{".engine sp\nnop\n", "must end with notify_end", 0},
        Case{".engine sp\nbranch r0 < 1 -> nowhere\nnotify_end code=0\n", "never bound", 0},
        Case{".engine sp\ndma_copy dst=hbm[var0 + 0, [1 x 0, 4 x 1]] fp32 src=sbuf[p0:1, 0 + [4 x "
             "1]] fp32 queue=0\nnotify_end code=0\n",
             "var0", 0},
        Case{".engine sp\ndebug_print src=sbuf[p0:1, 0 + [4 x 1]] fp32 prefix=0\nnotify_end "
             "code=0\n",
             "prefix 0 is not in the core's 0 debug prefixes", 0}));

TEST(AssemblerErrorsTest, UnknownChip) {
  AssembleOptions o;
  o.chip = "trn9";
  EXPECT_FALSE(Assemble(std::string(".engine sp\n") + kEnd, o).ok());
}

}  // namespace
}  // namespace trnsim::kb
