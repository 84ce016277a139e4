// Test support for the hub suites: ranks as threads, and element <-> byte helpers.
#pragma once

#include <atomic>
#include <chrono>
#include <cstring>
#include <optional>
#include <thread>
#include <vector>

#include "simulator/collective/collective_hub.h"
#include "simulator/numerics/float_formats.h"
#include "simulator/spec/instance_spec.h"

namespace trnsim::simulator::collective::testing {

inline const InstanceSpec& Trn2_48xl() { return *FindInstanceSpec("trn2.48xlarge").value(); }

template <typename T>
std::vector<uint8_t> ToBytes(const std::vector<T>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

template <typename T>
std::vector<T> FromBytes(const std::vector<uint8_t>& bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
  return values;
}

inline std::vector<uint8_t> Bf16Bytes(const std::vector<float>& values) {
  std::vector<uint16_t> bits;
  for (float v : values) bits.push_back(numerics::Fp32ToBf16(v));
  return ToBytes(bits);
}

inline std::vector<float> Bf16Values(const std::vector<uint8_t>& bytes) {
  std::vector<float> values;
  for (uint16_t b : FromBytes<uint16_t>(bytes)) values.push_back(numerics::Bf16ToFp32(b));
  return values;
}

// One rank of a test: what it calls, where it runs, and how it behaves on the host.
struct TestRank {
  uint32_t rank = 0;
  CollectiveCall call;
  int chip = 0;
  std::chrono::milliseconds delay{0};  // host time before it calls
  std::chrono::milliseconds timeout{5000};
  const std::atomic<bool>* cancel = nullptr;
};

// Runs every rank on its own thread (each its own port on `hub`) and returns the results in
// the order of `ranks`.
inline std::vector<StatusOr<CollectiveOutcome>> RunRanks(CollectiveHub& hub, uint32_t world,
                                                         const std::vector<TestRank>& ranks,
                                                         uint64_t execution = 0) {
  std::vector<std::optional<StatusOr<CollectiveOutcome>>> results(ranks.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < ranks.size(); ++i) {
    threads.emplace_back([&, i] {
      const TestRank& r = ranks[i];
      auto port =
          hub.Attach({"test-comm", r.rank, world, r.chip, execution}, {r.timeout, r.cancel});
      std::this_thread::sleep_for(r.delay);
      results[i].emplace(port->Run(r.call));
    });
  }
  for (std::thread& t : threads) t.join();
  std::vector<StatusOr<CollectiveOutcome>> out;
  for (auto& r : results) out.push_back(std::move(*r));
  return out;
}

}  // namespace trnsim::simulator::collective::testing
