// Tensor over HostStorage and DeviceStorage (on a sim trn2.3xlarge): bounds, slices that alias
// and outlive their source, attached buffers, copies between placements, device allocation info.
#include "runtime/tensor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <vector>

#include "driver/device.h"
#include "simulator/spec/instance_spec.h"

namespace trnsim::runtime {
namespace {

std::vector<uint8_t> Pattern(size_t size, uint8_t seed) {
  std::vector<uint8_t> bytes(size);
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<uint8_t>(seed + i * 13);
  return bytes;
}

std::vector<uint8_t> ReadAll(const Tensor& tensor) {
  std::vector<uint8_t> out(tensor.size(), 0xEE);
  Status status = tensor.Read(0, out.data(), out.size());
  EXPECT_TRUE(status.ok()) << status.ToString();
  return out;
}

class TensorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    driver::DeviceOptions options;
    options.instance = *simulator::FindInstanceSpec("trn2.3xlarge");
    StatusOr<std::unique_ptr<driver::Device>> device = driver::OpenDevice(options);
    ASSERT_TRUE(device.ok()) << device.status().ToString();
    device_ = std::move(device).value();
  }

  void TearDown() override {
    // Every test must have released its device memory and usage charge by now.
    for (int hbm = 0; hbm < 4; ++hbm) EXPECT_EQ(device_->GetHbmUsage(0, hbm)->used_bytes, 0u);
    EXPECT_EQ(usage_.load(), 0u);
  }

  std::shared_ptr<DeviceStorage> MakeDeviceStorage(uint64_t size, int hbm = 0) {
    driver::AllocationRequest request;
    request.hbm = hbm;
    request.size_bytes = size;
    StatusOr<std::unique_ptr<DeviceStorage>> storage =
        DeviceStorage::Create(device_.get(), request, /*vnc=*/0, &usage_);
    EXPECT_TRUE(storage.ok()) << storage.status().ToString();
    if (!storage.ok()) return nullptr;
    return std::shared_ptr<DeviceStorage>(std::move(storage).value());
  }

  std::unique_ptr<Tensor> DeviceTensor(uint64_t size, int hbm = 0, const char* name = "dev") {
    return std::make_unique<Tensor>(name, MakeDeviceStorage(size, hbm), 0, size);
  }

  static std::unique_ptr<Tensor> HostTensor(uint64_t size, Placement placement = Placement::kHost,
                                            const char* name = "host") {
    StatusOr<std::unique_ptr<HostStorage>> storage = HostStorage::Create(placement, size);
    EXPECT_TRUE(storage.ok());
    return std::make_unique<Tensor>(name, std::shared_ptr<TensorStorage>(std::move(*storage)), 0,
                                    size);
  }

  std::unique_ptr<driver::Device> device_;
  std::atomic<uint64_t> usage_{0};
};

// Read/write/fill behaviour shared by both storages.
void CheckReadWriteBounds(Tensor& tensor) {
  ASSERT_EQ(tensor.size(), 1000u);
  EXPECT_EQ(ReadAll(tensor), std::vector<uint8_t>(1000, 0));  // zero when new

  std::vector<uint8_t> data = Pattern(100, 1);
  ASSERT_TRUE(tensor.Write(900, data.data(), 100).ok());  // up to the last byte
  std::vector<uint8_t> back(100);
  ASSERT_TRUE(tensor.Read(900, back.data(), 100).ok());
  EXPECT_EQ(back, data);
  ASSERT_TRUE(tensor.Fill(10, 0x3C, 5).ok());
  std::vector<uint8_t> all = ReadAll(tensor);
  EXPECT_EQ(all[9], 0);
  EXPECT_EQ(all[10], 0x3C);
  EXPECT_EQ(all[14], 0x3C);
  EXPECT_EQ(all[15], 0);

  // Past the end: NRT_INVALID and nothing moves. Device storage reserves 1024 bytes, so these
  // must be caught by the tensor, not by the allocation's larger bound.
  std::vector<uint8_t> junk(200, 0xFF);
  EXPECT_EQ(tensor.Write(901, junk.data(), 100).code(), StatusCode::kInvalid);
  EXPECT_EQ(tensor.Write(1000, junk.data(), 1).code(), StatusCode::kInvalid);
  EXPECT_EQ(tensor.Write(1, junk.data(), UINT64_MAX).code(), StatusCode::kInvalid);
  EXPECT_EQ(tensor.Fill(999, 0xFF, 2).code(), StatusCode::kInvalid);
  EXPECT_EQ(tensor.Read(1001, junk.data(), 0).code(), StatusCode::kInvalid);
  EXPECT_EQ(tensor.Read(990, junk.data(), 20).code(), StatusCode::kInvalid);
  EXPECT_EQ(junk, std::vector<uint8_t>(200, 0xFF));
  EXPECT_EQ(ReadAll(tensor), all);

  EXPECT_TRUE(tensor.Read(1000, nullptr, 0).ok());  // empty range at the end
  EXPECT_EQ(tensor.Read(0, nullptr, 1).code(), StatusCode::kInvalid);
  EXPECT_EQ(tensor.Write(0, nullptr, 1).code(), StatusCode::kInvalid);
}

TEST_F(TensorTest, HostTensorReadWriteBounds) {
  auto tensor = HostTensor(1000);
  EXPECT_EQ(tensor->placement(), Placement::kHost);
  EXPECT_EQ(tensor->device_storage(), nullptr);
  EXPECT_NE(tensor->HostAddress(), nullptr);
  CheckReadWriteBounds(*tensor);
}

TEST_F(TensorTest, VirtualPlacementIsHostBacked) {
  auto tensor = HostTensor(1000, Placement::kVirtual);
  EXPECT_EQ(tensor->placement(), Placement::kVirtual);
  CheckReadWriteBounds(*tensor);
}

TEST_F(TensorTest, DeviceTensorReadWriteBounds) {
  auto tensor = DeviceTensor(1000);
  EXPECT_EQ(tensor->placement(), Placement::kDevice);
  ASSERT_NE(tensor->device_storage(), nullptr);
  EXPECT_EQ(tensor->device_storage()->vnc(), 0);
  EXPECT_EQ(tensor->device_storage()->size_bytes(), 1000u);
  CheckReadWriteBounds(*tensor);
}

TEST_F(TensorTest, HostAddressOfDeviceTensorMapsTheBytes) {
  auto tensor = DeviceTensor(256);
  auto* host = static_cast<uint8_t*>(tensor->HostAddress());
  ASSERT_NE(host, nullptr);
  host[7] = 0x71;
  uint8_t byte = 0;
  ASSERT_TRUE(tensor->Read(7, &byte, 1).ok());
  EXPECT_EQ(byte, 0x71);
}

TEST_F(TensorTest, DeviceStorageChargesAndReleasesUsage) {
  {
    auto tensor = DeviceTensor(1000, 2);
    EXPECT_EQ(usage_.load(), 1024u);  // the reserved size, not the requested one
    EXPECT_EQ(device_->GetHbmUsage(0, 2)->used_bytes, 1024u);
    auto second = DeviceTensor(64, 2);
    EXPECT_EQ(usage_.load(), 1088u);
  }
  EXPECT_EQ(usage_.load(), 0u);
  EXPECT_EQ(device_->GetHbmUsage(0, 2)->used_bytes, 0u);
}

TEST_F(TensorTest, DeviceStorageCreateFailureChargesNothing) {
  driver::AllocationRequest request;
  request.size_bytes = 25ull << 30;  // more than a 24 GiB stack
  StatusOr<std::unique_ptr<DeviceStorage>> storage =
      DeviceStorage::Create(device_.get(), request, 0, &usage_);
  EXPECT_EQ(storage.status().code(), StatusCode::kResource);
  EXPECT_EQ(usage_.load(), 0u);
}

void CheckSlicesAlias(std::unique_ptr<Tensor> source) {
  ASSERT_EQ(source->size(), 1000u);
  StatusOr<std::unique_ptr<Tensor>> slice = source->Slice(100, 200, "slice");
  ASSERT_TRUE(slice.ok());
  Tensor& s = **slice;
  EXPECT_EQ(s.name(), "slice");
  EXPECT_EQ(s.size(), 200u);
  EXPECT_EQ(s.placement(), source->placement());

  // Slice -> source.
  std::vector<uint8_t> data = Pattern(50, 5);
  ASSERT_TRUE(s.Write(10, data.data(), 50).ok());
  std::vector<uint8_t> back(50);
  ASSERT_TRUE(source->Read(110, back.data(), 50).ok());
  EXPECT_EQ(back, data);
  // Source -> slice.
  ASSERT_TRUE(source->Fill(299, 0x99, 1).ok());
  uint8_t last = 0;
  ASSERT_TRUE(s.Read(199, &last, 1).ok());
  EXPECT_EQ(last, 0x99);
  // Bounds are the slice's own, even though the storage is larger.
  uint8_t byte = 0;
  EXPECT_EQ(s.Read(200, &byte, 1).code(), StatusCode::kInvalid);
  EXPECT_EQ(s.Write(150, data.data(), 51).code(), StatusCode::kInvalid);
  // A slice of a slice composes offsets.
  StatusOr<std::unique_ptr<Tensor>> inner = s.Slice(10, 20, "inner");
  ASSERT_TRUE(inner.ok());
  ASSERT_TRUE((*inner)->Read(0, &byte, 1).ok());
  EXPECT_EQ(byte, data[0]);

  // The slice outlives its source: the storage stays alive with it.
  source.reset();
  std::vector<uint8_t> after(50);
  ASSERT_TRUE(s.Read(10, after.data(), 50).ok());
  EXPECT_EQ(after, data);
  ASSERT_TRUE(s.Fill(0, 0x42, 200).ok());
  ASSERT_TRUE((*inner)->Read(19, &byte, 1).ok());
  EXPECT_EQ(byte, 0x42);
}

TEST_F(TensorTest, HostSlicesAliasAndOutliveTheirSource) { CheckSlicesAlias(HostTensor(1000)); }

TEST_F(TensorTest, DeviceSlicesAliasAndOutliveTheirSource) {
  auto source = DeviceTensor(1000, 1);
  EXPECT_EQ(device_->GetHbmUsage(0, 1)->used_bytes, 1024u);
  CheckSlicesAlias(std::move(source));
  EXPECT_EQ(device_->GetHbmUsage(0, 1)->used_bytes, 0u);  // freed with the last slice
}

TEST_F(TensorTest, SliceKeepsDeviceMemoryAliveUntilLastUser) {
  auto source = DeviceTensor(1000, 1);
  std::unique_ptr<Tensor> slice = std::move(source->Slice(0, 10, "s")).value();
  source.reset();
  EXPECT_EQ(device_->GetHbmUsage(0, 1)->used_bytes, 1024u);
  EXPECT_EQ(usage_.load(), 1024u);
  slice.reset();
  EXPECT_EQ(device_->GetHbmUsage(0, 1)->used_bytes, 0u);
}

TEST_F(TensorTest, SliceOutOfRangeIsInvalid) {
  auto tensor = HostTensor(100);
  EXPECT_EQ(tensor->Slice(50, 51, "x").status().code(), StatusCode::kInvalid);
  EXPECT_EQ(tensor->Slice(101, 0, "x").status().code(), StatusCode::kInvalid);
  EXPECT_EQ(tensor->Slice(1, UINT64_MAX, "x").status().code(), StatusCode::kInvalid);
  EXPECT_TRUE(tensor->Slice(100, 0, "empty").ok());
  EXPECT_TRUE(tensor->Slice(0, 100, "whole").ok());
}

TEST_F(TensorTest, EmptyTensorHasNoStorageUntilABufferIsAttached) {
  Tensor tensor("empty", nullptr, 0, 0);
  EXPECT_FALSE(tensor.has_storage());
  EXPECT_EQ(tensor.placement(), Placement::kVirtual);
  EXPECT_EQ(tensor.HostAddress(), nullptr);
  uint8_t byte = 0;
  EXPECT_EQ(tensor.Read(0, &byte, 0).code(), StatusCode::kInvalid);
  EXPECT_EQ(tensor.Write(0, &byte, 0).code(), StatusCode::kInvalid);
  EXPECT_EQ(tensor.Slice(0, 0, "s").status().code(), StatusCode::kInvalid);
  EXPECT_EQ(tensor.DeviceAllocation().status().code(), StatusCode::kInvalid);

  std::vector<uint8_t> buffer(64, 0x0A);
  tensor.AttachBuffer(buffer.data(), buffer.size());
  EXPECT_TRUE(tensor.has_storage());
  EXPECT_EQ(tensor.placement(), Placement::kVirtual);
  EXPECT_EQ(tensor.size(), 64u);
  EXPECT_EQ(tensor.HostAddress(), buffer.data());
  ASSERT_TRUE(tensor.Read(3, &byte, 1).ok());
  EXPECT_EQ(byte, 0x0A);
  byte = 0xB0;
  ASSERT_TRUE(tensor.Write(5, &byte, 1).ok());
  EXPECT_EQ(buffer[5], 0xB0);  // writes land in the caller's buffer
  EXPECT_EQ(tensor.Write(64, &byte, 1).code(), StatusCode::kInvalid);
}

TEST_F(TensorTest, AttachReplacesDeviceStorageAndReleasesIt) {
  auto tensor = DeviceTensor(4096, 3);
  EXPECT_EQ(device_->GetHbmUsage(0, 3)->used_bytes, 4096u);
  std::vector<uint8_t> buffer(16, 0x6B);
  tensor->AttachBuffer(buffer.data(), buffer.size());
  EXPECT_EQ(device_->GetHbmUsage(0, 3)->used_bytes, 0u);
  EXPECT_EQ(tensor->placement(), Placement::kVirtual);
  EXPECT_EQ(tensor->size(), 16u);
  EXPECT_EQ(tensor->device_storage(), nullptr);
  EXPECT_EQ(ReadAll(*tensor), std::vector<uint8_t>(16, 0x6B));
  // Destroying the tensor must not free or clear the caller's buffer (ASan flags a bad free).
  tensor.reset();
  EXPECT_EQ(buffer, std::vector<uint8_t>(16, 0x6B));
}

TEST_F(TensorTest, CopyHostToDeviceAndBack) {
  auto host = HostTensor(1000);
  auto dev = DeviceTensor(1000);
  auto host2 = HostTensor(1000, Placement::kVirtual);
  std::vector<uint8_t> data = Pattern(1000, 7);
  ASSERT_TRUE(host->Write(0, data.data(), 1000).ok());
  ASSERT_TRUE(Tensor::Copy(*host, 100, *dev, 200, 300).ok());
  std::vector<uint8_t> expected(1000, 0);
  std::memcpy(expected.data() + 200, data.data() + 100, 300);
  EXPECT_EQ(ReadAll(*dev), expected);
  ASSERT_TRUE(Tensor::Copy(*dev, 0, *host2, 0, 1000).ok());
  EXPECT_EQ(ReadAll(*host2), expected);
}

TEST_F(TensorTest, CopyHostToHostOverlappingIsMemmove) {
  auto tensor = HostTensor(1000);
  std::vector<uint8_t> expected = Pattern(1000, 2);
  ASSERT_TRUE(tensor->Write(0, expected.data(), 1000).ok());
  ASSERT_TRUE(Tensor::Copy(*tensor, 0, *tensor, 10, 900).ok());
  std::memmove(expected.data() + 10, expected.data(), 900);
  EXPECT_EQ(ReadAll(*tensor), expected);
}

TEST_F(TensorTest, CopyDeviceToDeviceOnOneHbm) {
  auto a = DeviceTensor(1000, 2);
  auto b = DeviceTensor(1000, 2);
  std::vector<uint8_t> data = Pattern(1000, 3);
  ASSERT_TRUE(a->Write(0, data.data(), 1000).ok());
  ASSERT_TRUE(Tensor::Copy(*a, 0, *b, 0, 1000).ok());
  EXPECT_EQ(ReadAll(*b), data);
  // Between slices of one storage, overlapping: memmove.
  std::unique_ptr<Tensor> low = std::move(a->Slice(0, 600, "low")).value();
  std::unique_ptr<Tensor> high = std::move(a->Slice(300, 700, "high")).value();
  ASSERT_TRUE(Tensor::Copy(*low, 0, *high, 0, 600).ok());
  std::memmove(data.data() + 300, data.data(), 600);
  EXPECT_EQ(ReadAll(*a), data);
}

TEST_F(TensorTest, CopyDeviceToDeviceAcrossHbmIsInvalid) {
  auto a = DeviceTensor(1000, 0);
  auto b = DeviceTensor(1000, 1);
  ASSERT_TRUE(a->Fill(0, 0x77, 1000).ok());
  Status status = Tensor::Copy(*a, 0, *b, 0, 1000);
  EXPECT_EQ(status.code(), StatusCode::kInvalid);
  EXPECT_THAT(status.message(), ::testing::HasSubstr("same HBM"));
  EXPECT_EQ(ReadAll(*b), std::vector<uint8_t>(1000, 0));
}

TEST_F(TensorTest, CopyOutOfRangeMovesNothing) {
  auto host = HostTensor(100);
  auto dev = DeviceTensor(100);
  ASSERT_TRUE(host->Fill(0, 0x55, 100).ok());
  EXPECT_EQ(Tensor::Copy(*host, 50, *dev, 0, 51).code(), StatusCode::kInvalid);
  EXPECT_EQ(Tensor::Copy(*host, 0, *dev, 50, 51).code(), StatusCode::kInvalid);
  EXPECT_EQ(ReadAll(*dev), std::vector<uint8_t>(100, 0));
  Tensor empty("empty", nullptr, 0, 0);
  EXPECT_EQ(Tensor::Copy(empty, 0, *dev, 0, 0).code(), StatusCode::kInvalid);
  EXPECT_TRUE(Tensor::Copy(*host, 100, *dev, 100, 0).ok());
}

TEST_F(TensorTest, DeviceAllocationOfTensorAndSlice) {
  const simulator::ChipSpec& chip = *device_->instance_spec().chip;
  auto first = DeviceTensor(64, 3);  // occupies offset 0 of HBM 3
  auto tensor = DeviceTensor(1000, 3);
  StatusOr<DeviceAllocationInfo> info = tensor->DeviceAllocation();
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->physical_address, chip.hbm_base_pa[3] + 64);
  EXPECT_EQ(info->size_bytes, 1024u);  // the reserved size
  EXPECT_EQ(info->hbm_index, 3);

  std::unique_ptr<Tensor> slice = std::move(tensor->Slice(100, 50, "s")).value();
  StatusOr<DeviceAllocationInfo> slice_info = slice->DeviceAllocation();
  ASSERT_TRUE(slice_info.ok());
  EXPECT_EQ(slice_info->physical_address, info->physical_address + 100);
  EXPECT_EQ(slice_info->size_bytes, 1024u - 100);
  EXPECT_EQ(slice_info->hbm_index, 3);

  EXPECT_EQ(HostTensor(10)->DeviceAllocation().status().code(), StatusCode::kInvalid);
}

}  // namespace
}  // namespace trnsim::runtime
