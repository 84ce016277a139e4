// A bounded load test of neurond (issue 20): the program itself on a trn2.48xlarge, and 16
// client processes at once, each this test's libnrt Runtime (TRNSIM_DAEMON, LNC 1, its own
// core through NEURON_RT_VISIBLE_CORES) looping 100 times over: allocate three tensors, write
// two, execute a small vector add (even iterations) or copy one tensor into another (odd ones),
// read the result and compare it with what it must be, free. Four of the clients are SIGKILLed
// once they are halfway, in the middle of their loop. Every surviving client must verify all
// its iterations, and then the daemon's Status RPC must show the held cores, the HBM bytes used
// and the sessions of the baseline read before the clients started. The clients are forked
// before this process opens any gRPC channel (gRPC does not survive a fork), and wait on a
// pipe for the baseline to be read. Payloads are small (2 KiB tensors) so the 1,600 iterations
// take seconds on a 2-core machine; the counts are the issue's.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/env.h"
#include "proto/neurond.grpc.pb.h"
#include "runtime/runtime.h"
#include "tests/tools/neurond/child_process.h"
#include "tests/tools/neurond/test_client.h"
#include "tools/kernel_builder/kernel_builder.h"
#include "tools/samples/reference/samples.h"
#include "tools/samples/sample_kernels.h"

namespace trnsim::neurond {
namespace {

using testing::RawClient;
using testing::Spawn;
using testing::TempDir;

constexpr int kClients = 16;
constexpr int kIterations = 100;
constexpr int kKilledAfter = kIterations / 2;  // victims report then, and are killed
constexpr int kRows = 128, kCols = 4;          // the vector add's [128, 4] fp32 tensors
constexpr uint64_t kBytes = kRows * kCols * sizeof(float);

bool IsVictim(int client) { return client % 4 == 3; }  // 3, 7, 11, 15

// out = a + b over [128, 4] fp32: the vector_add sample's generator on a smaller shape.
StatusOr<neff::Neff> VectorAddNeff() {
  samples::SampleSpec spec = samples::internal::VectorAdd(samples::Dtype::kFloat32, 1);
  for (auto* tensors : {&spec.inputs, &spec.outputs}) {
    for (samples::TensorSpec& tensor : *tensors) tensor.shape = {kRows, kCols};
  }
  kb::KernelBuilder k({"load_vector_add", "trn2", 1});
  TRNSIM_RETURN_IF_ERROR(samples::GenerateVectorAdd(spec, k));
  return k.Build();
}

// Records a client writes to the report pipe (2 bytes, so atomic).
constexpr char kHalfway = 'H';  // a victim verified kKilledAfter iterations
constexpr char kFailed = 'F';   // an iteration failed (the client exits 1)

void Report(int fd, int client, char what) {
  const char record[2] = {static_cast<char>(client), what};
  (void)!write(fd, record, sizeof(record));
}

// One iteration of `client`: the status of the first call that failed, or a message naming the
// first wrong byte; empty when everything was right.
std::string Iteration(runtime::model::Model* model, int client, int iteration) {
  runtime::Runtime& rt = runtime::Runtime::Get();
  runtime::TensorTable& tensors = rt.tensors();
  std::vector<float> a(kRows * kCols), b(kRows * kCols), out(kRows * kCols, -1.0f);
  for (size_t j = 0; j < a.size(); ++j) {  // small integers: every sum is exact
    a[j] = static_cast<float>(client * 1000 + iteration * 3 + static_cast<int>(j % 97));
    b[j] = static_cast<float>(static_cast<int>(j) - iteration);
  }
  const bool execute = iteration % 2 == 0;
  std::vector<runtime::Tensor*> allocated;
  runtime::TensorSet* in = nullptr;
  runtime::TensorSet* result = nullptr;
  auto run = [&]() -> Status {
    runtime::Tensor* t[3] = {};
    const char* names[3] = {"a", "b", "out"};
    for (int i = 0; i < 3; ++i) {
      TRNSIM_ASSIGN_OR_RETURN(t[i],
                              tensors.Allocate(runtime::Placement::kDevice, 0, kBytes, names[i]));
      allocated.push_back(t[i]);
    }
    TRNSIM_RETURN_IF_ERROR(tensors.Write(t[0], a.data(), 0, kBytes));
    TRNSIM_RETURN_IF_ERROR(tensors.Write(t[1], b.data(), 0, kBytes));
    if (execute) {
      TRNSIM_ASSIGN_OR_RETURN(in, tensors.AllocateSet());
      TRNSIM_ASSIGN_OR_RETURN(result, tensors.AllocateSet());
      TRNSIM_RETURN_IF_ERROR(tensors.AddToSet(in, "a", t[0]));
      TRNSIM_RETURN_IF_ERROR(tensors.AddToSet(in, "b", t[1]));
      TRNSIM_RETURN_IF_ERROR(tensors.AddToSet(result, "out", t[2]));
      TRNSIM_RETURN_IF_ERROR(rt.executions().Execute(model, in, result, 1));
    } else {
      TRNSIM_RETURN_IF_ERROR(tensors.Copy(t[0], 0, t[2], 0, kBytes));
    }
    return tensors.Read(t[2], out.data(), 0, kBytes);
  };
  Status status = run();
  for (runtime::TensorSet* set : {in, result}) {
    if (set != nullptr && status.ok()) status = tensors.DestroySet(set);
  }
  for (runtime::Tensor* tensor : allocated) {
    Status freed = tensors.Free(tensor);
    if (status.ok()) status = freed;
  }
  if (!status.ok()) return status.ToString();
  for (size_t j = 0; j < out.size(); ++j) {
    const float want = execute ? a[j] + b[j] : a[j];
    if (out[j] != want) {
      return std::string(execute ? "vector add" : "copy") + ": element " + std::to_string(j) +
             " is " + std::to_string(out[j]) + ", not " + std::to_string(want);
    }
  }
  return "";
}

// The body of client process `client`: waits for `go` to close, opens the runtime on its core,
// loads the NEFF and loops. A survivor exits 0 after kIterations verified iterations; a victim
// reports kHalfway and goes on until it is killed. Any failure: one line on stderr, kFailed,
// exit 1.
[[noreturn]] void RunClient(int client, const std::string& address, const neff::Neff& neff, int go,
                            int report) {
  char byte;
  (void)!read(go, &byte, 1);  // EOF: the baseline has been read
  for (const EnvVarInfo& info : EnvTable()) unsetenv(info.name);
  setenv("TRNSIM_DAEMON", address.c_str(), 1);
  setenv("NEURON_LOGICAL_NC_CONFIG", "1", 1);
  setenv("NEURON_RT_VISIBLE_CORES", std::to_string(client).c_str(), 1);
  auto fail = [&](const std::string& message) {
    std::fprintf(stderr, "load client %d: %s\n", client, message.c_str());
    Report(report, client, kFailed);
    _exit(1);
  };
  runtime::Runtime& rt = runtime::Runtime::Get();
  Status init = rt.Init(1, "load_test", "1");
  if (!init.ok()) fail("nrt_init: " + init.ToString());
  StatusOr<runtime::model::Model*> model = rt.models().Load(neff::Neff(neff), 0, -1);
  if (!model.ok()) fail("nrt_load: " + model.status().ToString());
  const int iterations = IsVictim(client) ? 1 << 30 : kIterations;
  for (int i = 0; i < iterations; ++i) {
    std::string error = Iteration(*model, client, i);
    if (!error.empty()) fail("iteration " + std::to_string(i) + ": " + error);
    if (IsVictim(client) && i + 1 == kKilledAfter) Report(report, client, kHalfway);
  }
  rt.Close();
  _exit(0);
}

// SIGKILLs and reaps, on destruction, the processes not reaped yet (a test that fails midway
// leaves no client looping and no daemon running).
struct Processes {
  std::vector<pid_t> pids;
  ~Processes() {
    for (pid_t pid : pids) {
      if (pid <= 0) continue;
      kill(pid, SIGKILL);
      int ignored = 0;
      waitpid(pid, &ignored, 0);
    }
  }
};

struct Held {
  int sessions = 0;
  int cores = 0;
  uint64_t hbm_bytes = 0;
};

Held HeldBy(const v1::StatusResponse& status) {
  Held held;
  held.sessions = status.sessions_size();
  for (const auto& core : status.cores()) held.cores += core.owner_session_id() != 0;
  for (const auto& hbm : status.hbm()) held.hbm_bytes += hbm.used_bytes();
  return held;
}

TEST(NeurondLoadTest, SixteenClientsFourKilledAndEverythingComesBack) {
  StatusOr<neff::Neff> neff = VectorAddNeff();
  ASSERT_TRUE(neff.ok()) << neff.status().ToString();
  TempDir dir;
  const std::string address = "unix:" + (dir.path() / "sock").string();
  const std::string log = (dir.path() / "neurond.log").string();
  Processes processes;  // the daemon, then the clients
  pid_t daemon = Spawn({NEUROND_PATH, "--listen", address, "--instance", "trn2.48xlarge"}, log);
  ASSERT_GT(daemon, 0);
  processes.pids.push_back(daemon);

  int go[2], report[2];
  ASSERT_EQ(pipe(go), 0);
  ASSERT_EQ(pipe(report), 0);
  for (int k = 0; k < kClients; ++k) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(go[1]);
      close(report[0]);
      RunClient(k, address, *neff, go[0], report[1]);
    }
    processes.pids.push_back(pid);
  }
  pid_t* clients = &processes.pids[1];
  close(go[0]);
  close(report[1]);

  // The baseline: this test's own session, before any client connects.
  for (int i = 0; i < 500 && !std::filesystem::exists(dir.path() / "sock"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  auto observer = std::make_unique<RawClient>(address);
  v1::HelloResponse hello;
  ASSERT_TRUE(observer->Hello("", &hello).ok()) << "neurond did not come up on " << address;
  ASSERT_TRUE(observer->Attach());
  v1::StatusResponse status;
  ASSERT_TRUE(
      observer->stub().Status(observer->Context().get(), v1::StatusRequest(), &status).ok());
  const Held baseline = HeldBy(status);
  EXPECT_EQ(baseline.sessions, 1);
  close(go[1]);  // go

  // Kill each victim as soon as it is halfway; survivors run to their end.
  std::set<int> killed, failed;
  while (killed.size() < kClients / 4) {
    pollfd fd = {report[0], POLLIN, 0};
    ASSERT_EQ(poll(&fd, 1, 120'000), 1) << "no report from the clients for 2 minutes";
    char record[2];
    ASSERT_EQ(read(report[0], record, sizeof(record)), 2) << "every client ended early";
    const int client = record[0];
    ASSERT_TRUE(client >= 0 && client < kClients);
    if (record[1] == kFailed) {
      failed.insert(client);
      ADD_FAILURE() << "client " << client << " failed (its line is above)";
      if (IsVictim(client)) killed.insert(client);  // it will not report halfway
      continue;
    }
    ASSERT_EQ(record[1], kHalfway);
    ASSERT_TRUE(IsVictim(client));
    ASSERT_EQ(kill(clients[client], SIGKILL), 0);
    killed.insert(client);
  }
  for (int k = 0; k < kClients; ++k) {
    int wait_status = 0;
    ASSERT_EQ(waitpid(clients[k], &wait_status, 0), clients[k]);
    clients[k] = 0;
    if (IsVictim(k) && !failed.count(k)) {
      EXPECT_TRUE(WIFSIGNALED(wait_status) && WTERMSIG(wait_status) == SIGKILL) << "client " << k;
    } else {
      EXPECT_TRUE(WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0)
          << "client " << k << " did not verify its " << kIterations << " iterations";
    }
  }
  close(report[0]);

  // Everything the clients held comes back once the daemon has seen them go.
  Held after;
  for (int i = 0; i < 500; ++i) {
    ASSERT_TRUE(
        observer->stub().Status(observer->Context().get(), v1::StatusRequest(), &status).ok());
    after = HeldBy(status);
    if (after.sessions == baseline.sessions) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(after.sessions, baseline.sessions);
  EXPECT_EQ(after.cores, baseline.cores);
  EXPECT_EQ(after.hbm_bytes, baseline.hbm_bytes);
  // 12 survivors ran 50 executions each, the victims at least 25 each.
  constexpr uint64_t kSurvivorExecutions = (kClients - kClients / 4) * kIterations / 2;
  EXPECT_GE(status.executions(), kSurvivorExecutions + kClients / 4 * kKilledAfter / 2);

  // And it still serves.
  v1::AllocationRequest request;
  request.set_size_bytes(64);
  request.set_alignment_bytes(64);
  request.set_category(v1::MEMORY_CATEGORY_TENSOR);
  v1::AllocateResponse allocated;
  ASSERT_TRUE(observer->stub().Allocate(observer->Context().get(), request, &allocated).ok());
  EXPECT_EQ(allocated.status().code(), 0u);

  // SIGTERM: the daemon tells the observer, which goes, and exits 0.
  kill(daemon, SIGTERM);
  v1::SessionEvent event;
  ASSERT_TRUE(observer->NextEvent(&event));
  EXPECT_EQ(event.kind(), v1::SessionEvent::KIND_SHUTTING_DOWN);
  observer.reset();
  int daemon_status = 0;
  waitpid(daemon, &daemon_status, 0);
  processes.pids[0] = 0;
  EXPECT_TRUE(WIFEXITED(daemon_status) && WEXITSTATUS(daemon_status) == 0);
}

}  // namespace
}  // namespace trnsim::neurond
