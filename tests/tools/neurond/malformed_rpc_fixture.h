// MalformedRpcTest: the fixture of neurond's malformed-RPC suite (malformed_rpc_test.cc: keys,
// handles, ranges and sizes; malformed_stream_test.cc: streams, executions, collectives and
// timeouts). Each test opens a bystander Tenant — a session holding cores, memory and the copy
// program — and ends by checking the daemon still serves it correctly. The RPC calls below are
// the ones these suites send with out-of-range fields; the common ones are in rpc_calls.h.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include "tests/tools/neurond/service_test_fixture.h"

namespace trnsim::neurond {

inline constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

inline uint32_t Copy(RawClient& client, uint64_t src, uint64_t src_offset, uint64_t dst,
                     uint64_t dst_offset, uint64_t size) {
  v1::CopyRequest request;
  request.set_src_handle(src);
  request.set_src_offset(src_offset);
  request.set_dst_handle(dst);
  request.set_dst_offset(dst_offset);
  request.set_size(size);
  v1::CopyResponse response;
  EXPECT_TRUE(client.stub().Copy(client.Context().get(), request, &response).ok());
  return response.status().code();
}

inline uint32_t Fill(RawClient& client, uint64_t handle, uint64_t offset, uint64_t size,
                     uint32_t value = 0x5a) {
  v1::FillRequest request;
  request.set_handle(handle);
  request.set_offset(offset);
  request.set_size(size);
  request.set_value(value);
  v1::FillResponse response;
  EXPECT_TRUE(client.stub().Fill(client.Context().get(), request, &response).ok());
  return response.status().code();
}

inline uint32_t PeerRpc(RawClient& client, const v1::PointToPointRequest& request,
                        v1::PointToPointResponse* out = nullptr) {
  v1::PointToPointResponse response;
  EXPECT_TRUE(client.stub().PointToPoint(client.Context().get(), request, &response).ok());
  if (out != nullptr) *out = response;
  return response.status().code();
}

inline v1::PointToPointRequest PeerPost(uint64_t comm, uint64_t memory, uint64_t offset,
                                        uint64_t length) {
  v1::PointToPointRequest request;
  request.set_op(v1::PEER_POST);
  request.set_id(comm);
  request.set_memory_handle(memory);
  request.set_offset(offset);
  request.set_length(length);
  return request;
}

inline v1::HostCollectiveRequest Collective(v1::HostCollectiveKind kind, const std::string& name,
                                            uint32_t rank, uint32_t world, const std::string& input,
                                            uint64_t timeout_ms = 5000) {
  v1::HostCollectiveRequest request;
  request.set_kind(kind);
  request.set_communicator(name);
  request.set_rank(rank);
  request.set_world_size(world);
  request.set_input(input);
  request.set_timeout_ms(timeout_ms);
  return request;
}

inline uint32_t HostCollective(RawClient& client, const v1::HostCollectiveRequest& request,
                               std::string* output = nullptr) {
  v1::HostCollectiveResponse response;
  EXPECT_TRUE(client.stub().HostCollective(client.Context().get(), request, &response).ok());
  if (output != nullptr) *output = response.output();
  return response.status().code();
}

// One core running the copy program with var1 = src and var2 = dst (64 bytes each, offset 0).
inline v1::ExecuteRequest CopyExecution(uint64_t program, int core, uint64_t src, uint64_t dst) {
  v1::ExecuteRequest request;
  v1::CoreExecution* run = request.add_cores();
  run->set_program(program);
  run->set_physical_core(core);
  for (auto [var, memory] : {std::pair{1u, src}, std::pair{2u, dst}}) {
    v1::VarBinding* binding = run->add_vars();
    binding->set_var_id(var);
    binding->set_memory(memory);
    binding->set_size(64);
  }
  return request;
}

inline uint32_t Execute(RawClient& client, const v1::ExecuteRequest& request) {
  v1::ExecuteResponse response;
  EXPECT_TRUE(client.stub().Execute(client.Context().get(), request, &response).ok());
  return response.status().code();
}

// 64 bytes that differ with `seed`.
inline std::string Pattern(int seed, size_t size = 64) {
  std::string bytes(size, '\0');
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>(seed * 31 + i * 7 + 1);
  return bytes;
}

class MalformedRpcTest : public NeurondServiceTest {
 protected:
  // A session that holds two cores, two 64-byte allocations and the copy program.
  struct Tenant {
    std::unique_ptr<RawClient> client;
    int core = 0;
    uint64_t src = 0, dst = 0, program = 0;
  };

  Tenant Open(int first_core) {
    Tenant tenant;
    tenant.client = Connect();
    tenant.core = first_core;
    EXPECT_EQ(AcquireCores(*tenant.client, first_core, 2), kOk);
    v1::AllocateResponse src = Allocate(*tenant.client, 64);
    v1::AllocateResponse dst = Allocate(*tenant.client, 64);
    EXPECT_EQ(src.status().code(), kOk);
    EXPECT_EQ(dst.status().code(), kOk);
    tenant.src = src.info().handle();
    tenant.dst = dst.info().handle();
    const std::string image = SerializedProgram(kCopyProgram);
    v1::LoadProgramResponse loaded =
        LoadStream(*tenant.client, {LoadHeader(image.size()), LoadChunk(image)});
    EXPECT_EQ(loaded.status().code(), kOk) << loaded.status().message();
    tenant.program = loaded.program();
    return tenant;
  }

  // The daemon still serves `tenant` correctly: a round trip of fresh memory, and an execution
  // of its program whose output is its input.
  void ExpectServesCorrectly(Tenant& tenant) {
    SCOPED_TRACE("the bystander session");
    ExpectServing(*tenant.client);
    const std::string input = Pattern(++executions_);
    ASSERT_EQ(WriteStream(*tenant.client, {Header(tenant.src, 0, 64), Data(input)}), kOk);
    ASSERT_EQ(
        Execute(*tenant.client, CopyExecution(tenant.program, tenant.core, tenant.src, tenant.dst)),
        kOk);
    std::string output;
    ASSERT_EQ(ReadBytes(*tenant.client, tenant.dst, 0, 64, &output), kOk);
    EXPECT_EQ(output, input);
  }

  int executions_ = 0;
};

}  // namespace trnsim::neurond
