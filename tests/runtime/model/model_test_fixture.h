// A ModelRegistry over a fresh sim device of a trn2.3xlarge (or another instance), without the
// process-wide Runtime: what the model unit tests load into.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <memory>
#include <string>

#include "common/env.h"
#include "driver/device.h"
#include "runtime/config.h"
#include "runtime/core_map.h"
#include "runtime/model/model_registry.h"
#include "tests/runtime/model/neff_fixtures.h"

namespace trnsim::runtime::model::testing {

class ModelTestBase : public ::testing::Test {
 protected:
  void SetUp() override { Open(1); }

  // (Re)creates device, registry and counters for `lnc` on `instance`.
  void Open(int lnc, const std::string& instance = "trn2.3xlarge") {
    registry_.reset();
    StatusOr<RuntimeConfig> config = ParseRuntimeConfig(Environment::FromMap(
        {{"TRNSIM_INSTANCE", instance}, {"NEURON_LOGICAL_NC_CONFIG", std::to_string(lnc)}}));
    ASSERT_TRUE(config.ok()) << config.status().ToString();
    config_ = *config;
    driver::DeviceOptions options;
    options.instance = config_.instance;
    StatusOr<std::unique_ptr<driver::Device>> device = driver::OpenDevice(options);
    ASSERT_TRUE(device.ok()) << device.status().ToString();
    device_ = std::move(*device);
    core_map_ = std::make_unique<CoreMap>(config_);
    bytes_used_ = std::make_unique<std::atomic<uint64_t>[]>(config_.visible_vnc_count);
    registry_ = std::make_unique<ModelRegistry>(device_.get(), config_, *core_map_,
                                                bytes_used_.get(), &claims_, nullptr);
  }
  void TearDown() override { registry_.reset(); }

  const simulator::ChipSpec& chip() const { return *config_.instance->chip; }

  Model* MustLoad(neff::Neff neff, int vnc = 0) {
    StatusOr<Model*> model = registry_->Load(std::move(neff), vnc, -1);
    EXPECT_TRUE(model.ok()) << model.status().ToString();
    return model.ok() ? *model : nullptr;
  }
  Status LoadStatus(neff::Neff neff, int vnc = 0) {
    return registry_->Load(std::move(neff), vnc, -1).status();
  }

  // What the device says is allocated on vnc's HBM stack, across every user.
  uint64_t HbmUsed(int vnc) {
    CoreLocation where = core_map_->Locate(vnc);
    StatusOr<driver::HbmUsage> usage = device_->GetHbmUsage(where.chip, where.hbm);
    EXPECT_TRUE(usage.ok());
    return usage.ok() ? usage->used_bytes : 0;
  }
  uint64_t BytesUsed(int vnc) { return bytes_used_[vnc].load(); }

  static std::vector<uint8_t> Read(const DeviceStorage* storage, uint64_t size) {
    std::vector<uint8_t> out(size, 0xEE);
    EXPECT_NE(storage, nullptr);
    if (storage == nullptr) return out;
    Status status = const_cast<DeviceStorage*>(storage)->Read(0, out.data(), size);
    EXPECT_TRUE(status.ok()) << status.ToString();
    return out;
  }
  static uint64_t Address(const DeviceStorage* storage) {
    return storage ? storage->device_allocation()->device_address : ~0ull;
  }
  static uint64_t ReadU64(const DeviceStorage* storage, uint64_t index = 0) {
    std::vector<uint8_t> bytes = Read(storage, (index + 1) * 8);
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t{bytes[index * 8 + i]} << (8 * i);
    return v;
  }

  RuntimeConfig config_;
  std::unique_ptr<driver::Device> device_;
  std::unique_ptr<CoreMap> core_map_;
  std::unique_ptr<std::atomic<uint64_t>[]> bytes_used_;
  CoreClaims claims_;  // outlives registry_
  std::unique_ptr<ModelRegistry> registry_;
};

}  // namespace trnsim::runtime::model::testing
