// Chunking of streamed payloads: a ProgramImage several chunks long survives split and
// reassembly bit for bit, the assembler and the counter refuse every stream that does not add
// up, and the chunk prefix is what protobuf itself writes.
#include "driver/remote/chunking.h"

#include <gtest/gtest.h>

#include <string>

#include "driver/remote/convert.h"

namespace trnsim::driver::remote {
namespace {

TEST(ChunkingTest, SplitCoversTheInputWithFullChunksAndAShortLast) {
  const std::string bytes(10, 'x');
  const std::vector<std::string_view> chunks = SplitChunks(bytes, 4);
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[0].size(), 4u);
  EXPECT_EQ(chunks[1].size(), 4u);
  EXPECT_EQ(chunks[2].size(), 2u);
  EXPECT_EQ(chunks[2].data(), bytes.data() + 8);
  EXPECT_TRUE(SplitChunks("", 4).empty());
  EXPECT_EQ(SplitChunks(std::string(kChunkBytes, 'y')).size(), 1u);
}

TEST(ChunkingTest, AProgramImageLargerThanOneChunkIsSplitAndReassembled) {
  driver::ProgramImage image;
  // 2.5 MiB of PE stream with a pattern that catches reordered or dropped chunks.
  image.streams[0].resize(kChunkBytes * 5 / 2);
  for (size_t i = 0; i < image.streams[0].size(); ++i)
    image.streams[0][i] = uint8_t((i * 2654435761u) >> 13);
  image.streams[3] = {1, 2, 3};
  simulator::dma::Descriptor d;
  d.id = 7;
  d.sources.resize(1);
  d.dest.var_id = 4;
  image.descriptors.per_engine[4].push_back(d);

  const std::string bytes = SerializeProgramImage(image);
  ASSERT_GT(bytes.size(), 2 * kChunkBytes);
  const std::vector<std::string_view> chunks = SplitChunks(bytes);
  ASSERT_EQ(chunks.size(), 3u);
  for (std::string_view chunk : chunks) EXPECT_LE(chunk.size(), kChunkBytes);

  StatusOr<ChunkAssembler> assembler = ChunkAssembler::Start(bytes.size(), kMaxProgramImageBytes);
  ASSERT_TRUE(assembler.ok());
  for (std::string_view chunk : chunks) ASSERT_TRUE(assembler->Add(chunk).ok());
  EXPECT_EQ(assembler->received_bytes(), bytes.size());
  StatusOr<std::string> whole = std::move(*assembler).Finish();
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  StatusOr<driver::ProgramImage> back = ParseProgramImage(*whole);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->streams[0], image.streams[0]);
  EXPECT_EQ(back->streams[3], image.streams[3]);
  ASSERT_EQ(back->descriptors.per_engine[4].size(), 1u);
  EXPECT_EQ(back->descriptors.per_engine[4][0].dest.var_id, 4u);
}

TEST(ChunkingTest, ATotalOverTheLimitIsRefusedBeforeAnyAllocation) {
  StatusOr<ChunkAssembler> assembler = ChunkAssembler::Start(uint64_t{1} << 62, 1 << 20);
  ASSERT_FALSE(assembler.ok());
  EXPECT_EQ(assembler.status().code(), StatusCode::kInvalid);
  EXPECT_NE(assembler.status().message().find("over the limit"), std::string::npos);
}

TEST(ChunkingTest, StreamsThatDoNotAddUpAreRefused) {
  const std::string chunk(100, 'z');
  {
    StatusOr<ChunkAssembler> a = ChunkAssembler::Start(150, 1000);
    ASSERT_TRUE(a.ok());
    ASSERT_TRUE(a->Add(chunk).ok());
    const Status past = a->Add(chunk);  // 200 > 150
    EXPECT_EQ(past.code(), StatusCode::kInvalid);
    EXPECT_NE(past.message().find("pass the announced total of 150"), std::string::npos);
    // The assembler stays refused, even for a chunk that would have fitted.
    EXPECT_FALSE(a->Add(std::string_view(chunk).substr(0, 50)).ok());
    EXPECT_FALSE(std::move(*a).Finish().ok());
  }
  {
    StatusOr<ChunkAssembler> a = ChunkAssembler::Start(250, 1000);
    ASSERT_TRUE(a.ok());
    ASSERT_TRUE(a->Add(chunk).ok());
    StatusOr<std::string> truncated = std::move(*a).Finish();
    ASSERT_FALSE(truncated.ok());
    EXPECT_NE(truncated.status().message().find("100 of 250 bytes"), std::string::npos);
  }
  {
    StatusOr<ChunkAssembler> a = ChunkAssembler::Start(kChunkBytes + 1, kChunkBytes * 4);
    ASSERT_TRUE(a.ok());
    const Status big = a->Add(std::string(kChunkBytes + 1, 'b'));
    EXPECT_EQ(big.code(), StatusCode::kInvalid);
    EXPECT_NE(big.message().find("larger than the chunk size"), std::string::npos);
  }
  {
    StatusOr<ChunkAssembler> a = ChunkAssembler::Start(10, 1000);
    ASSERT_TRUE(a.ok());
    EXPECT_EQ(a->Add("").code(), StatusCode::kInvalid);
  }
  {
    StatusOr<ChunkAssembler> a = ChunkAssembler::Start(0, 1000);  // an empty payload is fine
    ASSERT_TRUE(a.ok());
    StatusOr<std::string> empty = std::move(*a).Finish();
    ASSERT_TRUE(empty.ok());
    EXPECT_TRUE(empty->empty());
  }
}

TEST(ChunkingTest, TheCounterChecksEachChunkAsItArrives) {
  ChunkCounter counter(10);
  EXPECT_EQ(counter.Accept(4).code(), StatusCode::kOk);
  EXPECT_EQ(counter.received_bytes(), 4u);
  EXPECT_EQ(counter.CheckComplete().code(), StatusCode::kInvalid);  // 4 of 10
  EXPECT_EQ(counter.Accept(6).code(), StatusCode::kOk);
  EXPECT_EQ(counter.CheckComplete().code(), StatusCode::kOk);

  ChunkCounter past_total(10);
  ASSERT_TRUE(past_total.Accept(8).ok());
  EXPECT_EQ(past_total.Accept(3).code(), StatusCode::kInvalid);
  EXPECT_EQ(past_total.received_bytes(), 8u);  // the refused chunk is not counted
  EXPECT_EQ(past_total.Accept(2).code(), StatusCode::kInvalid);  // nothing after an error
  EXPECT_EQ(past_total.CheckComplete().code(), StatusCode::kInvalid);

  ChunkCounter empty(10);
  EXPECT_EQ(empty.Accept(0).code(), StatusCode::kInvalid);
  ChunkCounter oversized(4 * kChunkBytes);
  EXPECT_EQ(oversized.Accept(kChunkBytes + 1).code(), StatusCode::kInvalid);
  ChunkCounter nothing(0);
  EXPECT_EQ(nothing.CheckComplete().code(), StatusCode::kOk);
}

TEST(ChunkingTest, TheChunkPrefixIsProtobufsOwn) {
  for (uint64_t size : {uint64_t{0}, uint64_t{1}, uint64_t{127}, uint64_t{128}, uint64_t{16383},
                        uint64_t{16384}, kChunkBytes}) {
    neurond::v1::ReadResponse message;
    message.set_data(std::string(size, 'x'));
    const std::string serialised = message.SerializeAsString();
    uint8_t prefix[kChunkPrefixMaxBytes];
    const size_t used =
        EncodeChunkPrefix(neurond::v1::ReadResponse::kDataFieldNumber, size, prefix);
    if (size == 0) {
      EXPECT_TRUE(serialised.empty());  // proto3 leaves an empty field out; both parse alike
      continue;
    }
    ASSERT_EQ(serialised.size(), used + size) << size;
    EXPECT_EQ(serialised.substr(0, used), std::string(reinterpret_cast<char*>(prefix), used));
  }
}

// CopyChunk reads a data-only message however gRPC split it into slices, and leaves every other
// message (a header, another field, a truncated one) to the ordinary parser.
TEST(ChunkingTest, CopyChunkTakesDataOnlyMessagesApart) {
  neurond::v1::WriteRequest data;
  std::string payload(70'000, '\0');
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>(i * 31 + 7);
  data.set_data(payload);
  const std::string wire = data.SerializeAsString();
  // Three slices, cut inside the prefix and inside the payload.
  grpc::Slice slices[3] = {grpc::Slice(wire.data(), 2), grpc::Slice(wire.data() + 2, 1000),
                           grpc::Slice(wire.data() + 1002, wire.size() - 1002)};
  grpc::ByteBuffer message(slices, 3);
  std::string out(payload.size(), '\0');
  std::optional<uint64_t> size = CopyChunk(message, neurond::v1::WriteRequest::kDataFieldNumber,
                                           reinterpret_cast<uint8_t*>(out.data()), out.size());
  ASSERT_TRUE(size.has_value());
  EXPECT_EQ(*size, payload.size());
  EXPECT_EQ(out, payload);
  // Too large for the room: the size, nothing copied.
  std::string small(10, 'z');
  size = CopyChunk(message, neurond::v1::WriteRequest::kDataFieldNumber,
                   reinterpret_cast<uint8_t*>(small.data()), small.size());
  ASSERT_TRUE(size.has_value());
  EXPECT_EQ(*size, payload.size());
  EXPECT_EQ(small, std::string(10, 'z'));
  // A header, a message with another field too, a truncated one: not a data chunk.
  neurond::v1::WriteRequest header;
  header.mutable_header()->set_size(5);
  neurond::v1::ReadResponse two_fields;
  two_fields.set_data("abc");
  two_fields.mutable_status()->set_code(2);
  for (const std::string& bytes : {header.SerializeAsString(), two_fields.SerializeAsString(),
                                   wire.substr(0, wire.size() - 1)}) {
    grpc::Slice slice(bytes.data(), bytes.size());
    grpc::ByteBuffer other(&slice, 1);
    EXPECT_FALSE(CopyChunk(other, neurond::v1::WriteRequest::kDataFieldNumber,
                           reinterpret_cast<uint8_t*>(out.data()), out.size())
                     .has_value());
  }
}

}  // namespace
}  // namespace trnsim::driver::remote
