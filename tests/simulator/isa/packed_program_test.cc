// PackedProgram (simulator/isa/packed_program.h): packing is lossless for every opcode's sample
// and for instructions no validator would accept, repeated operands are stored once, and a
// decoded stream holds no more than MaxHeldBytes promises (what the sim device's accounting,
// driver/sim/program_footprint.h, relies on).
#include "simulator/isa/packed_program.h"

#include <gtest/gtest.h>

#include <random>

#include "simulator/isa/encoding.h"
#include "tests/simulator/isa/samples.h"

namespace trnsim::isa {
namespace {

const IsaLimits& Limits() {
  static const IsaLimits limits = LimitsFor(simulator::Trainium2Spec());
  return limits;
}

TEST(PackedProgramTest, EverySampleUnpacksToItself) {
  Program program;
  program.engine = Engine::kDve;
  for (const testing::Sample& s : testing::Samples()) program.instructions.push_back(s.inst);
  ASSERT_GT(program.instructions.size(), 40u);
  const PackedProgram packed = PackedProgram::Pack(program);
  ASSERT_EQ(packed.size(), program.instructions.size());
  EXPECT_EQ(packed.engine(), Engine::kDve);
  for (size_t i = 0; i < packed.size(); ++i) {
    EXPECT_EQ(packed.at(i), program.instructions[i]) << "instruction " << i;
    EXPECT_EQ(packed.opcode(i), program.instructions[i].opcode);
    EXPECT_EQ(packed.num_updates(i), program.instructions[i].num_updates);
  }
  EXPECT_EQ(packed.Unpack(), program);
}

// Fields a valid instruction leaves zero, entries past num_waits, garbage enum values: the
// packed form is a store, not a validator, so all of it comes back.
TEST(PackedProgramTest, ArbitraryFieldsRoundTrip) {
  std::mt19937 rng(21);
  auto byte = [&] { return static_cast<uint8_t>(rng()); };
  Program program;
  program.engine = Engine::kPool;
  for (int n = 0; n < 200; ++n) {
    Instruction inst;
    inst.opcode = static_cast<Opcode>(rng() % 300);
    inst.op0 = static_cast<AluOp>(byte());
    inst.func = static_cast<ActFunc>(byte());
    inst.count = byte();
    inst.flags = static_cast<uint16_t>(rng());
    inst.reg1 = byte();
    inst.index = rng();
    inst.target = static_cast<int32_t>(rng());
    for (int k = 0; k < kMaxImms; ++k) inst.imm[k] = rng() % 3 == 0 ? 0 : rng();
    for (int k = 0; k < kMaxOperands; ++k) {
      if (rng() % 2) continue;
      AccessPattern& ap = inst.ap[k];
      ap.memory = static_cast<Memory>(byte());
      ap.dtype = static_cast<Dtype>(byte());
      ap.offset = static_cast<int64_t>(uint64_t{rng()} << 32 | rng());
      ap.strides[3] = static_cast<int32_t>(rng());
      ap.reg_stride_bytes = static_cast<int32_t>(rng());
    }
    inst.num_waits = byte();
    inst.num_updates = byte() % 5;
    inst.waits[rng() % kMaxWaits] = {static_cast<WaitKind>(byte()), static_cast<CmpOp>(byte()),
                                     static_cast<uint16_t>(rng()), static_cast<uint32_t>(rng())};
    inst.updates[rng() % kMaxUpdates] = {
        static_cast<UpdateOp>(byte()), static_cast<UpdateWhen>(byte()),
        static_cast<uint16_t>(rng()), static_cast<uint32_t>(rng())};
    program.instructions.push_back(inst);
  }
  const PackedProgram packed = PackedProgram::Pack(program);
  for (size_t i = 0; i < packed.size(); ++i)
    ASSERT_EQ(packed.at(i), program.instructions[i]) << "instruction " << i;
  // Unpack writes every field, whatever the target held.
  Instruction reused = program.instructions[7];
  packed.Unpack(3, reused);
  EXPECT_EQ(reused, program.instructions[3]);
}

// 10^4 memsets of one tile hold one operand, not 10^4: each costs its entry and two words.
TEST(PackedProgramTest, ARepeatedOperandIsStoredOnce) {
  Program program;
  program.engine = Engine::kDve;
  Instruction memset;
  memset.opcode = Opcode::kMemset;
  memset.ap[kDst] = SbufAp(0, 1, 0, Dtype::kFloat32, {{8, 1}});
  for (int i = 0; i < 10000; ++i) {
    memset.set_imm_f32(0, static_cast<float>(i + 1));
    program.instructions.push_back(memset);
  }
  const PackedProgram packed = PackedProgram::Pack(program);
  EXPECT_LE(packed.HeldBytes(), 10000 * (32 + 2 * 4) + sizeof(AccessPattern));
  EXPECT_EQ(packed.at(9999), program.instructions[9999]);
}

// The decoder packs as it decodes; what it keeps is within MaxHeldBytes of the stream.
TEST(PackedProgramTest, ADecodedStreamStaysWithinItsBound) {
  for (Engine engine : {Engine::kPe, Engine::kAct, Engine::kDve, Engine::kPool, Engine::kSp}) {
    const std::vector<Instruction> stream = testing::SampleStream(engine);
    StatusOr<std::vector<uint8_t>> bytes = EncodeStream(engine, stream, Limits());
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    StatusOr<ValidatedProgram> decoded = DecodeValidatedStream(*bytes, Limits());
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    EXPECT_EQ(decoded->Unpack().instructions, stream);
    EXPECT_LE(decoded->packed().HeldBytes(),
              PackedProgram::MaxHeldBytes(stream.size(), bytes->size() - kStreamHeaderBytes))
        << EngineName(engine);
  }
}

// A packed program is validated as the plain one is, with the same message.
TEST(PackedProgramTest, ValidationAgreesWithThePlainProgram) {
  Program program;
  program.engine = Engine::kDve;
  program.instructions = testing::SampleStream(Engine::kDve);
  ASSERT_TRUE(ValidateProgram(PackedProgram::Pack(program), Limits()).ok());
  program.instructions.pop_back();  // no notify_end
  const Status plain = ValidateProgram(program.engine, program.instructions, Limits());
  const Status packed = ValidateProgram(PackedProgram::Pack(program), Limits());
  EXPECT_FALSE(plain.ok());
  EXPECT_EQ(packed.code(), plain.code());
  EXPECT_EQ(packed.message(), plain.message());
}

}  // namespace
}  // namespace trnsim::isa
