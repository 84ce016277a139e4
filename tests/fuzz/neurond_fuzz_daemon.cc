#include "tests/fuzz/neurond_fuzz_daemon.h"

#include <grpcpp/create_channel_posix.h>
#include <grpcpp/server_posix.h>
#include <sys/socket.h>

#include <cstdio>
#include <cstdlib>

#include "driver/remote/chunking.h"
#include "driver/remote/convert.h"
#include "driver/remote/transport.h"
#include "driver/sim/sim_device.h"
#include "simulator/isa/encoding.h"
#include "simulator/isa/limits.h"
#include "simulator/isa/text.h"
#include "simulator/spec/chip_spec.h"
#include "simulator/spec/instance_spec.h"

namespace trnsim::neurond::fuzz {

ServiceOptions FuzzServiceOptions() {
  ServiceOptions options;
  options.token = kToken;
  options.max_sessions = 4;
  options.max_session_memory_bytes = uint64_t{32} << 20;
  options.attach_grace = std::chrono::minutes(10);  // no reaping in the middle of an input
  options.max_trace_events = 4096;
  options.max_trace_bytes = uint64_t{1} << 20;
  options.max_exec_events = uint64_t{1} << 16;
  options.max_exec_time = std::chrono::milliseconds(500);
  return options;
}

void Fail(const std::string& what) {
  std::fprintf(stderr, "neurond fuzzer: %s\n", what.c_str());
  std::abort();
}

bool Verbose() {
  static const bool verbose = std::getenv("NEUROND_FUZZ_VERBOSE") != nullptr;
  return verbose;
}

void CheckReply(const char* rpc, const v1::NrtStatus& status) {
  if (Verbose()) {
    std::fprintf(stderr, "  %s: %u %s\n", rpc, status.code(), status.message().c_str());
  }
  if (status.code() != 0 && status.message().empty()) {
    Fail(std::string(rpc) + ": NrtStatus " + std::to_string(status.code()) + " without a message");
  }
}

void CheckGrpc(const char* rpc, const grpc::Status& status, bool cancelled) {
  if (Verbose() && !status.ok()) {
    std::fprintf(stderr, "  %s: gRPC %d %s\n", rpc, status.error_code(),
                 status.error_message().c_str());
  }
  switch (status.error_code()) {
    case grpc::StatusCode::OK:
    case grpc::StatusCode::UNAUTHENTICATED:
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return;
    case grpc::StatusCode::CANCELLED:
      if (cancelled) return;
      break;
    default:
      break;
  }
  Fail(std::string(rpc) + ": gRPC status " + std::to_string(status.error_code()) + ": " +
       status.error_message());
}

namespace {

// The built-in programs kLoadTemplate and kLoadBegin send (docs/isa.md §11 and the service
// tests): serialised ProgramImages.
constexpr const char* kCopyProgram[] = {
    ".engine sp\n"
    "dma_copy dst=hbm[var2 + 0, [1 x 16, 16 x 1]] fp32 src=hbm[var1 + 0, [1 x 16, 16 x 1]] fp32\n"
    "notify_end\n"};
constexpr const char* kVectorAdd[] = {
    R"(.engine sp
dma_copy dst=sbuf[p0:128, 0 + [512 x 1]] fp32 src=hbm[var0 + 0, [128 x 512, 512 x 1]] fp32 queue=0 then S[0] += 1 @complete
dma_copy dst=sbuf[p0:128, 2048 + [512 x 1]] fp32 src=hbm[var1 + 0, [128 x 512, 512 x 1]] fp32 queue=1 then S[0] += 1 @complete
wait S[1] >= 1 dma_copy dst=hbm[var2 + 0, [128 x 512, 512 x 1]] fp32 src=sbuf[p0:128, 4096 + [512 x 1]] fp32 queue=0 then S[2] += 1 @complete
wait S[2] >= 1 notify_end code=0
)",
    R"(.engine dve
wait S[0] >= 2 tensor_tensor dst=sbuf[p0:128, 4096 + [512 x 1]] fp32 in0=sbuf[p0:128, 0 + [512 x 1]] fp32 in1=sbuf[p0:128, 2048 + [512 x 1]] fp32 op0=add then S[1] += 1 @complete
notify_end code=0
)"};
constexpr const char* kEndless[] = {
    ".engine pool\n"
    "reg_set r1 = 0\n"
    "branch r1 == 0 -> 1\n"
    "notify_end\n"};
constexpr const char* kMatmul[] = {
    R"(.engine sp
dma_copy dst=sbuf[p0:128, 0 + [128 x 1]] bf16 src=hbm[var0 + 0, [128 x 128, 128 x 1]] bf16 queue=0 then S[0] += 1 @complete
dma_copy dst=sbuf[p0:128, 256 + [512 x 1]] bf16 src=hbm[var1 + 0, [128 x 512, 512 x 1]] bf16 queue=1 then S[0] += 1 @complete
wait S[2] >= 1 dma_copy dst=hbm[var2 + 0, [128 x 512, 512 x 1]] fp32 src=sbuf[p0:128, 2048 + [512 x 1]] fp32 queue=0 then S[3] += 1 @complete
wait S[3] >= 1 notify_end code=0
)",
    R"(.engine pe
wait S[0] >= 2 load_stationary stationary=sbuf[p0:128, 0 + [128 x 1]] bf16
multiply_moving dst=psum[p0:128, bank0 + [512 x 1]] fp32 moving=sbuf[p0:128, 256 + [512 x 1]] bf16 first last then S[1] += 1 @complete
notify_end code=0
)",
    R"(.engine act
wait S[1] >= 1 tensor_copy dst=sbuf[p0:128, 2048 + [512 x 1]] fp32 in=psum[p0:128, bank0 + [512 x 1]] fp32 then S[2] += 1 @complete
notify_end code=0
)"};

template <size_t N>
std::string Image(const char* const (&streams)[N]) {
  driver::ProgramImage image;
  const isa::IsaLimits limits = isa::LimitsFor(simulator::Trainium2Spec());
  for (const char* text : streams) {
    StatusOr<isa::Program> program = isa::ParseProgram(text);
    if (!program.ok()) Fail("template: " + program.status().ToString());
    StatusOr<std::vector<uint8_t>> bytes =
        isa::EncodeStream(program->engine, program->instructions, limits);
    if (!bytes.ok()) Fail("template: " + bytes.status().ToString());
    image.streams[static_cast<size_t>(program->engine)] = *bytes;
  }
  return driver::remote::SerializeProgramImage(image);
}

}  // namespace

const std::vector<std::string>& Templates() {
  static const std::vector<std::string> templates = {Image(kCopyProgram), Image(kVectorAdd),
                                                     Image(kEndless), Image(kMatmul)};
  return templates;
}

Daemon& TheDaemon() {
  static Daemon* daemon = [] {
    auto* d = new Daemon();
    StatusOr<const simulator::InstanceSpec*> spec = simulator::FindInstanceSpec("trn2.3xlarge");
    if (!spec.ok()) Fail(spec.status().ToString());
    driver::DeviceOptions device_options;
    device_options.instance = *spec;
    StatusOr<std::unique_ptr<driver::Device>> device = driver::sim::OpenSimDevice(device_options);
    if (!device.ok()) Fail(device.status().ToString());
    d->device = std::move(*device);
    for (int hbm = 0; hbm < (*spec)->chip->hbm_stacks; ++hbm) {
      StatusOr<driver::HbmUsage> usage = d->device->GetHbmUsage(0, hbm);
      if (!usage.ok()) Fail(usage.status().ToString());
      d->hbm_used.push_back(usage->used_bytes);
    }
    d->service = std::make_unique<NeurondService>(d->device.get(), FuzzServiceOptions());
    grpc::ServerBuilder builder;  // no listening port: the in-process channel only
    builder.SetMaxReceiveMessageSize(static_cast<int>(driver::remote::kChunkBytes) + 64 * 1024);
    builder.SetMaxSendMessageSize(driver::remote::kMaxExecuteReplyBytes);
    for (const auto& setting : driver::remote::TransferChannelSettings()) {
      builder.AddChannelArgument(setting.name, setting.value);
    }
    builder.RegisterService(d->service.get());
    d->server = builder.BuildAndStart();
    if (d->server == nullptr) Fail("the gRPC server did not start");
    // A socketpair carries the calls (see the file comment): the server owns one end. Both
    // non-blocking, as gRPC keeps the sockets it makes itself.
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) != 0)
      Fail("socketpair failed");
    grpc::AddInsecureChannelFromFd(d->server.get(), fds[0]);
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(-1);
    args.SetMaxSendMessageSize(-1);
    d->stub =
        v1::Neurond::NewStub(grpc::CreateCustomInsecureChannelFromFd("neurond", fds[1], args));
    return d;
  }();
  return *daemon;
}

}  // namespace trnsim::neurond::fuzz
