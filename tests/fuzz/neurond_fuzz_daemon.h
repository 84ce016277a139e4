// The daemon neurond_service_fuzzer drives: one NeurondService over a trn2.3xlarge sim device,
// built once per process, with small limits (FuzzServiceOptions) and served over one end of a
// socketpair (the fuzzer's file comment says why not InProcessChannel); and the built-in
// programs an input may load (copy, vector add, an endless loop, matmul). Also what both daemon
// fuzzers share: Fail and the reply checks.
#pragma once

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "driver/device.h"
#include "proto/neurond.grpc.pb.h"
#include "tools/neurond/service.h"

namespace trnsim::neurond::fuzz {

inline constexpr char kToken[] = "fuzz-token";

// Writes `what` to stderr and aborts: a finding.
[[noreturn]] void Fail(const std::string& what);

// The reply checks of both daemon fuzzers (neurond_service_fuzzer, neurond_cluster_fuzzer).
// NEUROND_FUZZ_VERBOSE=1 prints every reply on stderr (to check what a seed does).
bool Verbose();
// Fails when an error NrtStatus has no message.
void CheckReply(const char* rpc, const v1::NrtStatus& status);
// Fails unless `status` is one the protocols allow: OK, UNAUTHENTICATED, RESOURCE_EXHAUSTED (a
// message over the size limit), or CANCELLED when the fuzzer cancelled the call itself. UNKNOWN
// is an exception that escaped a handler.
void CheckGrpc(const char* rpc, const grpc::Status& status, bool cancelled = false);

// At most 4 sessions, 32 MiB each; executions capped at 2^16 events and 500 ms; traces small.
ServiceOptions FuzzServiceOptions();

// The built-in programs as serialised ProgramImages, in a fixed order.
const std::vector<std::string>& Templates();

struct Daemon {
  std::unique_ptr<driver::Device> device;
  std::unique_ptr<NeurondService> service;
  std::unique_ptr<grpc::Server> server;
  std::unique_ptr<v1::Neurond::Stub> stub;
  std::vector<uint64_t> hbm_used;  // per HBM stack of chip 0, before any session
};

// Built on first use, never destroyed (its threads may outlive any static destructor order).
Daemon& TheDaemon();

}  // namespace trnsim::neurond::fuzz
