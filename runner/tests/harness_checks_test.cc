#include "runner/harness_checks.h"

#include <gtest/gtest.h>

namespace flashscope::runner {
namespace {

DeviceSetting Setting(const std::string& name, const std::string& value, uint64_t number = 0,
                      bool grows = false) {
  return {name, true, value, number, grows};
}

TEST(DiffDeviceStateTest, NamesEachChangedSettingWithBothValues) {
  DeviceState start{{Setting("cudaLimitPrintfFifoSize", "1048576"),
                     Setting("launch stream access-policy window", "none"),
                     Setting("current device", "0")}};
  DeviceState now = start;
  now.settings[1].value = "4194304 bytes at 0x7f00, hitRatio 1, hitProp 2, missProp 1";
  const std::vector<StateChange> changes = DiffDeviceState(start, now);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].name, "launch stream access-policy window");
  EXPECT_EQ(changes[0].before, "none");
  EXPECT_EQ(changes[0].after, now.settings[1].value);
  EXPECT_TRUE(changes[0].violation);
  EXPECT_TRUE(DiffDeviceState(start, start).empty());
}

TEST(DiffDeviceStateTest, StackGrownByTheDriverIsNotAViolationButShrunkIs) {
  DeviceState start{{Setting("cudaLimitStackSize", "1024", 1024, true)}};
  DeviceState grown{{Setting("cudaLimitStackSize", "4096", 4096, true)}};
  DeviceState shrunk{{Setting("cudaLimitStackSize", "512", 512, true)}};
  ASSERT_EQ(DiffDeviceState(start, grown).size(), 1u);
  EXPECT_FALSE(DiffDeviceState(start, grown)[0].violation);
  ASSERT_EQ(DiffDeviceState(start, shrunk).size(), 1u);
  EXPECT_TRUE(DiffDeviceState(start, shrunk)[0].violation);
}

TEST(DiffDeviceStateTest, ASettingThatBecameUnreadableIsAChange) {
  DeviceState start{{Setting("cudaDeviceGetCacheConfig", "0")}};
  DeviceState now{{{"cudaDeviceGetCacheConfig", false, "", 0, false}}};
  const std::vector<StateChange> changes = DiffDeviceState(start, now);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].after, "unreadable");
  // Unreadable in both (the driver cannot report it here): nothing to compare.
  EXPECT_TRUE(DiffDeviceState(now, now).empty());
}

TEST(CheckIsolationTest, FailsOnAViolationAndSaysOldAndNew) {
  const reports::TrustCheckRecord r =
      CheckIsolation({{"cudaLimitPersistingL2CacheSize", "0", "52428800", true}}, "", 0.001);
  EXPECT_EQ(r.check, "isolation");
  EXPECT_EQ(r.status, "failed");
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0], "cudaLimitPersistingL2CacheSize: 0 -> 52428800");
}

TEST(CheckIsolationTest, PassesWithAnExplainedStackGrowthAndNamesAFailedRestore) {
  const reports::TrustCheckRecord grown =
      CheckIsolation({{"cudaLimitStackSize", "1024", "4096", false}}, "", 0);
  EXPECT_EQ(grown.status, "passed");
  ASSERT_EQ(grown.findings.size(), 1u);
  EXPECT_NE(grown.findings[0].find("raised by the driver"), std::string::npos);
  const reports::TrustCheckRecord unrestorable =
      CheckIsolation({{"cudaLimitMallocHeapSize", "8388608", "67108864", true}},
                     "cudaLimitMallocHeapSize: cudaErrorInvalidValue", 0);
  EXPECT_EQ(unrestorable.status, "failed");
  EXPECT_NE(unrestorable.findings.back().find("fresh worker"), std::string::npos);
  EXPECT_EQ(CheckIsolation({}, "", 0).status, "passed");
}

TEST(CheckIntegrityTest, NamesTheBufferTheLaunchAndWhere) {
  std::vector<RegionVerdict> regions = {
      {"input v (slot 0)", "content", 2097152, true, "timed launch 3", 2093056},
      {"input q (slot 0)", "content", 2097152, false, "", 0},
      {"output o", "guard after", 2097152, true, "the verified launch", 2097152},
      {"reference", "guard before", 4194304, true, "timed launch 0", -65536}};
  const reports::TrustCheckRecord r = CheckIntegrity(regions, 12, 4096, 0.002);
  EXPECT_EQ(r.check, "integrity");
  EXPECT_EQ(r.status, "failed");
  ASSERT_EQ(r.findings.size(), 3u);
  EXPECT_EQ(r.findings[0],
            "timed launch 3 changed input v (slot 0) (2097152 bytes): first in bytes "
            "2093056..2097151");
  EXPECT_NE(r.findings[1].find("the verified launch wrote out of bounds of output o"),
            std::string::npos);
  EXPECT_NE(r.findings[1].find("byte offset 2097152 (past its end)"), std::string::npos);
  EXPECT_NE(r.findings[2].find("byte offset -65536 (before its start)"), std::string::npos);
}

TEST(CheckIntegrityTest, PassesWhenNothingChanged) {
  const reports::TrustCheckRecord r =
      CheckIntegrity({{"input q (slot 0)", "content", 4096, false, "", 0}}, 5, 4096, 0);
  EXPECT_EQ(r.status, "passed");
  EXPECT_TRUE(r.findings.empty());
}

}  // namespace
}  // namespace flashscope::runner
