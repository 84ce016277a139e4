// Reference interpreter: nc_find_index8, nc_match_replace8, local_gather.
#include "interp_test_util.h"

namespace trnsim::reference::testing {
namespace {

using V = std::vector<float>;

TEST(interp_Gather, FindIndex8AndMatchReplace8) {
  Harness h;
  h.Put<float>(0, 0, {5, 7, 5, 1, 2, 3, 4, 9, 7, 0});  // data [1, 10]
  h.Put<float>(0, 64, {5, 7, 42, 9, 0, 1, 2, 5});      // vals [1, 8]
  ASSERT_TRUE(
      h.RunOn(
           "dve",
           "nc_find_index8 dst=sbuf[p0:1, 128 + [8 x 1]] uint16 data=sbuf[p0:1, 0 + [10 x 1]] fp32 "
           "vals=sbuf[p0:1, 64 + [8 x 1]] fp32\n"
           "nc_match_replace8 dst=sbuf[p0:1, 256 + [10 x 1]] fp32 data=sbuf[p0:1, 0 + [10 x 1]] "
           "fp32 "
           "vals=sbuf[p0:1, 64 + [8 x 1]] fp32 dst_idx=sbuf[p0:1, 192 + [8 x 1]] uint32 imm=-1.0")
          .ok());
  EXPECT_EQ(h.Get<uint16_t>(0, 128, 8), (std::vector<uint16_t>{0, 1, 0xFFFF, 7, 9, 3, 4, 0}));
  // j = 7 (5) takes k = 0 first, so j = 0 (5) takes k = 2; 42 is absent.
  EXPECT_EQ(h.Get<uint32_t>(0, 192, 8), (std::vector<uint32_t>{2, 1, 0xFFFFFFFFu, 7, 9, 3, 4, 0}));
  EXPECT_EQ(h.Get<float>(0, 256, 10), (V{-1, -1, -1, -1, -1, 3, 4, -1, 7, -1}));
}

TEST(interp_Gather, LocalGatherReversesGroupRows) {
  Harness h;
  for (int p = 0; p < 16; ++p) {
    h.Put<float>(p, 0, {float(10 * p), float(10 * p + 1)});
    h.Put<uint16_t>(p, 16, {uint16_t(15 - p)});
  }
  ASSERT_TRUE(
      h.RunOn("pool",
              "local_gather dst=sbuf[p0:16, 32 + [2 x 1]] fp32 in=sbuf[p0:16, 0 + [2 x 1]] fp32 "
              "index=sbuf[p0:16, 16 + [1 x 1]] uint16 elems_per_index=2")
          .ok());
  for (int p = 0; p < 16; ++p)
    EXPECT_EQ(h.Get<float>(p, 32, 2), (V{float(10 * (15 - p)), float(10 * (15 - p) + 1)})) << p;
  h.Put<uint16_t>(3, 16, {16});  // source has 32 elements = 16 pairs: 16 is past it
  Status st =
      h.RunOn("pool",
              "local_gather dst=sbuf[p0:16, 32 + [2 x 1]] fp32 in=sbuf[p0:16, 0 + [2 x 1]] fp32 "
              "index=sbuf[p0:16, 16 + [1 x 1]] uint16 elems_per_index=2");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("local_gather index 16"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace trnsim::reference::testing
