// `flashscope ab` on the GPU, through the real binaries, with the ab quality fixture's builds
// (kernels/testing/ab_fixture.h): a 5 % slower build is found with its size, two builds of the
// same code are the same, both reports carry the interleaved pairs and each side's provenance.
// The statistics' quality over 50 pairs is scripts/device/ab-quality.sh's (docs/gate-quality.md).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "nlohmann/json.hpp"
#include "reports/report_json.h"

namespace flashscope {
namespace {

namespace fs = std::filesystem;

std::string Fixture(const std::string& build) {
  return std::string(FLASHSCOPE_AB_FIXTURE_DIR) + "/libfs_ab_a10_" + build + ".so";
}

// Runs ab of the 0 % build against `build` into a fresh folder; returns the exit code.
int Ab(const std::string& build, const fs::path& dir) {
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "suite.json") << R"({"name": "ab_gpu", "kernels": ["test.ab_a10_1"],
    "problems": [{"family": "attention_fwd", "axes": {"dtype": "bf16", "head_dim": 128,
      "tokens": 8192, "heads": 16, "seq": [2048, 4096]}}],
    "timing": {"min_samples": 30, "time_cap_s": 0.5}, "verify": {"heatmaps": "none"}})";
  const std::string cmd = std::string(FLASHSCOPE_BINARY_DIR) + "/cli/flashscope ab " +
                          (dir / "suite.json").string() + " --base " + Fixture("p0") + " --new " +
                          Fixture(build) + " --out-dir " + (dir / "out").string() + " --json " +
                          (dir / "verdict.json").string() + " --quiet";
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

TEST(AbGpuTest, AFivePercentSlowerBuildIsFoundAndTwoEqualBuildsAreTheSame) {
  const fs::path dir = fs::temp_directory_path() / "flashscope_ab_gpu";
  ASSERT_EQ(Ab("p5", dir), 1);
  std::ifstream in(dir / "verdict.json");
  const nlohmann::json v = nlohmann::json::parse(in);
  ASSERT_EQ(v["cases"].size(), 2u);
  for (const auto& c : v["cases"]) {
    EXPECT_EQ(c["verdict"], "slower") << c.dump();
    EXPECT_NEAR(c["effect_pct"].get<double>(), 5.0, 1.5) << c.dump();
  }
  auto base = reports::ReadReportFile((dir / "out" / "base.json").string());
  auto next = reports::ReadReportFile((dir / "out" / "new.json").string());
  ASSERT_TRUE(base.ok() && next.ok());
  const auto& b = base->cases[0];
  const auto& n = next->cases[0];
  ASSERT_TRUE(b.timing && b.timing->interleaved && n.timing && n.timing->interleaved);
  EXPECT_EQ(b.timing->interleaved->order, n.timing->interleaved->order);
  EXPECT_GE(b.timing->samples_ms.size(), 30u);
  EXPECT_NE(b.provenance->version, n.provenance->version);
  EXPECT_EQ(b.status, reports::CaseStatus::kPassed);
  EXPECT_EQ(n.status, reports::CaseStatus::kPassed);
  EXPECT_EQ(Ab("p0b", dir), 0) << "A/A: two builds of the same code";
}

}  // namespace
}  // namespace flashscope
