// Reading compute-sanitizer's output: counts, kinds and kernel names from the layouts the tool has
// printed across CUDA releases (location first with -lineinfo, function first in newer releases),
// racecheck's hazards, and logs cut short.
#include "supervisor/sanitizer_output.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace flashscope::suites {
namespace {

using ::testing::HasSubstr;

// memcheck on test.oob_write (one store 1 TiB past O), the older location-first layout, with the
// host backtrace that must not end up in the report.
constexpr char kMemcheckOob[] = R"(========= COMPUTE-SANITIZER
========= Invalid __global__ write of size 1 bytes
=========     at 0x90 in /work/main/kernels/testing/faulty_kernels.cu:27:flashscope::kernels::(anonymous namespace)::OobWriteKernel(unsigned char *)
=========     by thread (0,0,0) in block (0,0,0)
=========     Address 0x7f2a4e000000 is out of bounds
=========     and is 1099511627776 bytes after the nearest allocation at 0x7e2a4e000000 of size 4352 bytes
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: [0x2d9b8f] in /usr/lib/x86_64-linux-gnu/libcuda.so.1
=========
========= Target application returned an error
========= ERROR SUMMARY: 1 error
)";

// The newer function-first layout, two kinds, and a misaligned access.
constexpr char kMemcheckNewLayout[] = R"(========= COMPUTE-SANITIZER
========= Invalid __shared__ read of size 16 bytes
=========     at void attn_kernel<(int)64>(const __half *, __half *)+0x1a70 in a05_mma_ldmatrix.cu:140
=========     by thread (32,0,0) in block (3,1,0)
=========     Address 0x8 is misaligned
=========
========= Invalid __shared__ read of size 16 bytes
=========     at void attn_kernel<(int)64>(const __half *, __half *)+0x1a70 in a05_mma_ldmatrix.cu:140
=========     by thread (33,0,0) in block (3,1,0)
=========
========= Invalid __global__ read of size 4 bytes
=========     at gemm_kernel(const float *, float *, int)+0x70
=========     by thread (1,0,0) in block (0,0,0)
=========
========= ERROR SUMMARY: 3 errors
)";

constexpr char kClean[] = R"(========= COMPUTE-SANITIZER
flashscope worker output that is not the tool's
========= ERROR SUMMARY: 0 errors
)";

constexpr char kRacecheck[] = R"(========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at 0x1e0 in a02_smem_tiled.cu:45:tile_kernel(float *)
=========     and Read access at 0x1c0 in a02_smem_tiled.cu:40:tile_kernel(float *) [4 hazards]
=========
========= Warning: Race reported between Read access at tile_kernel(float *)+0x2a0 in a02_smem_tiled.cu:60
=========     and Write access at tile_kernel(float *)+0x300 in a02_smem_tiled.cu:61 [2 hazards]
=========
========= RACECHECK SUMMARY: 2 hazards displayed (1 error, 1 warning)
)";

TEST(SanitizerOutput, MemcheckOutOfBoundsWriteWithLineInfo) {
  reports::SanitizerRecord r = ParseSanitizerOutput("memcheck", kMemcheckOob);
  EXPECT_TRUE(r.ran);
  EXPECT_EQ(r.tool, "memcheck");
  EXPECT_EQ(r.errors, 1);
  ASSERT_EQ(r.kinds.size(), 1u);
  EXPECT_EQ(r.kinds.at("Invalid __global__ write"), 1);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].kernel,
            "flashscope::kernels::(anonymous namespace)::OobWriteKernel(unsigned char *)");
  EXPECT_THAT(r.findings[0].message, HasSubstr("Invalid __global__ write of size 1 bytes"));
  EXPECT_THAT(r.findings[0].message, HasSubstr("by thread (0,0,0) in block (0,0,0)"));
  EXPECT_THAT(r.findings[0].message, HasSubstr("is out of bounds"));
  EXPECT_THAT(r.findings[0].message, ::testing::Not(HasSubstr("Host Frame")));
  // The application's own exit is a note, not a finding.
  EXPECT_THAT(r.note, HasSubstr("Target application returned an error"));
}

TEST(SanitizerOutput, MemcheckNewLayoutCountsKinds) {
  reports::SanitizerRecord r = ParseSanitizerOutput("memcheck", kMemcheckNewLayout);
  EXPECT_TRUE(r.ran);
  EXPECT_EQ(r.errors, 3);
  EXPECT_EQ(r.kinds.at("Invalid __shared__ read"), 2);
  EXPECT_EQ(r.kinds.at("Invalid __global__ read"), 1);
  ASSERT_EQ(r.findings.size(), 3u);
  EXPECT_EQ(r.findings[0].kernel, "void attn_kernel<(int)64>(const __half *, __half *)");
  EXPECT_EQ(r.findings[2].kernel, "gemm_kernel(const float *, float *, int)");
  EXPECT_TRUE(r.note.empty()) << r.note;
}

TEST(SanitizerOutput, CleanRunIgnoresTheApplicationsOwnLines) {
  reports::SanitizerRecord r = ParseSanitizerOutput("initcheck", kClean);
  EXPECT_TRUE(r.ran);
  EXPECT_EQ(r.errors, 0);
  EXPECT_TRUE(r.kinds.empty());
  EXPECT_TRUE(r.findings.empty());
}

TEST(SanitizerOutput, RacecheckHazardsAndSummary) {
  reports::SanitizerRecord r = ParseSanitizerOutput("racecheck", kRacecheck);
  EXPECT_TRUE(r.ran);
  EXPECT_EQ(r.errors, 1);  // errors, not warnings
  EXPECT_EQ(r.kinds.at("Error: Race reported between Write access"), 1);
  EXPECT_EQ(r.kinds.at("Warning: Race reported between Read access"), 1);
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[0].kernel, "tile_kernel(float *)");
  EXPECT_EQ(r.findings[1].kernel, "tile_kernel(float *)");
  EXPECT_THAT(r.findings[0].message, HasSubstr("and Read access"));
}

TEST(SanitizerOutput, ManyErrorsKeepOnlyTheFirstFindingsButCountAll) {
  std::string log = "========= COMPUTE-SANITIZER\n";
  for (int i = 0; i < 40; ++i) {
    log += "========= Invalid __global__ write of size 4 bytes\n";
    log += "=========     at k(float *)+0x10 in k.cu:3\n=========\n";
  }
  log += "========= ERROR SUMMARY: 1234 errors\n";
  reports::SanitizerRecord r = ParseSanitizerOutput("memcheck", log);
  EXPECT_EQ(r.errors, 1234);
  EXPECT_EQ(r.kinds.at("Invalid __global__ write"), 40);
  EXPECT_EQ(static_cast<int>(r.findings.size()), kMaxSanitizerFindings);
}

TEST(SanitizerOutput, LogWithoutSummaryIsNotARun) {
  reports::SanitizerRecord r =
      ParseSanitizerOutput("memcheck", "========= COMPUTE-SANITIZER\n========= Invalid __glo");
  EXPECT_FALSE(r.ran);
  EXPECT_THAT(r.note, HasSubstr("no ERROR SUMMARY"));
  EXPECT_FALSE(ParseSanitizerOutput("memcheck", "").ran);
}

TEST(SanitizerOutput, KindsAndKernelNames) {
  EXPECT_EQ(SanitizerErrorKind("Program hit cudaErrorLaunchFailure (error 719) due to "
                               "\"unspecified launch failure\" on CUDA API call to "
                               "cudaStreamSynchronize."),
            "Program hit cudaErrorLaunchFailure (error 719)");
  EXPECT_EQ(SanitizerErrorKind("Barrier error detected. Divergent thread(s) in warp"),
            "Barrier error detected");
  EXPECT_EQ(SanitizerErrorKind("Uninitialized __global__ memory read of size 4 bytes"),
            "Uninitialized __global__ memory read");
  EXPECT_EQ(SanitizerErrorKind("Leaked 1024 bytes at 0x7f0000000000"), "Leaked device memory");
  EXPECT_EQ(SanitizerKernelName("at 0x70 in k.cu:12"), "");
  EXPECT_EQ(SanitizerKernelName("at 0x70 in kern(int)"), "kern(int)");
  EXPECT_EQ(SanitizerKernelName("by thread (0,0,0)"), "");
}

TEST(SanitizerOutput, ToolNamesAreChecked) {
  EXPECT_TRUE(CheckSanitizerTool("memcheck").ok());
  EXPECT_TRUE(CheckSanitizerTool("racecheck").ok());
  absl::Status s = CheckSanitizerTool("memchek");
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("memcheck, racecheck, initcheck, synccheck"));
}

TEST(SanitizerOutput, FindsTheToolOnPathOrSaysWhereItLooked) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("fs_sanitizer_path_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string saved_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  const char* saved_home = std::getenv("CUDA_HOME");
  const std::string saved_home_value = saved_home ? saved_home : "";
  const std::string fake = (dir / "compute-sanitizer").string();
  { std::ofstream(fake) << "#!/bin/sh\n"; }
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  setenv("PATH", dir.c_str(), 1);
  auto found = FindComputeSanitizer();
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(*found, fake);

  if (!std::filesystem::exists("/usr/local/cuda/bin/compute-sanitizer")) {
    setenv("PATH", "/nonexistent", 1);
    setenv("CUDA_HOME", "/nonexistent-cuda", 1);
    auto missing = FindComputeSanitizer();
    ASSERT_FALSE(missing.ok());
    EXPECT_THAT(std::string(missing.status().message()), HasSubstr("compute-sanitizer not found"));
    EXPECT_THAT(std::string(missing.status().message()), HasSubstr("/usr/local/cuda/bin"));
    EXPECT_THAT(std::string(missing.status().message()), HasSubstr("/nonexistent-cuda/bin"));
  }
  setenv("PATH", saved_path.c_str(), 1);
  if (saved_home) {
    setenv("CUDA_HOME", saved_home_value.c_str(), 1);
  } else {
    unsetenv("CUDA_HOME");
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace flashscope::suites
