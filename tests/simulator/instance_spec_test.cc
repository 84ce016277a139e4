// Instance spec tables: the four instance types, their chips, and the NRT family/size codes.
#include "simulator/spec/instance_spec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

namespace trnsim::simulator {
namespace {

using ::testing::HasSubstr;

// NRT_INSTANCE_* and NRT_INSTANCE_SIZE_* from nrt.h.
constexpr uint32_t kNrtFamilyTrn2 = 5;
constexpr uint32_t kNrtFamilyTrn2u = 9;
constexpr uint32_t kNrtFamilyTrn3 = 14;
constexpr uint32_t kNrtSize48xl = 7;
constexpr uint32_t kNrtSize3xl = 8;

const InstanceSpec& Find(std::string_view name) {
  StatusOr<const InstanceSpec*> spec = FindInstanceSpec(name);
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  if (!spec.ok()) std::abort();
  return **spec;
}

TEST(InstanceSpecTest, ListsFourTypesInOrder) {
  auto specs = InstanceSpecs();
  ASSERT_EQ(specs.size(), 4u);
  EXPECT_EQ(specs[0].type_name, "trn2.3xlarge");
  EXPECT_EQ(specs[1].type_name, "trn2.48xlarge");
  EXPECT_EQ(specs[2].type_name, "trn2u.48xlarge");
  EXPECT_EQ(specs[3].type_name, "trn3.48xlarge");
  std::set<std::string> names;
  for (const InstanceSpec& spec : specs) {
    EXPECT_TRUE(names.insert(spec.type_name).second) << spec.type_name;
    EXPECT_FALSE(spec.description.empty()) << spec.type_name;
    ASSERT_NE(spec.chip, nullptr) << spec.type_name;
    EXPECT_EQ(spec.default_lnc, 2) << spec.type_name;
    // Every device has its host placement, and no two share a PCI address.
    ASSERT_EQ(spec.devices.size(), size_t(spec.chip_count)) << spec.type_name;
    std::set<std::string> bdfs;
    for (const DevicePlacement& d : spec.devices) {
      EXPECT_TRUE(bdfs.insert(d.pci_bdf).second) << spec.type_name << " " << d.pci_bdf;
      EXPECT_FALSE(d.cpu_affinity.empty()) << spec.type_name;
    }
  }
}

TEST(InstanceSpecTest, Trn2_3xlarge) {
  const InstanceSpec& s = Find("trn2.3xlarge");
  EXPECT_EQ(s.chip, &Trainium2Spec());
  EXPECT_EQ(s.chip_count, 1);
  EXPECT_EQ(s.topology, TopologyKind::kSingleChip);
  EXPECT_EQ(s.nrt_family, kNrtFamilyTrn2);
  EXPECT_EQ(s.nrt_size, kNrtSize3xl);
  EXPECT_EQ(s.PhysicalCores(), 8);
  EXPECT_EQ(s.DeviceMemoryBytes(), 96 * kGiB);
}

TEST(InstanceSpecTest, Trn2_48xlarge) {
  const InstanceSpec& s = Find("trn2.48xlarge");
  EXPECT_EQ(s.chip, &Trainium2Spec());
  EXPECT_EQ(s.chip_count, 16);
  EXPECT_EQ(s.topology, TopologyKind::kTorus2d);
  EXPECT_EQ(s.torus_rows * s.torus_cols, s.chip_count);
  EXPECT_EQ(s.nrt_family, kNrtFamilyTrn2);
  EXPECT_EQ(s.nrt_size, kNrtSize48xl);
  EXPECT_EQ(s.PhysicalCores(), 128);
  EXPECT_EQ(s.DeviceMemoryBytes(), 1536 * kGiB);
  EXPECT_EQ(s.vcpus, 192);
  EXPECT_EQ(s.host_memory_bytes, 2048 * kGiB);
}

TEST(InstanceSpecTest, Trn2u_48xlargeDiffersOnlyInNameAndFamily) {
  const InstanceSpec& base = Find("trn2.48xlarge");
  const InstanceSpec& s = Find("trn2u.48xlarge");
  EXPECT_EQ(s.nrt_family, kNrtFamilyTrn2u);
  EXPECT_EQ(s.nrt_size, kNrtSize48xl);
  EXPECT_EQ(s.chip, base.chip);
  EXPECT_EQ(s.chip_count, base.chip_count);
  EXPECT_EQ(s.topology, base.topology);
  EXPECT_EQ(s.torus_rows, base.torus_rows);
  EXPECT_EQ(s.torus_cols, base.torus_cols);
  EXPECT_EQ(s.PhysicalCores(), 128);
}

TEST(InstanceSpecTest, Trn3_48xlarge) {
  const InstanceSpec& s = Find("trn3.48xlarge");
  EXPECT_EQ(s.chip, &Trainium3Spec());
  EXPECT_EQ(s.chip_count, 16);
  EXPECT_EQ(s.topology, TopologyKind::kSwitched);
  EXPECT_EQ(s.nrt_family, kNrtFamilyTrn3);
  EXPECT_EQ(s.nrt_size, kNrtSize48xl);
  EXPECT_EQ(s.PhysicalCores(), 128);
  EXPECT_EQ(s.DeviceMemoryBytes(), 16 * 144 * kGiB);
}

TEST(InstanceSpecTest, FindReturnsTheTableRow) {
  for (const InstanceSpec& spec : InstanceSpecs()) {
    StatusOr<const InstanceSpec*> found = FindInstanceSpec(spec.type_name);
    ASSERT_TRUE(found.ok());
    EXPECT_EQ(*found, &spec);
  }
}

TEST(InstanceSpecTest, UnknownNameIsInvalidAndListsKnownNames) {
  for (std::string_view name : {"trn1.32xlarge", "", "TRN2.48XLARGE", "trn2.48xlarge "}) {
    StatusOr<const InstanceSpec*> found = FindInstanceSpec(name);
    ASSERT_FALSE(found.ok()) << "'" << name << "'";
    EXPECT_EQ(found.status().code(), StatusCode::kInvalid);
    EXPECT_THAT(found.status().message(), HasSubstr("'" + std::string(name) + "'"));
    for (const InstanceSpec& spec : InstanceSpecs()) {
      EXPECT_THAT(found.status().message(), HasSubstr(spec.type_name));
    }
  }
}

}  // namespace
}  // namespace trnsim::simulator
