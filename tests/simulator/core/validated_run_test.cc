// core::Execute with programs validated at load (CoreRun::validated, isa::ValidatedProgram):
// they run as the same programs given unvalidated do, and the only checks left are the ones
// that cannot have been done at load — the chip's limits and one program per engine.
#include <gtest/gtest.h>

#include <string>

#include "simulator/core/execution.h"
#include "simulator/isa/limits.h"
#include "simulator/isa/text.h"
#include "simulator/isa/validated_program.h"

namespace trnsim::simulator::core {
namespace {

const ChipSpec& kChip = Trainium2Spec();

constexpr char kProgram[] =
    ".engine dve\n"
    "tensor_copy dst=sbuf[p0:128, 0 + [512 x 1]] fp32 in=sbuf[p0:128, 4096 + [512 x 1]] fp32\n"
    "tensor_copy dst=sbuf[p0:128, 8192 + [512 x 1]] fp32 in=sbuf[p0:128, 0 + [512 x 1]] fp32\n"
    "notify_end\n";

isa::Program Parse() {
  StatusOr<isa::Program> p = isa::ParseProgram(kProgram);
  EXPECT_TRUE(p.ok()) << p.status().message();
  return p.ok() ? *p : isa::Program{};
}

struct Core {
  Core() : state(isa::LimitsFor(kChip)) {}
  StatusOr<ExecutionResult> Run(const CoreRun& given) {
    CoreRun run = given;
    run.state = &state;
    run.hbm = &hbm;
    return Execute(kChip, std::span<const CoreRun>(&run, 1));
  }
  reference::CoreState state;
  reference::VectorHbm hbm;
};

TEST(ValidatedRunTest, AValidatedProgramRunsAsTheSameProgramUnvalidated) {
  const isa::Program program = Parse();
  StatusOr<isa::ValidatedProgram> validated =
      isa::ValidatedProgram::Validate(program, isa::LimitsFor(kChip));
  ASSERT_TRUE(validated.ok()) << validated.status().message();
  EXPECT_EQ(validated->Unpack(), program);
  EXPECT_EQ(validated->limits(), isa::LimitsFor(kChip));

  CoreRun plain, loaded;
  plain.programs[int(isa::Engine::kDve)] = &program;
  loaded.validated[int(isa::Engine::kDve)] = &*validated;
  Core a, b;
  StatusOr<ExecutionResult> ra = a.Run(plain);
  StatusOr<ExecutionResult> rb = b.Run(loaded);
  ASSERT_TRUE(ra.ok()) << ra.status().message();
  ASSERT_TRUE(rb.ok()) << rb.status().message();
  EXPECT_EQ(ra->duration_ps, rb->duration_ps);
  EXPECT_EQ(ra->events, rb->events);
  const EngineStats& da = ra->cores[0].engines[int(isa::Engine::kDve)];
  const EngineStats& db = rb->cores[0].engines[int(isa::Engine::kDve)];
  EXPECT_EQ(da.instructions, 3u);
  EXPECT_EQ(db.instructions, da.instructions);
  EXPECT_EQ(db.busy_ps, da.busy_ps);
}

TEST(ValidatedRunTest, OnlyValidateMakesOneAndItRefusesWhatValidateProgramRefuses) {
  isa::Program program = Parse();
  program.instructions.pop_back();  // no notify_end at the end
  StatusOr<isa::ValidatedProgram> validated =
      isa::ValidatedProgram::Validate(program, isa::LimitsFor(kChip));
  ASSERT_FALSE(validated.ok());
  EXPECT_EQ(validated.status().code(), StatusCode::kInvalid);
  EXPECT_NE(validated.status().message().find("notify_end"), std::string::npos)
      << validated.status().message();
}

TEST(ValidatedRunTest, AProgramValidatedForAnotherChipIsRefused) {
  const isa::IsaLimits trn3 = isa::LimitsFor(Trainium3Spec());
  ASSERT_NE(trn3, isa::LimitsFor(kChip));
  StatusOr<isa::ValidatedProgram> validated = isa::ValidatedProgram::Validate(Parse(), trn3);
  ASSERT_TRUE(validated.ok()) << validated.status().message();
  CoreRun run;
  run.validated[int(isa::Engine::kDve)] = &*validated;
  Core c;
  StatusOr<ExecutionResult> r = c.Run(run);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
  EXPECT_NE(r.status().message().find("another chip"), std::string::npos) << r.status().message();
}

TEST(ValidatedRunTest, AnEngineGivenTwoProgramsIsRefused) {
  const isa::Program program = Parse();
  StatusOr<isa::ValidatedProgram> validated =
      isa::ValidatedProgram::Validate(program, isa::LimitsFor(kChip));
  ASSERT_TRUE(validated.ok()) << validated.status().message();
  CoreRun run;
  run.programs[int(isa::Engine::kDve)] = &program;
  run.validated[int(isa::Engine::kDve)] = &*validated;
  Core c;
  StatusOr<ExecutionResult> r = c.Run(run);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
  EXPECT_NE(r.status().message().find("two programs"), std::string::npos) << r.status().message();
}

TEST(ValidatedRunTest, AProgramInTheWrongEngineSlotIsRefused) {
  StatusOr<isa::ValidatedProgram> validated =
      isa::ValidatedProgram::Validate(Parse(), isa::LimitsFor(kChip));
  ASSERT_TRUE(validated.ok()) << validated.status().message();
  CoreRun run;
  run.validated[int(isa::Engine::kAct)] = &*validated;  // a DVE program
  Core c;
  StatusOr<ExecutionResult> r = c.Run(run);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
}

}  // namespace
}  // namespace trnsim::simulator::core
