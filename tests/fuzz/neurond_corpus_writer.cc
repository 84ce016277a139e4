// neurond_corpus_writer OUTDIR: writes the seed corpus of neurond_service_fuzzer
// (tests/fuzz/corpus/neurond_service/): a few meaningful request sequences in the format of
// neurond_fuzz_input.h. The fuzzer opens sessions A and B before each input.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/fuzz/neurond_fuzz_input.h"

using trnsim::neurond::fuzz::FuzzWriter;
using trnsim::neurond::fuzz::LoadChunk;
using trnsim::neurond::fuzz::Op;
using trnsim::neurond::fuzz::WriteData;
namespace fuzz = trnsim::neurond::fuzz;

namespace {

constexpr uint8_t A = fuzz::kSessionA, B = fuzz::kSessionB;
// Template indices of the fuzzer (Templates()).
constexpr uint8_t kCopy = 0, kVectorAdd = 1, kEndless = 2, kMatmul = 3;

FuzzWriter& Allocate(FuzzWriter& w, uint8_t caller, uint64_t size, uint8_t category = 1) {
  return w.Begin(Op::kAllocate, caller)
      .Value(0)  // chip
      .Value(0)  // hbm
      .Value(size)
      .Value(64)  // alignment
      .Value(0)   // owner core
      .U8(category)
      .Value(0);  // model id
}

FuzzWriter& Acquire(FuzzWriter& w, uint8_t caller, int first, int count) {
  return w.Begin(Op::kAcquireCores, caller).Value(first).Value(count);
}

// A Write of `bytes` to memory handle index `handle`, in one data message.
FuzzWriter& Write(FuzzWriter& w, uint8_t caller, uint8_t handle, const std::string& bytes) {
  w.Begin(Op::kWriteBegin, caller).U8(0).U8(0).Handle(handle).Value(0).Value(bytes.size());
  w.Begin(Op::kWriteData, caller).U8(0).U8(static_cast<uint8_t>(WriteData::kBytes)).Bytes(bytes);
  return w.Begin(Op::kWriteEnd, caller).U8(0);
}

FuzzWriter& Read(FuzzWriter& w, uint8_t caller, uint8_t handle, uint64_t offset, uint64_t size) {
  return w.Begin(Op::kRead, caller).Handle(handle).Value(offset).Value(size);
}

FuzzWriter& LoadTemplate(FuzzWriter& w, uint8_t caller, uint8_t program, uint8_t pieces = 1) {
  return w.Begin(Op::kLoadTemplate, caller).U8(program).U8(0).U8(pieces - 1);
}

struct Var {
  uint32_t id;
  uint8_t handle;
  uint64_t size;
};

// One core running program index `program` on physical core `core` with `vars`.
FuzzWriter& Execute(FuzzWriter& w, uint8_t caller, uint8_t program, int core,
                    std::initializer_list<Var> vars, uint8_t flags = 0, uint64_t timeout = 0) {
  w.Begin(Op::kExecute, caller).U8(1).Handle(program).Value(0).Value(core);
  w.U8(static_cast<uint8_t>(vars.size()));
  for (const Var& var : vars) w.Value(var.id).Handle(var.handle).Value(0).Value(var.size).U8(0);
  return w.U8(flags).Value(timeout);
}

std::string Pattern(size_t n) {
  std::string out(n, '\0');
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<char>(i * 7 + 1);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  auto save = [&](const char* name, const FuzzWriter& w) {
    std::ofstream(dir / name, std::ios::binary) << w.bytes();
  };

  {  // Memory round trip: attach, allocate, write, describe, fill, copy, read, free, status.
    FuzzWriter w;
    w.Begin(Op::kAttach, A);
    Allocate(w, A, 4096);
    Allocate(w, A, 4096);
    Write(w, A, 0, Pattern(4096));
    w.Begin(Op::kDescribe, A).Handle(0);
    w.Begin(Op::kFill, A).Handle(1).Value(0).Value(0x5a).Value(1024);
    w.Begin(Op::kCopy, A).Handle(0).Value(0).Handle(1).Value(1024).Value(2048);
    Read(w, A, 1, 0, 4096);
    w.Begin(Op::kGetHbmUsage, A).Value(0).Value(0);
    w.Begin(Op::kFree, A).Handle(0);
    w.Begin(Op::kStatus, A);
    w.Begin(Op::kGoodbye, A);
    save("memory_round_trip", w);
  }
  {  // Copy program: A runs it on its core; B tries A's program, memory and cores.
    FuzzWriter w;
    Acquire(w, A, 0, 2);
    Acquire(w, B, 2, 2);
    Allocate(w, A, 64);
    Allocate(w, A, 64);
    Write(w, A, 0, Pattern(64));
    LoadTemplate(w, A, kCopy, 2);
    Execute(w, A, 0, 1, {{1, 0, 64}, {2, 1, 64}});
    Read(w, A, 1, 0, 64);
    Execute(w, B, 0, 2, {{1, 0, 64}, {2, 1, 64}});
    LoadTemplate(w, B, kCopy);
    Execute(w, B, 1, 1, {{1, 0, 64}, {2, 1, 64}});
    w.Begin(Op::kFree, B).Handle(0);
    w.Begin(Op::kUnload, B).Handle(0);
    w.Begin(Op::kUnload, A).Handle(0);
    w.Begin(Op::kReleaseCores, A).Value(0).Value(2);
    save("copy_program", w);
  }
  {  // Vector add on core 0 with a recorded trace.
    FuzzWriter w;
    Acquire(w, A, 0, 1);
    for (int i = 0; i < 3; ++i) Allocate(w, A, 128 * 512 * 4);
    Write(w, A, 0, Pattern(4096));
    LoadTemplate(w, A, kVectorAdd, 3);
    Execute(w, A, 0, 0, {{0, 0, 262144}, {1, 1, 262144}, {2, 2, 262144}}, 2);
    Read(w, A, 2, 0, 4096);
    save("vector_add_trace", w);
  }
  {  // Matmul, and the endless loop stopped by the daemon's event budget.
    FuzzWriter w;
    Acquire(w, B, 4, 2);
    Allocate(w, B, 128 * 128 * 2);
    Allocate(w, B, 128 * 512 * 2);
    Allocate(w, B, 128 * 512 * 4);
    LoadTemplate(w, B, kMatmul);
    Execute(w, B, 0, 4, {{0, 0, 32768}, {1, 1, 131072}, {2, 2, 262144}});
    LoadTemplate(w, B, kEndless);
    Execute(w, B, 1, 5, {}, 0, 0);
    save("matmul_and_endless", w);
  }
  {  // Two LoadProgram streams open at once, chunks out of order, one cancelled, one finished.
    FuzzWriter w;
    w.Begin(Op::kLoadBegin, A).U8(0).U8(0).U8(kVectorAdd);
    w.Begin(Op::kLoadBegin, B).U8(1).U8(4).U8(kCopy).Value(7).Bytes("model").Bytes("");
    w.Begin(Op::kLoadChunk, A)
        .U8(0)
        .U8(static_cast<uint8_t>(LoadChunk::kSlice))
        .Value(100)
        .Value(50);
    w.Begin(Op::kLoadChunk, A).U8(0).U8(static_cast<uint8_t>(LoadChunk::kNext)).Value(100);
    w.Begin(Op::kLoadChunk, B).U8(1).U8(static_cast<uint8_t>(LoadChunk::kNext)).Value(60000);
    w.Begin(Op::kLoadChunk, A).U8(0).U8(static_cast<uint8_t>(LoadChunk::kHeader)).U8(0);
    w.Begin(Op::kLoadEnd, B).U8(1);
    w.Begin(Op::kLoadEnd, A | 4).U8(0);
    w.Begin(Op::kLoadBegin, A).U8(2).U8(2).U8(kCopy).Value(uint64_t{1} << 29);
    w.Begin(Op::kLoadChunk, A).U8(2).U8(static_cast<uint8_t>(LoadChunk::kBig)).Value(1 << 20);
    w.Begin(Op::kGoodbye, A);
    w.Begin(Op::kLoadEnd, A).U8(2);
    save("load_streams", w);
  }
  {  // Write streams: header range checks, a chunk past the total, a second header, truncation.
    FuzzWriter w;
    Allocate(w, A, 1024);
    w.Begin(Op::kWriteBegin, A).U8(0).U8(0).Handle(0).Value(512).Value(512);
    w.Begin(Op::kWriteBegin, B).U8(1).U8(0).Handle(0).Value(0).Value(16);
    w.Begin(Op::kWriteData, A).U8(0).U8(static_cast<uint8_t>(WriteData::kFill)).Value(256).U8(1);
    w.Begin(Op::kWriteData, A).U8(0).U8(static_cast<uint8_t>(WriteData::kFill)).Value(512).U8(2);
    w.Begin(Op::kWriteData, B)
        .U8(1)
        .U8(static_cast<uint8_t>(WriteData::kHeader))
        .Handle(0)
        .Value(1);
    w.Begin(Op::kWriteEnd, A).U8(0);
    w.Begin(Op::kWriteEnd, B).U8(1);
    w.Begin(Op::kWriteBegin, A).U8(2).U8(0).Handle(0).Value(0).Value(1024);
    w.Begin(Op::kWriteData, A).U8(2).U8(static_cast<uint8_t>(WriteData::kBytes)).Bytes("abc");
    w.Begin(Op::kBreakAttach, A);
    w.Begin(Op::kWriteEnd, A | 4).U8(2);
    Read(w, A, 0, 1000, 100);
    save("write_streams", w);
  }
  {  // Collectives and point-to-point: a one-rank barrier, an all-gather across A and B, a
     // point-to-point pair on A's logical core, B touching A's ids.
    FuzzWriter w;
    Acquire(w, A, 0, 2);
    Allocate(w, A, 4096);
    w.Begin(Op::kHostCollective, A)
        .Value(0)
        .Bytes("job")
        .Value(0)
        .Value(1)
        .Value(0)
        .Bytes("")
        .Value(10);
    w.Begin(Op::kHostCollective, A)
        .Value(1)
        .Bytes("ag")
        .Value(0)
        .Value(2)
        .Value(0)
        .Bytes("abcd")
        .Value(5);
    w.Begin(Op::kHostCollective, B)
        .Value(1)
        .Bytes("ag")
        .Value(1)
        .Value(2)
        .Value(0)
        .Bytes("efgh")
        .Value(5);
    // OPEN send side, logical core 0 to peer 1; then TEST, POST, CLOSE; B's attempts.
    w.Begin(Op::kPointToPoint, A)
        .Value(0)
        .Value(0)
        .Value(0)
        .Value(1)
        .LiteralHandle(0)
        .LiteralHandle(0)
        .Value(0)
        .Value(0)
        .U8(0);
    w.Begin(Op::kPointToPoint, A)
        .Value(1)
        .Value(0)
        .Value(0)
        .Value(1)
        .Handle(0)
        .LiteralHandle(0)
        .Value(0)
        .Value(0)
        .U8(0);
    w.Begin(Op::kPointToPoint, A)
        .Value(2)
        .Value(0)
        .Value(0)
        .Value(1)
        .Handle(0)
        .Handle(0)
        .Value(0)
        .Value(1024)
        .U8(0);
    w.Begin(Op::kPointToPoint, B)
        .Value(3)
        .Value(0)
        .Value(0)
        .Value(1)
        .Handle(1)
        .Handle(0)
        .Value(0)
        .Value(0)
        .U8(0);
    w.Begin(Op::kPointToPoint, B)
        .Value(4)
        .Value(1)
        .Value(0)
        .Value(1)
        .Handle(0)
        .Handle(0)
        .Value(0)
        .Value(0)
        .U8(1);
    w.Begin(Op::kPointToPoint, A)
        .Value(4)
        .Value(0)
        .Value(0)
        .Value(1)
        .Handle(0)
        .Handle(0)
        .Value(0)
        .Value(0)
        .U8(1);
    save("collectives_and_peers", w);
  }
  {  // Sessions: a new Hello with faults, forged and missing keys, the session limit.
    FuzzWriter w;
    w.Begin(Op::kHello, A).U8(4 | 8).Bytes("corrupt:exec=1").Bytes("client").Value(42);
    w.Begin(Op::kHello, B).U8(1).Value(99).Value(7);
    w.Begin(Op::kHello, B).U8(2).Bytes("wrong").Value(7);
    w.Begin(Op::kHello, B).U8(0).Value(8);
    w.Begin(Op::kHello, B).U8(0).Value(9);
    Allocate(w, fuzz::kStaleKey, 4096);
    Allocate(w, fuzz::kNoKey, 4096);
    w.Begin(Op::kAttach, A);
    w.Begin(Op::kAttach, A);
    w.Begin(Op::kStatus, fuzz::kStaleKey);
    Allocate(w, A, uint64_t{64} << 20);
    Allocate(w, A, 16 << 20);
    Allocate(w, A, 16 << 20);
    w.Begin(Op::kGoodbye, A);
    w.Begin(Op::kGoodbye, A);
    save("sessions", w);
  }
  return 0;
}
