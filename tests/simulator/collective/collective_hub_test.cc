// The hub's results: every kind on fp32, bf16 and int32 with exact expected values, groups of
// 2 and 4 (consecutive and strided), timing from the cost model, determinism, 64 ranks.
#include <gtest/gtest.h>

#include <climits>
#include <cmath>

#include "collective_test_util.h"
#include "simulator/collective/collective_cost.h"

namespace trnsim::simulator::collective {
namespace {

using isa::AluOp;
using isa::Dtype;
using testing::Bf16Bytes;
using testing::Bf16Values;
using testing::FromBytes;
using testing::RunRanks;
using testing::TestRank;
using testing::ToBytes;
using testing::Trn2_48xl;

CollectiveCall Call(CollectiveKind kind, Dtype dtype, std::vector<uint8_t> input,
                    uint64_t output_bytes, ReplicaGroupSpec group = {}) {
  CollectiveCall c;
  c.kind = kind;
  c.op = AluOp::kAdd;
  c.dtype = dtype;
  c.group = group;
  c.input = std::move(input);
  c.output_bytes = output_bytes;
  return c;
}

// Ranks 0..world-1, one per chip, each calling what make(rank) returns.
template <typename Make>
std::vector<TestRank> Ranks(uint32_t world, Make make) {
  std::vector<TestRank> ranks;
  for (uint32_t r = 0; r < world; ++r) ranks.push_back({r, make(r), static_cast<int>(r)});
  return ranks;
}

TEST(CollectiveHub, AllReduceFp32SumsAndCompletesTogether) {
  CollectiveHub hub(Trn2_48xl());
  auto ranks = Ranks(4, [](uint32_t r) {
    std::vector<float> in = {1.0f * r, 10.0f + r, -0.5f * r};
    CollectiveCall c = Call(CollectiveKind::kAllReduce, Dtype::kFloat32, ToBytes(in), 12);
    c.arrival_ps = 1000 * (r + 1);
    return c;
  });
  auto results = RunRanks(hub, 4, ranks);
  std::vector<RankPlacement> placements = {{0, 0}, {1, 0}, {2, 0}, {3, 0}};
  auto cost = EstimateCollective(Trn2_48xl(), CollectiveKind::kAllReduce, 12, placements);
  ASSERT_TRUE(cost.ok());
  ASSERT_GT(cost->duration_ps, 0u);
  for (auto& r : results) {
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(FromBytes<float>(r->output), (std::vector<float>{6.0f, 46.0f, -3.0f}));
    EXPECT_EQ(r->complete_ps, 4000 + cost->duration_ps);  // the last arrival + the cost
  }
}

TEST(CollectiveHub, AllReduceFp32MultiplyAndMaximum) {
  CollectiveHub hub(Trn2_48xl());
  const std::vector<std::vector<float>> in = {{2.0f, -3.0f, 1e30f}, {4.0f, 0.5f, 1e30f}};
  for (AluOp op : {AluOp::kMultiply, AluOp::kMaximum}) {
    auto ranks = Ranks(2, [&](uint32_t r) {
      CollectiveCall c = Call(CollectiveKind::kAllReduce, Dtype::kFloat32, ToBytes(in[r]), 12);
      c.op = op;
      c.collective_id = static_cast<uint32_t>(op);
      return c;
    });
    const std::vector<float> expected = op == AluOp::kMultiply
                                            ? std::vector<float>{8.0f, -1.5f, INFINITY}
                                            : std::vector<float>{4.0f, 0.5f, 1e30f};
    for (auto& r : RunRanks(hub, 2, ranks)) {
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_EQ(FromBytes<float>(r->output), expected) << isa::AluOpName(op);
    }
  }
}

TEST(CollectiveHub, AllReduceBf16RoundsEveryStepInPositionOrder) {
  // bf16 spacing at 256 is 2: position order gives ((256 + 1) -> 256) + 1 -> 256, while adding
  // the ones first (or accumulating unrounded) would give 258.
  CollectiveHub hub(Trn2_48xl());
  const std::vector<float> values = {256.0f, 1.0f, 1.0f, 0.0f};
  auto ranks = Ranks(4, [&](uint32_t r) {
    return Call(CollectiveKind::kAllReduce, Dtype::kBfloat16, Bf16Bytes({values[r], 1.5f}), 4);
  });
  ranks[0].delay = std::chrono::milliseconds(30);  // position 0 arriving last changes nothing
  for (auto& r : RunRanks(hub, 4, ranks)) {
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(Bf16Values(r->output), (std::vector<float>{256.0f, 6.0f}));
  }
}

TEST(CollectiveHub, AllReduceInt32WrapsAndMaximumIsSigned) {
  CollectiveHub hub(Trn2_48xl());
  auto add = Ranks(2, [](uint32_t r) {
    return Call(CollectiveKind::kAllReduce, Dtype::kInt32, ToBytes<int32_t>({INT_MAX, -5 + int(r)}),
                8);
  });
  for (auto& r : RunRanks(hub, 2, add)) {
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(FromBytes<int32_t>(r->output), (std::vector<int32_t>{-2, -9}));
  }
  auto max = Ranks(2, [](uint32_t r) {
    CollectiveCall c =
        Call(CollectiveKind::kAllReduce, Dtype::kInt32, ToBytes<int32_t>({-1 - int(r), 7}), 8);
    c.op = AluOp::kMaximum;
    c.collective_id = 1;
    return c;
  });
  for (auto& r : RunRanks(hub, 2, max)) {
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(FromBytes<int32_t>(r->output), (std::vector<int32_t>{-1, 7}));
  }
}

TEST(CollectiveHub, AllGatherConcatenatesConsecutiveGroupsOfFour) {
  CollectiveHub hub(Trn2_48xl());
  auto ranks = Ranks(8, [](uint32_t r) {
    return Call(CollectiveKind::kAllGather, Dtype::kFloat32, ToBytes<float>({float(r)}), 16,
                {4, 1});
  });
  auto results = RunRanks(hub, 8, ranks);
  for (uint32_t r = 0; r < 8; ++r) {
    ASSERT_TRUE(results[r].ok()) << results[r].status().ToString();
    const float b = r < 4 ? 0 : 4;
    EXPECT_EQ(FromBytes<float>(results[r]->output), (std::vector<float>{b, b + 1, b + 2, b + 3}));
  }
}

TEST(CollectiveHub, AllGatherOverStridedGroupsOfFour) {
  CollectiveHub hub(Trn2_48xl());
  // World 8, groups of 4 with stride 2: [0, 2, 4, 6] and [1, 3, 5, 7].
  auto ranks = Ranks(8, [](uint32_t r) {
    return Call(CollectiveKind::kAllGather, Dtype::kInt32, ToBytes<int32_t>({int(r)}), 16, {4, 2});
  });
  auto results = RunRanks(hub, 8, ranks);
  for (uint32_t r = 0; r < 8; ++r) {
    ASSERT_TRUE(results[r].ok()) << results[r].status().ToString();
    const int o = int(r % 2);
    EXPECT_EQ(FromBytes<int32_t>(results[r]->output),
              (std::vector<int32_t>{o, o + 2, o + 4, o + 6}));
  }
}

TEST(CollectiveHub, ReduceScatterBf16OverStridedPairs) {
  CollectiveHub hub(Trn2_48xl());
  // World 4, groups of 2 with stride 2: [0, 2] and [1, 3].
  auto ranks = Ranks(4, [](uint32_t r) {
    const float x = float(r);
    return Call(CollectiveKind::kReduceScatter, Dtype::kBfloat16,
                Bf16Bytes({x, 10 * x, 100 * x, 0.5f}), 4, {2, 2});
  });
  auto results = RunRanks(hub, 4, ranks);
  const std::vector<std::vector<float>> expected = {
      {2, 20}, {4, 40}, {200, 1}, {400, 1}};  // rank 0: block 0 of (r0 + r2), rank 2: block 1
  for (uint32_t r = 0; r < 4; ++r) {
    ASSERT_TRUE(results[r].ok()) << results[r].status().ToString();
    EXPECT_EQ(Bf16Values(results[r]->output), expected[r]) << "rank " << r;
  }
}

TEST(CollectiveHub, AllToAllTransposesBlocks) {
  CollectiveHub hub(Trn2_48xl());
  auto ranks = Ranks(4, [](uint32_t r) {
    std::vector<int32_t> in;
    for (int j = 0; j < 4; ++j) in.insert(in.end(), {int(10 * r + j), int(-10 * r - j)});
    return Call(CollectiveKind::kAllToAll, Dtype::kInt32, ToBytes(in), 32);
  });
  auto results = RunRanks(hub, 4, ranks);
  for (int p = 0; p < 4; ++p) {
    ASSERT_TRUE(results[p].ok()) << results[p].status().ToString();
    std::vector<int32_t> expected;
    for (int j = 0; j < 4; ++j) expected.insert(expected.end(), {10 * j + p, -10 * j - p});
    EXPECT_EQ(FromBytes<int32_t>(results[p]->output), expected) << "position " << p;
  }
}

TEST(CollectiveHub, PermuteReceivesFromPositionMinusShift) {
  for (int32_t shift : {1, -1, 6}) {
    CollectiveHub hub(Trn2_48xl());
    auto ranks = Ranks(4, [&](uint32_t r) {
      CollectiveCall c =
          Call(CollectiveKind::kPermute, Dtype::kFloat32, ToBytes<float>({float(r)}), 4);
      c.shift = shift;
      return c;
    });
    auto results = RunRanks(hub, 4, ranks);
    for (int p = 0; p < 4; ++p) {
      ASSERT_TRUE(results[p].ok()) << results[p].status().ToString();
      const float from = float(((p - shift) % 4 + 4) % 4);
      EXPECT_EQ(FromBytes<float>(results[p]->output), std::vector<float>{from})
          << "shift " << shift << " position " << p;
    }
  }
}

TEST(CollectiveHub, RepeatedIdsMeetByOccurrence) {
  // Each rank issues the same collective id twice; the n-th calls meet.
  CollectiveHub hub(Trn2_48xl());
  std::vector<std::vector<float>> outputs(2);
  std::vector<std::thread> threads;
  std::vector<std::optional<StatusOr<CollectiveOutcome>>> second(2);
  for (uint32_t r = 0; r < 2; ++r) {
    threads.emplace_back([&, r] {
      auto port = hub.Attach({"c", r, 2, 0, 0}, {std::chrono::milliseconds(5000), nullptr});
      auto first = port->Run(
          Call(CollectiveKind::kAllReduce, Dtype::kFloat32, ToBytes<float>({1.0f + r}), 4));
      if (first.ok()) outputs[r] = FromBytes<float>(first->output);
      second[r].emplace(port->Run(
          Call(CollectiveKind::kAllReduce, Dtype::kFloat32, ToBytes<float>({10.0f * r}), 4)));
    });
  }
  for (auto& t : threads) t.join();
  for (uint32_t r = 0; r < 2; ++r) {
    EXPECT_EQ(outputs[r], std::vector<float>{3.0f});
    ASSERT_TRUE(second[r]->ok());
    EXPECT_EQ(FromBytes<float>((*second[r])->output), std::vector<float>{10.0f});
  }
}

TEST(CollectiveHub, ResultsDoNotDependOnHostArrivalOrder) {
  auto run = [](std::vector<int> delays_ms) {
    CollectiveHub hub(Trn2_48xl());
    auto ranks = Ranks(4, [](uint32_t r) {
      std::vector<float> in;
      for (int i = 0; i < 64; ++i) in.push_back(1.0f + 0.37f * float(i * (r + 1)) + 300.0f * r);
      CollectiveCall c = Call(CollectiveKind::kAllReduce, Dtype::kBfloat16, Bf16Bytes(in), 128);
      c.arrival_ps = 5'000'000 * (4 - r);
      return c;
    });
    for (int r = 0; r < 4; ++r) ranks[r].delay = std::chrono::milliseconds(delays_ms[r]);
    std::vector<std::pair<std::vector<uint8_t>, TimePs>> out;
    for (auto& res : RunRanks(hub, 4, ranks)) {
      EXPECT_TRUE(res.ok()) << res.status().ToString();
      if (res.ok()) out.push_back({res->output, res->complete_ps});
    }
    return out;
  };
  const auto a = run({0, 10, 20, 30});
  const auto b = run({30, 20, 10, 0});
  const auto c = run({15, 0, 30, 5});
  ASSERT_EQ(a.size(), 4u);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
  EXPECT_EQ(a[0].first, a[3].first);
}

TEST(CollectiveHub, SixtyFourRanksOnATrn2_48xlarge) {
  // LNC 2: four ranks per chip on physical cores 0, 2, 4, 6; sixteen chips.
  CollectiveHub hub(Trn2_48xl());
  std::vector<TestRank> ranks;
  std::vector<RankPlacement> placements;
  for (uint32_t r = 0; r < 64; ++r) {
    std::vector<int32_t> in(256);
    for (int i = 0; i < 256; ++i) in[i] = int32_t(r) * 1000 + i;
    CollectiveCall c = Call(CollectiveKind::kAllReduce, Dtype::kInt32, ToBytes(in), 1024);
    c.physical_core = int(r % 4) * 2;
    c.arrival_ps = r * 7;
    ranks.push_back({r, c, int(r / 4)});
    placements.push_back({int(r / 4), c.physical_core});
  }
  auto cost = EstimateCollective(Trn2_48xl(), CollectiveKind::kAllReduce, 1024, placements);
  ASSERT_TRUE(cost.ok());
  for (auto& res : RunRanks(hub, 64, ranks)) {
    ASSERT_TRUE(res.ok()) << res.status().ToString();
    auto out = FromBytes<int32_t>(res->output);
    ASSERT_EQ(out.size(), 256u);
    EXPECT_EQ(out[0], 1000 * (63 * 64 / 2));
    EXPECT_EQ(out[255], 1000 * (63 * 64 / 2) + 64 * 255);
    EXPECT_EQ(res->complete_ps, 63 * 7 + cost->duration_ps);
  }
}

TEST(CollectiveHub, BadSizesFailAtOnceWithInvalid) {
  CollectiveHub hub(Trn2_48xl());
  // One rank of four: a call that waited for the others would end in NRT_TIMEOUT, not INVALID.
  auto port = hub.Attach({"c", 0, 4, 0, 0}, {std::chrono::milliseconds(5000), nullptr});
  auto gather = port->Run(Call(CollectiveKind::kAllGather, Dtype::kFloat32, ToBytes<float>({1, 2}),
                               16));  // needs 4 x 8 = 32
  EXPECT_EQ(gather.status().code(), StatusCode::kInvalid);
  EXPECT_NE(gather.status().message().find("4 x input"), std::string::npos)
      << gather.status().message();
  auto odd = port->Run(Call(CollectiveKind::kAllReduce, Dtype::kFloat32, {1, 2, 3}, 3));
  EXPECT_EQ(odd.status().code(), StatusCode::kInvalid);
  auto a2a = port->Run(Call(CollectiveKind::kAllToAll, Dtype::kInt32, ToBytes<int32_t>({1, 2}),
                            8));  // 2 elements over 4 ranks
  EXPECT_EQ(a2a.status().code(), StatusCode::kInvalid);
  CollectiveCall divide = Call(CollectiveKind::kAllReduce, Dtype::kFloat32, ToBytes<float>({1}), 4);
  divide.op = AluOp::kDivide;
  EXPECT_EQ(port->Run(divide).status().code(), StatusCode::kInvalid);
}

}  // namespace
}  // namespace trnsim::simulator::collective
