// Helpers of the execution tests: a process-wide Runtime initialised for one instance and LNC,
// sample NEFFs read from the build tree (TRNSIM_SAMPLES_DIR, a compile definition), tensors
// bound by name, and the reference comparison with the worst element spelled out.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "common/env.h"
#include "runtime/runtime.h"
#include "tools/samples/reference/samples.h"

namespace trnsim::runtime::execution::testing {

inline constexpr uint32_t kNoFramework = 1;

class RuntimeFixture : public ::testing::Test {
 protected:
  void SetUp() override { ClearEnv(); }
  void TearDown() override {
    rt().Close();
    ClearEnv();
  }
  static void ClearEnv() {
    for (const EnvVarInfo& info : EnvTable()) unsetenv(info.name);
  }
  static Runtime& rt() { return Runtime::Get(); }

  // Closes any previous runtime and initialises one on `instance` with `lnc`.
  static void Start(const std::string& instance, int lnc) {
    rt().Close();
    setenv("TRNSIM_INSTANCE", instance.c_str(), 1);
    setenv("NEURON_LOGICAL_NC_CONFIG", std::to_string(lnc).c_str(), 1);
    Status s = rt().Init(kNoFramework, "test", "test");
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  static std::vector<uint8_t> ReadNeffFile(const std::string& name) {
    std::string path = std::string(TRNSIM_SAMPLES_DIR) + "/" + name + ".neff";
    std::ifstream f(path, std::ios::binary);
    EXPECT_TRUE(f) << "cannot open " << path << " (build the trnsim_sample_neffs target)";
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
  }

  static model::Model* LoadSample(const std::string& name, int vnc = 0) {
    std::vector<uint8_t> bytes = ReadNeffFile(name);
    StatusOr<model::Model*> m = rt().models().Load(bytes, vnc, -1);
    EXPECT_TRUE(m.ok()) << name << ": " << m.status().ToString();
    return m.ok() ? *m : nullptr;
  }

  static Tensor* NewTensor(uint64_t size, const std::string& name, int vnc = 0,
                           Placement placement = Placement::kDevice) {
    StatusOr<Tensor*> t = rt().tensors().Allocate(placement, vnc, size, name);
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    return t.ok() ? *t : nullptr;
  }

  static TensorSet* NewSet() {
    StatusOr<TensorSet*> s = rt().tensors().AllocateSet();
    EXPECT_TRUE(s.ok());
    return s.ok() ? *s : nullptr;
  }

  static void Write(Tensor* t, const std::vector<uint8_t>& bytes) {
    Status s = rt().tensors().Write(t, bytes.data(), 0, bytes.size());
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  static std::vector<uint8_t> Read(const Tensor* t, uint64_t size) {
    std::vector<uint8_t> out(size);
    Status s = rt().tensors().Read(t, out.data(), 0, size);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return out;
  }
};

// "ok" or a description of the worst element (largest excess over the tolerance).
inline std::string Mismatch(const samples::Array& got, const samples::Array& want,
                            samples::Tolerance tol) {
  samples::CompareResult r = samples::Compare(got, want, tol);
  if (r.ok) return "ok";
  size_t worst = 0;
  double worst_excess = -INFINITY;
  for (size_t i = 0; i < want.data.size() && i < got.data.size(); ++i) {
    double err = std::fabs(double{got.data[i]} - want.data[i]);
    if (std::isnan(got.data[i]) != std::isnan(want.data[i])) err = INFINITY;
    double excess = err - (tol.atol + tol.rtol * std::fabs(want.data[i]));
    if (excess > worst_excess) {
      worst_excess = excess;
      worst = i;
    }
  }
  std::ostringstream out;
  out << want.name << ": " << r.mismatches << " of " << want.data.size()
      << " elements outside rtol " << tol.rtol << " atol " << tol.atol << ", max |error| "
      << r.max_abs_error << "; worst element " << worst;
  if (worst < got.data.size()) out << ": got " << got.data[worst] << " want " << want.data[worst];
  return out.str();
}

}  // namespace trnsim::runtime::execution::testing
