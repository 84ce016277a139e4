#include <gtest/gtest.h>

#include "simulator/collective/collective_port.h"

namespace trnsim::simulator::collective {
namespace {

std::vector<uint32_t> Members(ReplicaGroupSpec spec, uint32_t world, uint32_t rank) {
  auto members = GroupMembers(spec, world, rank);
  EXPECT_TRUE(members.ok()) << members.status().ToString();
  return members.ok() ? *members : std::vector<uint32_t>{};
}

TEST(CollectiveGroupMembers, WholeWorldWhenSizeIsZero) {
  EXPECT_EQ(Members({0, 1}, 4, 2), (std::vector<uint32_t>{0, 1, 2, 3}));
}

TEST(CollectiveGroupMembers, ConsecutiveGroups) {
  EXPECT_EQ(Members({2, 1}, 8, 5), (std::vector<uint32_t>{4, 5}));
  EXPECT_EQ(Members({4, 1}, 8, 3), (std::vector<uint32_t>{0, 1, 2, 3}));
}

TEST(CollectiveGroupMembers, StridedGroups) {
  EXPECT_EQ(Members({4, 2}, 8, 5), (std::vector<uint32_t>{1, 3, 5, 7}));
  EXPECT_EQ(Members({2, 4}, 8, 6), (std::vector<uint32_t>{2, 6}));
  // Blocks of G*s = 4 ranks, each holding s = 2 groups of 2.
  EXPECT_EQ(Members({2, 2}, 8, 7), (std::vector<uint32_t>{5, 7}));
  EXPECT_EQ(Members({2, 2}, 8, 4), (std::vector<uint32_t>{4, 6}));
}

TEST(CollectiveGroupMembers, RejectsSpecsThatDoNotTileTheWorld) {
  EXPECT_EQ(GroupMembers({3, 1}, 8, 0).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(GroupMembers({4, 3}, 8, 0).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(GroupMembers({2, 0}, 8, 0).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(GroupMembers({16, 1}, 8, 0).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(GroupMembers({2, 1}, 8, 8).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(GroupMembers({1, 1}, 0, 0).status().code(), StatusCode::kInvalid);
}

}  // namespace
}  // namespace trnsim::simulator::collective
