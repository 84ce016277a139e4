// One-line neurond RPC calls for the service tests (raw gRPC, no remote back end): each sends
// exactly the request its arguments describe, expects the gRPC call itself to succeed, and
// returns the reply's NrtStatus code (or the whole reply where tests read more of it). Also the
// two small programs the tests load, as text and as serialised ProgramImages.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "driver/execution_types.h"
#include "proto/neurond.grpc.pb.h"
#include "tests/tools/neurond/test_client.h"

namespace trnsim::neurond {

using testing::RawClient;

// 16 fp32 (64 bytes) from var1 to var2, on the SP engine.
inline constexpr char kCopyProgram[] =
    ".engine sp\n"
    "dma_copy dst=hbm[var2 + 0, [1 x 16, 16 x 1]] fp32 src=hbm[var1 + 0, [1 x 16, 16 x 1]] fp32\n"
    "notify_end\n";

// A program that never ends: the pool engine branches back forever (two scheduler events per
// branch).
inline constexpr char kEndlessProgram[] =
    ".engine pool\n"
    "reg_set r1 = 0\n"
    "branch r1 == 0 -> 1\n"
    "notify_end\n";

// A one-engine program in trnsim's assembly, encoded for Trainium2 (fails the test if it does
// not assemble), and the same serialised as LoadProgram carries it.
driver::ProgramImage AssembleImage(const char* text);
std::string SerializedProgram(const char* text);

uint32_t AcquireCores(RawClient& client, int first, int count);
uint32_t ReleaseCores(RawClient& client, int first, int count);
uint32_t Free(RawClient& client, uint64_t handle);
uint32_t Describe(RawClient& client, uint64_t handle);
uint32_t Unload(RawClient& client, uint64_t program);

// LoadProgram stream messages, and a stream sending `messages` in order (stopping at the first
// Write the daemon no longer takes: it answered early).
v1::LoadProgramRequest LoadHeader(uint64_t image_bytes);
v1::LoadProgramRequest LoadChunk(std::string bytes);
v1::LoadProgramResponse LoadStream(RawClient& client,
                                   const std::vector<v1::LoadProgramRequest>& messages);
// A whole image in one chunk after its header.
v1::LoadProgramResponse LoadProgram(RawClient& client, const std::string& image);

}  // namespace trnsim::neurond
