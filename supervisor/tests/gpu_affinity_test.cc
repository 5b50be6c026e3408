// The CPUs near a GPU (supervisor/gpu_affinity.h): sysfs's cpu lists, the bus ids CUDA and NVML
// print, and the lookup against a made-up sysfs tree.
#include "supervisor/gpu_affinity.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace flashscope::suites {
namespace {

namespace fs = std::filesystem;

TEST(GpuAffinityTest, ParsesTheKernelsCpuLists) {
  EXPECT_EQ(ParseCpuList("0-3,8,10-11\n"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(ParseCpuList("5"), (std::vector<int>{5}));
  EXPECT_EQ(ParseCpuList("3,1-2,2"), (std::vector<int>{1, 2, 3})) << "sorted, once each";
  for (const char* bad : {"", "  ", "a", "3-1", "1-", "-1", "1,,2", "0-99999"}) {
    EXPECT_FALSE(ParseCpuList(bad).has_value()) << "'" << bad << "'";
  }
}

TEST(GpuAffinityTest, NamesBusIdsAsSysfsDoes) {
  EXPECT_EQ(SysfsPciName("00000000:3B:00.0"), "0000:3b:00.0") << "NVML's eight-digit domain";
  EXPECT_EQ(SysfsPciName("0000:19:00.0"), "0000:19:00.0") << "CUDA's";
  for (const char* bad :
       {"", "19:00.0", "0000:19:00", "0000:1g:00.0", "00010000:19:00.0", "../../etc:00:00.0"}) {
    EXPECT_EQ(SysfsPciName(bad), "") << bad;
  }
}

TEST(GpuAffinityTest, CpusNearAGpuComeFromItsPciDeviceWithinOurOwnMask) {
  const fs::path root = fs::temp_directory_path() / ("fs_sysfs_" + std::to_string(::getpid()));
  const fs::path dev = root / "bus/pci/devices/0000:3b:00.0";
  fs::create_directories(dev);
  cpu_set_t mine;
  ASSERT_EQ(sched_getaffinity(0, sizeof(mine), &mine), 0);
  int first = -1;
  for (int c = 0; c < CPU_SETSIZE && first < 0; ++c) {
    if (CPU_ISSET(c, &mine)) first = c;
  }
  ASSERT_GE(first, 0);
  // Our first CPU and one we may not use (CPU_SETSIZE - 1 is in no test machine's mask).
  std::ofstream(dev / "local_cpulist") << first << "," << CPU_SETSIZE - 1 << "\n";
  EXPECT_EQ(CpusNearGpu("00000000:3B:00.0", root.string()), (std::vector<int>{first}));
  EXPECT_TRUE(CpusNearGpu("0000:5e:00.0", root.string()).empty()) << "no such device";
  EXPECT_TRUE(CpusNearGpu("", root.string()).empty()) << "no bus id";
  std::ofstream(dev / "local_cpulist") << "garbage\n";
  EXPECT_TRUE(CpusNearGpu("0000:3b:00.0", root.string()).empty());
  fs::remove_all(root);
}

TEST(GpuAffinityTest, FormatsRanges) {
  EXPECT_EQ(FormatCpuList({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(FormatCpuList({}), "");
  EXPECT_EQ(FormatCpuList({7}), "7");
}

}  // namespace
}  // namespace flashscope::suites
