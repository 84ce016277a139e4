// CoreMap: process-relative logical cores to instance-wide logical and physical cores, chips and
// HBM stacks, at LNC 1 and 2, with and without a visible-core offset.
#include "runtime/core_map.h"

#include <gtest/gtest.h>

#include "simulator/spec/instance_spec.h"

namespace trnsim::runtime {
namespace {

RuntimeConfig Config(const char* instance, int lnc, int first_visible, int visible_count) {
  RuntimeConfig config;
  config.instance = *simulator::FindInstanceSpec(instance);
  config.lnc = lnc;
  config.total_vnc = config.instance->PhysicalCores() / lnc;
  config.first_visible_vnc = first_visible;
  config.visible_vnc_count = visible_count;
  return config;
}

void ExpectLocation(const CoreMap& map, int vnc, int absolute, int physical, int chip, int hbm) {
  CoreLocation loc = map.Locate(vnc);
  EXPECT_EQ(loc.absolute_vnc, absolute) << "vnc " << vnc;
  EXPECT_EQ(loc.first_physical, physical) << "vnc " << vnc;
  EXPECT_EQ(loc.chip, chip) << "vnc " << vnc;
  EXPECT_EQ(loc.hbm, hbm) << "vnc " << vnc;
}

TEST(CoreMapTest, Lnc2OnTrn2_48xlarge) {
  CoreMap map(Config("trn2.48xlarge", 2, 0, 64));
  EXPECT_EQ(map.visible_count(), 64);
  // 4 logical cores per chip, one per HBM stack.
  ExpectLocation(map, 0, 0, 0, 0, 0);
  ExpectLocation(map, 1, 1, 2, 0, 1);
  ExpectLocation(map, 2, 2, 4, 0, 2);
  ExpectLocation(map, 3, 3, 6, 0, 3);
  ExpectLocation(map, 4, 4, 8, 1, 0);
  ExpectLocation(map, 5, 5, 10, 1, 1);
  ExpectLocation(map, 63, 63, 126, 15, 3);
  EXPECT_EQ(map.Locate(17).physical_count, 2);
}

TEST(CoreMapTest, Lnc1OnTrn2_48xlarge) {
  CoreMap map(Config("trn2.48xlarge", 1, 0, 128));
  // 8 logical cores per chip, two per HBM stack.
  ExpectLocation(map, 0, 0, 0, 0, 0);
  ExpectLocation(map, 1, 1, 1, 0, 0);
  ExpectLocation(map, 2, 2, 2, 0, 1);
  ExpectLocation(map, 3, 3, 3, 0, 1);
  ExpectLocation(map, 7, 7, 7, 0, 3);
  ExpectLocation(map, 8, 8, 8, 1, 0);
  ExpectLocation(map, 127, 127, 127, 15, 3);
  EXPECT_EQ(map.Locate(9).physical_count, 1);
}

TEST(CoreMapTest, VisibleOffsetLnc2) {
  CoreMap map(Config("trn2.48xlarge", 2, 6, 4));  // NEURON_RT_VISIBLE_CORES=6-9
  EXPECT_EQ(map.visible_count(), 4);
  ExpectLocation(map, 0, 6, 12, 1, 2);
  ExpectLocation(map, 1, 7, 14, 1, 3);
  ExpectLocation(map, 2, 8, 16, 2, 0);
  ExpectLocation(map, 3, 9, 18, 2, 1);
}

TEST(CoreMapTest, VisibleOffsetLnc1) {
  CoreMap map(Config("trn2.3xlarge", 1, 5, 3));  // NEURON_RT_VISIBLE_CORES=5-7
  ExpectLocation(map, 0, 5, 5, 0, 2);
  ExpectLocation(map, 1, 6, 6, 0, 3);
  ExpectLocation(map, 2, 7, 7, 0, 3);
}

TEST(CoreMapTest, Trn3SharesTheLayout) {
  CoreMap map(Config("trn3.48xlarge", 2, 0, 64));
  ExpectLocation(map, 5, 5, 10, 1, 1);
  ExpectLocation(map, 63, 63, 126, 15, 3);
}

TEST(CoreMapTest, IsVisibleIsProcessRelative) {
  CoreMap map(Config("trn2.48xlarge", 2, 6, 4));
  EXPECT_FALSE(map.IsVisible(-1));
  EXPECT_TRUE(map.IsVisible(0));
  EXPECT_TRUE(map.IsVisible(3));
  EXPECT_FALSE(map.IsVisible(4));
  EXPECT_FALSE(map.IsVisible(6));  // instance-wide index 6 is this process's vnc 0
}

TEST(CoreMapTest, KeepsItsOwnCopyOfTheConfig) {
  RuntimeConfig config = Config("trn2.48xlarge", 2, 0, 8);
  CoreMap map(config);
  config.first_visible_vnc = 40;
  config.visible_vnc_count = 1;
  EXPECT_EQ(map.visible_count(), 8);
  EXPECT_EQ(map.Locate(0).absolute_vnc, 0);
}

}  // namespace
}  // namespace trnsim::runtime
