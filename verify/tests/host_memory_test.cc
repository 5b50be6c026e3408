// The host-memory guard: the bytes a case holds on the host, MemAvailable parsing, and the skip
// message that names every size.
#include "verify/host_memory.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "verify/heatmap.h"
#include "verify/parallel_chunks.h"

namespace flashscope::verify {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kMiB = 1 << 20;

AttentionProblem LadderLargest() {
  AttentionProblem a;
  a.batch = 1;
  a.heads = 16;
  a.seq_q = a.seq_k = 16384;
  a.head_dim = 128;
  a.dtype = DType::kBF16;
  return a;
}

TEST(HostMemory, LadderLargestProblem) {
  // 33.5 M output elements: reference + baseline fp32 = 256 MiB and the bf16 output's copy
  // (64 MiB) held for the problem; a verify with heatmaps adds its maps: 16 chunks of at most
  // 256 x 128 + 1 x 1024 + 256 x 128 + 16 x 256 cells, 20 bytes each, and the layout tables.
  HostBytes h = HostBytesNeeded(LadderLargest(), /*heatmaps=*/true, /*dump=*/false);
  EXPECT_EQ(h.resident, 320 * kMiB);
  const int64_t cells = 256 * 128 + 1024 + 256 * 128 + 16 * 256;
  const HeatmapAccumulator maps =
      HeatmapAccumulator::ForAttention(LadderLargest(), kFullHeatmapSide, kFullHeatmapSide);
  EXPECT_EQ(h.verify, maps.Bytes(kMaxChunks));
  EXPECT_GT(h.verify, kMaxChunks * cells * 20);
  EXPECT_LT(h.verify, 32 * kMiB);  // the fp32 error array it replaced was 128 MiB
  EXPECT_EQ(h.dump, 0);
  EXPECT_EQ(h.peak, h.resident + h.verify);
  HostBytes no_heatmaps = HostBytesNeeded(LadderLargest(), false, false);
  EXPECT_EQ(no_heatmaps.verify, 0);
  EXPECT_EQ(no_heatmaps.peak, 320 * kMiB);
  // A dump converts one array at a time: fp32 (128 MiB) + its raw bf16 copy (64 MiB), more than
  // the maps.
  HostBytes dump = HostBytesNeeded(LadderLargest(), true, true);
  EXPECT_EQ(dump.dump, 192 * kMiB);
  EXPECT_EQ(dump.peak, 512 * kMiB);
}

TEST(HostMemory, LseAndGemm) {
  AttentionProblem a = LadderLargest();
  a.want_lse = true;
  HostBytes h = HostBytesNeeded(a, false, false);
  EXPECT_EQ(h.resident, 320 * kMiB + 2 * 4 * 16 * 16384);  // the reference's lse and the kernel's
  GemmProblem g;
  g.m = 8192;
  g.n = 8192;
  g.k = 16384;
  g.dtype = DType::kF16;
  HostBytes gh = HostBytesNeeded(g, true, true);
  EXPECT_EQ(gh.resident, 768 * kMiB);  // 64 M fp32 elements: reference, baseline, output
  // 16 chunks of 256 x 256 + 256 x 256 cells of 20 bytes (40 MiB) and the layout tables.
  EXPECT_GT(gh.verify, 40 * kMiB);
  EXPECT_LT(gh.verify, 41 * kMiB);
  EXPECT_EQ(gh.dump, 6 * 128 * kMiB);  // B (16384 x 8192) as fp32 + its fp16 copy
  EXPECT_EQ(gh.peak, 768 * kMiB + 768 * kMiB);
}

TEST(HostMemory, GuardSkipsWithEverySize) {
  HostBytes h = HostBytesNeeded(LadderLargest(), true, true);
  EXPECT_TRUE(CheckHostMemory(h, 1200 * kMiB).ok());  // 512 MiB <= 600 MiB
  absl::Status s = CheckHostMemory(h, 800 * kMiB);    // 512 MiB > 400 MiB
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(absl::IsResourceExhausted(s));
  const std::string m(s.message());
  EXPECT_THAT(m, HasSubstr("needs 0.50 GiB of host memory"));
  EXPECT_THAT(m, HasSubstr("host copies of reference, baseline and output 0.31 GiB"));
  EXPECT_THAT(m, HasSubstr("heatmap maps 0.0"));
  EXPECT_THAT(m, HasSubstr("largest .npy dump array 0.19 GiB"));
  EXPECT_THAT(m, HasSubstr("50% of MemAvailable 0.78 GiB is 0.39 GiB"));
}

TEST(HostMemory, ReadsMemAvailable) {
  const auto path =
      std::filesystem::temp_directory_path() / ("fs_meminfo_" + std::to_string(::getpid()));
  {
    std::ofstream(path) << "MemTotal:       32000000 kB\nMemFree:         1000 kB\n"
                           "MemAvailable:   20000000 kB\nBuffers: 1 kB\n";
  }
  auto bytes = MemAvailableBytes(path.string());
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(*bytes, int64_t{20000000} * 1024);
  { std::ofstream(path) << "MemTotal:       32000000 kB\n"; }
  EXPECT_FALSE(MemAvailableBytes(path.string()).ok());
  { std::ofstream(path) << "MemAvailable: lots\n"; }
  EXPECT_THAT(std::string(MemAvailableBytes(path.string()).status().message()),
              HasSubstr("MemAvailable"));
  std::filesystem::remove(path);
  EXPECT_FALSE(MemAvailableBytes(path.string()).ok());
  // This machine's own: a positive number.
  auto real = MemAvailableBytes();
  ASSERT_TRUE(real.ok()) << real.status();
  EXPECT_GT(*real, 0);
}

}  // namespace
}  // namespace flashscope::verify
