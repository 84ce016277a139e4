// Pipelined explicit-async execution (nrta_*) against the synchronous calls, in one run: how
// much of the host's tensor copies trnsim hides behind emulated execution when a client
// pipelines as serving stacks do. The model is the vector_add_fp32 sample (a, b, out: fp32
// [512, 1024], 2 MiB each) on logical core 0 of a trn2.3xlarge at LNC=1. One step is: write a
// and b, execute, read out.
//   Step/0  synchronous: nrt_tensor_write x2, nrt_execute, nrt_tensor_read, in turn
//   Step/1  pipelined: two buffer slots; step i's writes go to the tensor-op queues while step
//           i-1 executes on the compute queue, step i's execution is queued behind step i-1's
//           (the core never waits for the host), and step i-1's read overlaps step i's
//           execution
// items_per_second = steps per second. The summary prints pipelined / synchronous. Every
// output is checked (out = a + b) outside the timed region at the end of each benchmark.
#include <benchmark/benchmark.h>
#include <nrt/nrt.h>
#include <nrt/nrt_async.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "bench/ratio_reporter.h"

namespace {

constexpr size_t kElements = 512 * 1024;
constexpr size_t kBytes = kElements * sizeof(float);

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "async_pipeline_bench: %s\n", what.c_str());
  std::exit(1);
}

void Check(NRT_STATUS status, const char* call) {
  if (status != NRT_SUCCESS) Die(std::string(call) + ": " + nrt_get_status_as_str(status));
}

// One set of model tensors with its host buffers.
struct Slot {
  nrt_tensor_t *a = nullptr, *b = nullptr, *out = nullptr;
  nrt_tensor_set_t *inputs = nullptr, *outputs = nullptr;
  std::vector<float> host_a, host_b, host_out;
};

class Client {
 public:
  Client() {
    setenv("TRNSIM_INSTANCE", "trn2.3xlarge", 1);
    setenv("NEURON_LOGICAL_NC_CONFIG", "1", 1);
    setenv("NEURON_RT_LOG_LEVEL", "WARN", 0);
    Check(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), "nrt_init");
    std::ifstream file(TRNSIM_SAMPLE_NEFF, std::ios::binary);
    std::vector<char> neff((std::istreambuf_iterator<char>(file)), {});
    if (neff.empty()) Die(std::string("cannot read ") + TRNSIM_SAMPLE_NEFF);
    Check(nrt_load(neff.data(), neff.size(), 0, 1, &model_), "nrt_load");
    for (int s = 0; s < 2; ++s) {
      Slot& slot = slots_[s];
      Check(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, kBytes, "a", &slot.a), "alloc");
      Check(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, kBytes, "b", &slot.b), "alloc");
      Check(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, kBytes, "out", &slot.out),
            "alloc");
      Check(nrt_allocate_tensor_set(&slot.inputs), "set");
      Check(nrt_allocate_tensor_set(&slot.outputs), "set");
      Check(nrt_add_tensor_to_tensor_set(slot.inputs, "a", slot.a), "add a");
      Check(nrt_add_tensor_to_tensor_set(slot.inputs, "b", slot.b), "add b");
      Check(nrt_add_tensor_to_tensor_set(slot.outputs, "out", slot.out), "add out");
      slot.host_a.resize(kElements);
      slot.host_b.resize(kElements);
      slot.host_out.assign(kElements, 0.0f);
      for (size_t e = 0; e < kElements; ++e) {
        slot.host_a[e] = float(e % 1000) + float(s);
        slot.host_b[e] = float(e % 7) * 0.5f;
      }
    }
    event_ = eventfd(0, EFD_CLOEXEC);
  }
  ~Client() {
    close(event_);
    nrt_close();
  }

  Slot& slot(int i) { return slots_[i]; }
  nrt_model_t* model() { return model_; }

  // Blocks until request `seq` completes, then checks its status.
  void Wait(nrta_seq_t seq, const NRT_STATUS& ret, const char* what) {
    Check(nrta_event_register_seq_id_completion(seq, event_), "nrta_event_register");
    pollfd p{event_, POLLIN, 0};
    if (poll(&p, 1, 60000) != 1) Die(std::string(what) + " did not complete");
    uint64_t value = 0;
    if (read(event_, &value, sizeof(value)) != ssize_t(sizeof(value))) Die("eventfd read");
    Check(ret, what);
  }

  // Outputs of both slots equal a + b.
  void Verify() {
    for (Slot& slot : slots_) {
      for (size_t e = 0; e < kElements; ++e) {
        if (slot.host_out[e] != slot.host_a[e] + slot.host_b[e]) Die("wrong output");
      }
    }
  }

 private:
  nrt_model_t* model_ = nullptr;
  std::array<Slot, 2> slots_;
  int event_ = -1;
};

Client& TheClient() {
  static Client client;
  return client;
}

void BM_Step(benchmark::State& state) {
  Client& c = TheClient();
  if (state.range(0) == 0) {
    for (auto _ : state) {
      Slot& s = c.slot(0);
      Check(nrt_tensor_write(s.a, s.host_a.data(), 0, kBytes), "write a");
      Check(nrt_tensor_write(s.b, s.host_b.data(), 0, kBytes), "write b");
      Check(nrt_execute(c.model(), s.inputs, s.outputs), "nrt_execute");
      Check(nrt_tensor_read(s.out, s.host_out.data(), 0, kBytes), "read out");
    }
    Slot& s = c.slot(1);  // give the other slot a result too, for Verify
    Check(nrt_tensor_write(s.a, s.host_a.data(), 0, kBytes), "write a");
    Check(nrt_tensor_write(s.b, s.host_b.data(), 0, kBytes), "write b");
    Check(nrt_execute(c.model(), s.inputs, s.outputs), "nrt_execute");
    Check(nrt_tensor_read(s.out, s.host_out.data(), 0, kBytes), "read out");
  } else {
    // Per slot: its requests' statuses and ids. Step i uses slot i % 2.
    struct InFlight {
      NRT_STATUS wa = NRT_SUCCESS, wb = NRT_SUCCESS, ex = NRT_SUCCESS, rd = NRT_SUCCESS;
      nrta_seq_t seq_a = 0, seq_b = 0, seq_exec = 0, seq_read = 0;
      bool executing = false, reading = false;
    };
    std::array<InFlight, 2> flight;
    int64_t i = 0;
    for (auto _ : state) {
      const int now = int(i % 2), before = 1 - now;
      Slot& slot = c.slot(now);
      InFlight& f = flight[now];
      InFlight& g = flight[before];
      // Slot `now` is free once step i-2's output is back.
      if (f.reading) {
        c.Wait(f.seq_read, f.rd, "read out");
        f.reading = false;
      }
      // Step i's inputs go out while step i-1 executes...
      Check(nrta_tensor_write(slot.a, slot.host_a.data(), 0, kBytes, 0, 0, &f.wa, &f.seq_a), "w");
      Check(nrta_tensor_write(slot.b, slot.host_b.data(), 0, kBytes, 0, 1, &f.wb, &f.seq_b), "w");
      c.Wait(f.seq_a, f.wa, "write a");
      c.Wait(f.seq_b, f.wb, "write b");
      // ...and step i queues behind it on the compute queue, so the core never idles.
      Check(nrta_execute_schedule(c.model(), slot.inputs, slot.outputs, 0, &f.ex, &f.seq_exec),
            "nrta_execute_schedule");
      f.executing = true;
      // Step i-1's output comes back while step i executes.
      if (g.executing) {
        c.Wait(g.seq_exec, g.ex, "execution");
        g.executing = false;
        Slot& done = c.slot(before);
        Check(nrta_tensor_read(done.host_out.data(), done.out, 0, kBytes, 0, 0, &g.rd,
                               &g.seq_read),
              "r out");
        g.reading = true;
      }
      ++i;
    }
    // After the timed loop: bring back what is still in flight, so both slots hold a result.
    for (int s = 0; s < 2; ++s) {
      InFlight& f = flight[(i + s) % 2];
      Slot& slot = c.slot(int((i + s) % 2));
      if (f.executing) {
        c.Wait(f.seq_exec, f.ex, "execution");
        Check(nrta_tensor_read(slot.host_out.data(), slot.out, 0, kBytes, 0, 0, &f.rd,
                               &f.seq_read),
              "r out");
        f.reading = true;
      }
      if (f.reading) c.Wait(f.seq_read, f.rd, "read out");
      if (!f.executing && !f.reading && i < 2) {  // a slot the loop never used
        Check(nrt_execute(c.model(), slot.inputs, slot.outputs), "nrt_execute");
        Check(nrt_tensor_read(slot.out, slot.host_out.data(), 0, kBytes), "read out");
      }
    }
  }
  c.Verify();
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Step)->Arg(0)->Arg(1)->UseRealTime()->Unit(benchmark::kMillisecond);

class PipelineRatios : public trnsim::bench::RatioReporter {
 public:
  using RatioReporter::RatioReporter;

 protected:
  void PrintRatios() override {
    const double sync = Mean("BM_Step", 0), pipelined = Mean("BM_Step", 1);
    if (sync > 0 && pipelined > 0) {
      std::printf("\npipelined (nrta_*) / synchronous, same run: %.1f vs %.1f steps/s, "
                  "ratio %.3f\n",
                  pipelined, sync, pipelined / sync);
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  PipelineRatios reporter(benchmark::ConsoleReporter::OO_Defaults, "items_per_second");
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
