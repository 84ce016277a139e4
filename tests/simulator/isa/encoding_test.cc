// The binary stream codec: round trips of every opcode, and hostile bytes (truncation at every
// length, bit flips, garbage) that must give NRT_INVALID and never crash.
#include "simulator/isa/encoding.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <span>
#include <string>

#include "tests/simulator/isa/samples.h"

namespace trnsim::isa {
namespace {

const IsaLimits& Limits() {
  static const IsaLimits limits = LimitsFor(simulator::Trainium2Spec());
  return limits;
}

std::vector<uint8_t> Encode(Engine engine, const std::vector<Instruction>& insts) {
  StatusOr<std::vector<uint8_t>> bytes = EncodeStream(engine, insts, Limits());
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  return bytes.ok() ? *bytes : std::vector<uint8_t>();
}

void FixCrc(std::vector<uint8_t>& bytes) {
  if (bytes.size() < kStreamHeaderBytes) return;
  std::memset(bytes.data() + 20, 0, 4);
  uint32_t crc = Crc32(bytes);
  for (int i = 0; i < 4; ++i) bytes[20 + i] = static_cast<uint8_t>(crc >> (8 * i));
}

// The stream checksum is the standard CRC-32 (docs/isa.md §5.1): its check value, and
// chaining over split input as the decoder does (header, then body).
TEST(EncodingTest, Crc32IsTheStandardCrc) {
  const std::string check = "123456789";
  std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(check.data()), check.size());
  EXPECT_EQ(Crc32(bytes), 0xCBF43926u);
  EXPECT_EQ(Crc32(bytes.subspan(4), Crc32(bytes.first(4))), 0xCBF43926u);
  EXPECT_EQ(Crc32({}), 0u);
}

TEST(EncodingTest, EveryOpcodeRoundTrips) {
  for (const testing::Sample& s : testing::Samples()) {
    std::vector<Instruction> insts = {s.inst};
    if (s.inst.opcode != Opcode::kNotifyEnd) insts.push_back(Instruction{Opcode::kNotifyEnd});
    std::vector<uint8_t> bytes = Encode(s.engine, insts);
    StatusOr<Program> p = DecodeStream(bytes, Limits());
    ASSERT_TRUE(p.ok()) << Mnemonic(s.inst.opcode) << ": " << p.status().ToString();
    EXPECT_EQ(p->engine, s.engine);
    ASSERT_EQ(p->instructions.size(), insts.size());
    EXPECT_EQ(p->instructions[0], s.inst) << Mnemonic(s.inst.opcode);
  }
}

TEST(EncodingTest, WholeStreamsRoundTrip) {
  for (int e = 0; e < kEngineCount; ++e) {
    Engine engine = static_cast<Engine>(e);
    std::vector<Instruction> insts = testing::SampleStream(engine);
    std::vector<uint8_t> bytes = Encode(engine, insts);
    ASSERT_TRUE(HasStreamMagic(bytes));
    StatusOr<Program> p = DecodeStream(bytes, Limits());
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    EXPECT_EQ(p->instructions, insts);
  }
}

TEST(EncodingTest, RecordLayout) {
  Instruction i{Opcode::kTensorTensor};
  i.op0 = AluOp::kAdd;
  i.ap[0] = SbufAp(0, 128, 0x1234, Dtype::kFloat32, {{512, 1}});
  std::vector<uint8_t> out;
  EncodeInstruction(i, out);
  ASSERT_EQ(out.size(), kMinRecordBytes + kApBytes);
  EXPECT_EQ(out[0], 0x42);  // opcode, little-endian
  EXPECT_EQ(out[1], 0x00);
  EXPECT_EQ(out[2], kMinRecordBytes + kApBytes);  // record size
  EXPECT_EQ(out[6], 0x01);                        // operand mask
  EXPECT_EQ(out[8], 1);                           // op0 = add
  size_t ap = kMinRecordBytes;
  EXPECT_EQ(out[ap + 0], 1);     // memory sbuf
  EXPECT_EQ(out[ap + 1], 0x0A);  // dtype fp32
  EXPECT_EQ(out[ap + 2], 1);     // num_dims
  EXPECT_EQ(out[ap + 3], 0xFF);  // no register
  EXPECT_EQ(out[ap + 6], 128);   // num_partitions
  EXPECT_EQ(out[ap + 8], 0x34);  // offset
  EXPECT_EQ(out[ap + 9], 0x12);
  EXPECT_EQ(out[ap + 28], 0x00);  // sizes[0] = 512
  EXPECT_EQ(out[ap + 29], 0x02);
  EXPECT_EQ(out[ap + 36], 1);  // strides[0] = 1
}

TEST(EncodingTest, HeaderLayout) {
  std::vector<uint8_t> bytes = Encode(Engine::kPool, {Instruction{Opcode::kNotifyEnd}});
  ASSERT_EQ(bytes.size(), kStreamHeaderBytes + kMinRecordBytes);
  EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 8), "TRNSIMIS");
  EXPECT_EQ(bytes[8], kStreamFormatVersion);
  EXPECT_EQ(bytes[10], static_cast<uint8_t>(Engine::kPool));
  EXPECT_EQ(bytes[12], 1);                // count
  EXPECT_EQ(bytes[16], kMinRecordBytes);  // body bytes
}

TEST(EncodingTest, EncodeRefusesInvalidPrograms) {
  Instruction bad{Opcode::kLoadStationary};  // stationary operand missing
  StatusOr<std::vector<uint8_t>> r = EncodeStream(
      Engine::kPe, std::vector<Instruction>{bad, Instruction{Opcode::kNotifyEnd}}, Limits());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
  EXPECT_NE(r.status().message().find("instruction 0 (load_stationary)"), std::string::npos)
      << r.status().message();
}

TEST(EncodingTest, ForeignBytesAreRefusedClearly) {
  std::vector<uint8_t> aws = {0x01, 0x02, 0x03, 0x04, 0, 0, 0, 0, 0, 0};
  EXPECT_FALSE(HasStreamMagic(aws));
  StatusOr<Program> p = DecodeStream(aws, Limits());
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kInvalid);
  EXPECT_NE(p.status().message().find("TRNSIMIS"), std::string::npos);
  EXPECT_FALSE(DecodeStream({}, Limits()).ok());
}

TEST(EncodingTest, EveryTruncationIsInvalid) {
  std::vector<uint8_t> bytes = Encode(Engine::kDve, testing::SampleStream(Engine::kDve));
  for (size_t n = 0; n < bytes.size(); ++n) {
    StatusOr<Program> p = DecodeStream(std::span(bytes.data(), n), Limits());
    ASSERT_FALSE(p.ok()) << "prefix " << n;
    EXPECT_EQ(p.status().code(), StatusCode::kInvalid);
  }
  // Truncations with a consistent header and CRC still fail on the record structure.
  for (size_t n = kStreamHeaderBytes; n < bytes.size(); n += 7) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + n);
    uint32_t body = static_cast<uint32_t>(n - kStreamHeaderBytes);
    for (int i = 0; i < 4; ++i) cut[16 + i] = static_cast<uint8_t>(body >> (8 * i));
    FixCrc(cut);
    StatusOr<Program> p = DecodeStream(cut, Limits());
    EXPECT_FALSE(p.ok()) << "consistent prefix " << n;
  }
}

TEST(EncodingTest, EverySingleBitFlipIsInvalid) {
  std::vector<uint8_t> bytes = Encode(Engine::kAct, testing::SampleStream(Engine::kAct));
  for (size_t bit = 0; bit < bytes.size() * 8; ++bit) {
    std::vector<uint8_t> bad = bytes;
    bad[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    StatusOr<Program> p = DecodeStream(bad, Limits());
    ASSERT_FALSE(p.ok()) << "bit " << bit;
    EXPECT_EQ(p.status().code(), StatusCode::kInvalid);
  }
}

// With the CRC repaired, flips reach the record decoder and validation: whatever they produce
// must be refused or be a valid program that re-encodes to the same bytes.
TEST(EncodingTest, RandomFlipsPastTheCrcNeverCrash) {
  std::mt19937 rng(12345);
  for (int e = 0; e < kEngineCount; ++e) {
    Engine engine = static_cast<Engine>(e);
    std::vector<uint8_t> bytes = Encode(engine, testing::SampleStream(engine));
    std::uniform_int_distribution<size_t> pos(kStreamHeaderBytes, bytes.size() - 1);
    int accepted = 0;
    for (int trial = 0; trial < 4000; ++trial) {
      std::vector<uint8_t> bad = bytes;
      int flips = 1 + trial % 4;
      for (int f = 0; f < flips; ++f) bad[pos(rng)] ^= static_cast<uint8_t>(1u << (rng() % 8));
      FixCrc(bad);
      StatusOr<Program> p = DecodeStream(bad, Limits());
      if (p.ok()) {
        ++accepted;
        StatusOr<std::vector<uint8_t>> again = EncodeStream(p->engine, p->instructions, Limits());
        ASSERT_TRUE(again.ok()) << again.status().ToString();
        EXPECT_EQ(*again, bad);
        for (const Instruction& i : p->instructions) {
          StatusOr<Instruction> text = ParseInstruction(FormatInstruction(i));
          ASSERT_TRUE(text.ok()) << FormatInstruction(i) << ": " << text.status().ToString();
          EXPECT_EQ(*text, i) << FormatInstruction(i);
        }
      } else {
        EXPECT_EQ(p.status().code(), StatusCode::kInvalid);
      }
    }
    EXPECT_LT(accepted, 4000);
  }
}

TEST(EncodingTest, GarbageAfterTheMagicNeverCrashes) {
  std::mt19937 rng(777);
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<uint8_t> bytes(kStreamHeaderBytes + rng() % 600);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
    std::memcpy(bytes.data(), kStreamMagic, 8);
    bytes[8] = 1;
    bytes[9] = 0;
    bytes[10] = static_cast<uint8_t>(rng() % kEngineCount);
    bytes[11] = 0;
    uint32_t body = static_cast<uint32_t>(bytes.size() - kStreamHeaderBytes);
    uint32_t count = trial % 2 ? rng() : 1 + rng() % 8;
    for (int i = 0; i < 4; ++i) {
      bytes[12 + i] = static_cast<uint8_t>(count >> (8 * i));
      bytes[16 + i] = static_cast<uint8_t>(body >> (8 * i));
    }
    std::memset(bytes.data() + 24, 0, 8);
    FixCrc(bytes);
    StatusOr<Program> p = DecodeStream(bytes, Limits());
    if (!p.ok()) {
      EXPECT_EQ(p.status().code(), StatusCode::kInvalid);
    }
  }
}

TEST(EncodingTest, HugeCountDoesNotAllocate) {
  std::vector<uint8_t> bytes = Encode(Engine::kSp, {Instruction{Opcode::kNotifyEnd}});
  for (int i = 0; i < 4; ++i) bytes[12 + i] = 0xFF;
  FixCrc(bytes);
  StatusOr<Program> p = DecodeStream(bytes, Limits());
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("count"), std::string::npos);
}

TEST(EncodingTest, HeaderFieldsAreChecked) {
  std::vector<uint8_t> good = Encode(Engine::kSp, {Instruction{Opcode::kNotifyEnd}});
  struct Case {
    size_t offset;
    uint8_t value;
    const char* expect;
  };
  for (const Case& c : {Case{8, 2, "version"}, Case{10, 9, "engine"}, Case{11, 1, "reserved"},
                        Case{30, 1, "reserved"}, Case{16, 0, "body"}}) {
    std::vector<uint8_t> bad = good;
    bad[c.offset] = c.value;
    FixCrc(bad);
    StatusOr<Program> p = DecodeStream(bad, Limits());
    ASSERT_FALSE(p.ok()) << c.offset;
    EXPECT_NE(p.status().message().find(c.expect), std::string::npos) << p.status().message();
  }
  std::vector<uint8_t> trailing = good;
  trailing.push_back(0);
  EXPECT_FALSE(DecodeStream(trailing, Limits()).ok());
}

TEST(EncodingTest, RecordChecks) {
  Instruction i{Opcode::kNotifyEnd};
  std::vector<uint8_t> rec;
  EncodeInstruction(i, rec);
  size_t used = 0;
  ASSERT_TRUE(DecodeInstruction(rec, &used).ok());
  EXPECT_EQ(used, kMinRecordBytes);
  auto expect_bad = [&](size_t offset, uint8_t value, const char* what) {
    std::vector<uint8_t> bad = rec;
    bad[offset] = value;
    StatusOr<Instruction> r = DecodeInstruction(bad, &used);
    ASSERT_FALSE(r.ok()) << what;
    EXPECT_NE(r.status().message().find(what), std::string::npos) << r.status().message();
  };
  expect_bad(0, 0x7E, "unknown opcode 0x7e");
  expect_bad(2, 56, "record size");
  expect_bad(4, 5, "counts");
  expect_bad(6, 0x20, "counts");
  expect_bad(7, 1, "reserved");
  expect_bad(19, 1, "reserved");
  expect_bad(44, 1, "reserved");
}

}  // namespace
}  // namespace trnsim::isa
