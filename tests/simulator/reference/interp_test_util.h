// Helpers for the reference interpreter tests: parse per-engine text programs, poke/peek SBUF.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "simulator/isa/text.h"
#include "simulator/reference/interpreter.h"
#include "simulator/spec/chip_spec.h"

namespace trnsim::reference::testing {

inline isa::IsaLimits Trn2Limits() { return isa::LimitsFor(simulator::Trainium2Spec()); }

inline std::vector<isa::Program> Parse(const std::vector<std::string>& texts) {
  std::vector<isa::Program> out;
  for (const std::string& t : texts) {
    auto p = isa::ParseProgram(t);
    EXPECT_TRUE(p.ok()) << p.status().ToString() << "\n" << t;
    if (p.ok()) out.push_back(*p);
  }
  return out;
}

// A fixture-free harness: Trainium2 core state, vector HBM.
struct Harness {
  CoreState state{Trn2Limits()};
  VectorHbm hbm;

  StatusOr<RunResult> Run(const std::vector<std::string>& texts, RunOptions opt = {}) {
    return reference::Run(Parse(texts), state, hbm, opt);
  }
  // Runs one engine's body (one instruction per line, notify_end appended).
  Status RunOn(const std::string& engine, const std::string& body) {
    auto r = Run({".engine " + engine + "\n" + body + "\nnotify_end code=0\n"});
    return r.ok() ? Status::Ok() : r.status();
  }
  template <typename T>
  void Put(int partition, uint32_t byte, const std::vector<T>& v) {
    std::memcpy(state.SbufAt(partition, byte), v.data(), v.size() * sizeof(T));
  }
  template <typename T>
  std::vector<T> Get(int partition, uint32_t byte, size_t n) {
    std::vector<T> v(n);
    std::memcpy(v.data(), state.SbufAt(partition, byte), n * sizeof(T));
    return v;
  }
  template <typename T>
  std::vector<T> GetPsum(int partition, uint32_t byte, size_t n) {
    std::vector<T> v(n);
    std::memcpy(v.data(), state.PsumAt(partition, byte), n * sizeof(T));
    return v;
  }
};

}  // namespace trnsim::reference::testing
