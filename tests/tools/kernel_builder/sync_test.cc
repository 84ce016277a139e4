// Semaphore plumbing (sync.h): updates on producers, waits on consumers, counts per channel.
#include <gtest/gtest.h>

#include "tools/kernel_builder/kernel_builder.h"

namespace trnsim::kb {
namespace {

constexpr isa::Dtype kF32 = isa::Dtype::kFloat32;

class SyncTest : public ::testing::Test {
 protected:
  SyncTest() : k_({"sync", "trn2", 1}) {
    x_ = k_.AddInput("x", kF32, {128, 64}).value();
    for (int i = 0; i < 8; ++i) t_[i] = core().AllocSbuf("t", kF32, 128, 64).value();
  }
  Core& core() { return k_.core(0); }
  InstRef Load(int i, int queue = 0) {
    return core().sp().DmaCopy(t_[i].ap(), x_.Block(0, 128, 0, 64), queue);
  }
  isa::Program Program(isa::Engine e) {
    neff::Neff n = k_.Build().value();
    for (const neff::EngineProgram& p : n.subgraphs[0].engines) {
      if (static_cast<int>(p.engine) == static_cast<int>(e)) {
        return isa::DecodeStream(p.instructions, k_.limits()).value();
      }
    }
    return {};
  }
  KernelBuilder k_;
  HbmTensor x_;
  Tile t_[8];
};

TEST_F(SyncTest, CountsFollowProgramOrderOfProducers) {
  InstRef l0 = Load(0), l1 = Load(1), l2 = Load(2);
  InstRef c2 = core().dve().TensorCopy(t_[5].ap(), t_[2].ap());
  InstRef c0 = core().dve().TensorCopy(t_[6].ap(), t_[0].ap());
  k_.Depend(c2, l2);  // declared before the dependency on the earlier load
  k_.Depend(c0, l0);
  (void)l1;
  isa::Program sp = Program(isa::Engine::kSp);
  ASSERT_EQ(sp.instructions[0].num_updates, 1);
  EXPECT_EQ(sp.instructions[1].num_updates, 0);  // nobody waits for l1 (but notify_end: below)
  int sem = sp.instructions[0].updates[0].index;
  EXPECT_EQ(sp.instructions[2].updates[0].index, sem);
  isa::Program dve = Program(isa::Engine::kDve);
  ASSERT_EQ(dve.instructions[0].num_waits, 1);
  EXPECT_EQ(dve.instructions[0].waits[0].value, 2u);  // l2 is the 2nd producer of the channel
  EXPECT_EQ(dve.instructions[1].waits[0].value, 1u);
  // SP's notify_end waits for its last load on queue 0.
  const isa::Instruction& end = sp.instructions.back();
  EXPECT_EQ(end.opcode, isa::Opcode::kNotifyEnd);
  ASSERT_EQ(end.num_waits, 1);
  EXPECT_EQ(end.waits[0].index, sem);
  EXPECT_EQ(end.waits[0].value, 2u);
}

TEST_F(SyncTest, SameEngineDatapathNeedsNothingButDmaConsumersWait) {
  InstRef a = core().dve().TensorCopy(t_[1].ap(), t_[0].ap());
  InstRef b = core().dve().TensorCopy(t_[2].ap(), t_[1].ap());
  InstRef st = core().dve().DmaCopy(x_.Block(0, 128, 0, 64), t_[2].ap(), 3);
  k_.Depend(b, a);
  k_.Depend(st, b);
  isa::Program dve = Program(isa::Engine::kDve);
  EXPECT_EQ(dve.instructions[0].num_updates, 0);
  EXPECT_EQ(dve.instructions[1].num_waits, 0);
  ASSERT_EQ(dve.instructions[1].num_updates, 1);  // b completes -> the store may read
  ASSERT_EQ(dve.instructions[2].num_waits, 1);
  EXPECT_EQ(dve.instructions[2].waits[0].index, dve.instructions[1].updates[0].index);
}

TEST_F(SyncTest, CollectivesHaveAChannelOfTheirOwn) {
  HbmTensor y = k_.AddScratch("y", 128 * 64 * 4).value();
  HbmTensor z = k_.AddScratch("z", 128 * 64 * 4).value();
  const isa::AccessPattern yb = isa::HbmAp(y.var_id, 0, kF32, 128, 64, {{64, 1}});
  const isa::AccessPattern zb = isa::HbmAp(z.var_id, 0, kF32, 128, 64, {{64, 1}});
  InstRef ar = core().pool().Collective(isa::CollectiveKind::kAllReduce, yb,
                                        x_.Block(0, 128, 0, 64), isa::AluOp::kAdd, {0, 1}, 1);
  InstRef pm = core().pool().Collective(isa::CollectiveKind::kPermute, zb, yb, isa::AluOp::kBypass,
                                        {0, 1}, 2);
  InstRef load = core().sp().DmaCopy(t_[0].ap(), zb, 2);
  ASSERT_TRUE(ar.valid() && pm.valid() && load.valid()) << k_.status().ToString();
  k_.Depend(pm, ar);    // same engine, but the CC cores run it: it waits
  k_.Depend(load, pm);  // the load reads what the permute wrote
  isa::Program pool = Program(isa::Engine::kPool);
  ASSERT_EQ(pool.instructions.size(), 3u);
  ASSERT_EQ(pool.instructions[0].num_updates, 1);
  const uint16_t sem = pool.instructions[0].updates[0].index;
  EXPECT_EQ(pool.instructions[0].updates[0].when, isa::UpdateWhen::kComplete);
  ASSERT_EQ(pool.instructions[1].num_waits, 1);
  EXPECT_EQ(pool.instructions[1].waits[0].index, sem);
  EXPECT_EQ(pool.instructions[1].waits[0].value, 1u);
  ASSERT_EQ(pool.instructions[1].num_updates, 1);
  EXPECT_EQ(pool.instructions[1].updates[0].index, sem);  // one counting channel, issue order
  EXPECT_EQ(pool.instructions[1].imm[2], 1u);             // permute's default shift
  // notify_end waits for the last collective (the channel's 2nd producer).
  const isa::Instruction& end = pool.instructions.back();
  ASSERT_EQ(end.num_waits, 1);
  EXPECT_EQ(end.waits[0].index, sem);
  EXPECT_EQ(end.waits[0].value, 2u);
  isa::Program sp = Program(isa::Engine::kSp);
  ASSERT_EQ(sp.instructions[0].num_waits, 1);
  EXPECT_EQ(sp.instructions[0].waits[0].index, sem);
  EXPECT_EQ(sp.instructions[0].waits[0].value, 2u);
}

TEST_F(SyncTest, ExtraWaitsBecomeSemWaitInstructions) {
  InstRef loads[6];
  for (int q = 0; q < 6; ++q) loads[q] = Load(q, q);  // six channels
  InstRef c = core().dve().TensorCopy(t_[7].ap(), t_[0].ap());
  for (InstRef l : loads) k_.Depend(c, l);
  isa::Program dve = Program(isa::Engine::kDve);
  ASSERT_EQ(dve.instructions.size(), 4u);  // 2 sem_wait + copy + notify_end
  EXPECT_EQ(dve.instructions[0].opcode, isa::Opcode::kSemWait);
  EXPECT_EQ(dve.instructions[1].opcode, isa::Opcode::kSemWait);
  EXPECT_EQ(dve.instructions[2].num_waits, isa::kMaxWaits);
}

TEST_F(SyncTest, PositionsFollowInsertedSemWaits) {
  InstRef loads[6];
  for (int q = 0; q < 6; ++q) loads[q] = Load(q, q);
  InstRef before = core().dve().TensorCopy(t_[6].ap(), t_[5].ap());
  InstRef c = core().dve().TensorCopy(t_[7].ap(), t_[0].ap());
  InstRef after = core().dve().TensorCopy(t_[6].ap(), t_[7].ap());
  for (InstRef l : loads) k_.Depend(c, l);
  KernelBuilder::StreamPositions positions;
  neff::Neff n = k_.Build({}, &positions).value();
  ASSERT_EQ(positions.size(), 1u);
  const std::vector<int>& dve = positions[0][static_cast<int>(isa::Engine::kDve)];
  // before, 2 sem_waits, c, after, notify_end.
  EXPECT_EQ(dve, (std::vector<int>{0, 3, 4, 5}));
  EXPECT_EQ(before.index, 0);
  EXPECT_EQ(c.index, 1);
  EXPECT_EQ(after.index, 2);
  const std::vector<int>& sp = positions[0][static_cast<int>(isa::Engine::kSp)];
  // notify_end waits for the last load of six queues: two sem_waits go before it.
  EXPECT_EQ(sp, (std::vector<int>{0, 1, 2, 3, 4, 5, 8}));
  EXPECT_EQ(positions[0][static_cast<int>(isa::Engine::kPe)], (std::vector<int>{0}));
  isa::Program program = Program(isa::Engine::kDve);
  ASSERT_EQ(program.instructions.size(), 6u);
  EXPECT_EQ(program.instructions[static_cast<size_t>(dve[1])].num_waits, isa::kMaxWaits);
  EXPECT_EQ(program.instructions[static_cast<size_t>(dve[3])].opcode, isa::Opcode::kNotifyEnd);
  // A failed build leaves `positions` as it was.
  KernelBuilder::StreamPositions untouched;
  k_.Depend(before, after);  // deadlock
  EXPECT_FALSE(k_.Build({}, &untouched).ok());
  EXPECT_TRUE(untouched.empty());
  (void)n;
}

TEST_F(SyncTest, ReservedSemaphoresAreNotReused) {
  int mine = core().AllocSemaphore().value();
  EXPECT_EQ(mine, k_.limits().semaphores - 1);
  core().sp().SemUpdate(0, isa::UpdateOp::kSemSet, 5);  // S[0] named by hand
  InstRef l = Load(0);
  k_.Depend(core().dve().TensorCopy(t_[1].ap(), t_[0].ap()), l);
  isa::Program sp = Program(isa::Engine::kSp);
  int used = sp.instructions[1].updates[0].index;
  EXPECT_NE(used, 0);
  EXPECT_NE(used, mine);
}

TEST_F(SyncTest, RefusedDependencies) {
  InstRef a = core().dve().TensorCopy(t_[1].ap(), t_[0].ap());
  InstRef b = core().dve().TensorCopy(t_[2].ap(), t_[1].ap());
  k_.Depend(a, b);  // consumer first in the same stream
  StatusOr<neff::Neff> n = k_.Build();
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.status().message().find("deadlock"), std::string::npos) << n.status().message();
}

TEST_F(SyncTest, BranchesAndTriggersAreRefused) {
  Label l = core().sp().NewLabel();
  ASSERT_TRUE(core().sp().Bind(l).ok());
  InstRef load = Load(0);
  core().sp().Branch(1, isa::CmpOp::kLt, 0, l);
  k_.Depend(core().dve().TensorCopy(t_[1].ap(), t_[0].ap()), load);
  EXPECT_NE(k_.Build().status().message().find("branches"), std::string::npos);

  KernelBuilder k2({"trig", "trn2", 1});
  InstRef trig = k2.core(0).sp().DmaTrigger(0);
  k2.Depend(k2.core(0).act().Nop(), trig);
  EXPECT_NE(k2.Build().status().message().find("dma_trigger"), std::string::npos);
  KernelBuilder k3({"bad", "trn2", 1});
  k3.Depend(InstRef{}, InstRef{});
  EXPECT_FALSE(k3.Build().ok());
}

}  // namespace
}  // namespace trnsim::kb
