#include "tests/tools/neurond/rpc_calls.h"

#include <gtest/gtest.h>

#include <utility>

#include "driver/remote/convert.h"
#include "simulator/isa/encoding.h"
#include "simulator/isa/limits.h"
#include "simulator/isa/text.h"
#include "simulator/spec/chip_spec.h"

namespace trnsim::neurond {

driver::ProgramImage AssembleImage(const char* text) {
  driver::ProgramImage image;
  StatusOr<isa::Program> program = isa::ParseProgram(text);
  EXPECT_TRUE(program.ok()) << program.status().ToString();
  if (!program.ok()) return image;
  StatusOr<std::vector<uint8_t>> stream = isa::EncodeStream(
      program->engine, program->instructions, isa::LimitsFor(simulator::Trainium2Spec()));
  EXPECT_TRUE(stream.ok()) << stream.status().ToString();
  if (stream.ok()) image.streams[static_cast<size_t>(program->engine)] = *stream;
  return image;
}

std::string SerializedProgram(const char* text) {
  return driver::remote::SerializeProgramImage(AssembleImage(text));
}

namespace {

v1::CoreRange Range(int first, int count) {
  v1::CoreRange range;
  range.set_first_physical_core(first);
  range.set_count(count);
  return range;
}

v1::MemoryRef Memory(uint64_t handle) {
  v1::MemoryRef ref;
  ref.set_handle(handle);
  return ref;
}

}  // namespace

uint32_t AcquireCores(RawClient& client, int first, int count) {
  v1::AcquireCoresResponse response;
  EXPECT_TRUE(
      client.stub().AcquireCores(client.Context().get(), Range(first, count), &response).ok());
  return response.status().code();
}

uint32_t ReleaseCores(RawClient& client, int first, int count) {
  v1::ReleaseCoresResponse response;
  EXPECT_TRUE(
      client.stub().ReleaseCores(client.Context().get(), Range(first, count), &response).ok());
  return response.status().code();
}

uint32_t Free(RawClient& client, uint64_t handle) {
  v1::FreeResponse response;
  EXPECT_TRUE(client.stub().Free(client.Context().get(), Memory(handle), &response).ok());
  return response.status().code();
}

uint32_t Describe(RawClient& client, uint64_t handle) {
  v1::DescribeResponse response;
  EXPECT_TRUE(client.stub().Describe(client.Context().get(), Memory(handle), &response).ok());
  return response.status().code();
}

uint32_t Unload(RawClient& client, uint64_t program) {
  v1::ProgramRef ref;
  ref.set_program(program);
  v1::UnloadProgramResponse response;
  EXPECT_TRUE(client.stub().UnloadProgram(client.Context().get(), ref, &response).ok());
  return response.status().code();
}

v1::LoadProgramRequest LoadHeader(uint64_t image_bytes) {
  v1::LoadProgramRequest request;
  request.mutable_header()->set_image_bytes(image_bytes);
  return request;
}

v1::LoadProgramRequest LoadChunk(std::string bytes) {
  v1::LoadProgramRequest request;
  request.set_chunk(std::move(bytes));
  return request;
}

v1::LoadProgramResponse LoadStream(RawClient& client,
                                   const std::vector<v1::LoadProgramRequest>& messages) {
  auto context = client.Context();
  v1::LoadProgramResponse response;
  auto writer = client.stub().LoadProgram(context.get(), &response);
  for (const auto& message : messages) {
    if (!writer->Write(message)) break;  // the daemon answered early
  }
  writer->WritesDone();
  grpc::Status status = writer->Finish();
  EXPECT_TRUE(status.ok()) << status.error_message();
  return response;
}

v1::LoadProgramResponse LoadProgram(RawClient& client, const std::string& image) {
  return LoadStream(client, {LoadHeader(image.size()), LoadChunk(image)});
}

}  // namespace trnsim::neurond
