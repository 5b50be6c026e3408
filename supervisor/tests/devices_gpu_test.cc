// `flashscope run --devices` on a real GPU (docs/devices.md), through the real supervisor and
// workers: with `--devices 0` the faults suite gives the verdicts of a plain run (one case per
// fault, a fresh pinned worker after each), every case names the GPU it ran on by index and UUID,
// and the report's environment lists that GPU with its PCI bus id and peaks; `--devices all`
// runs on every GPU CUDA sees; an index that is no GPU is refused. Needs one GPU; the multi-GPU
// run is scripts/device/devices-interference.sh.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "reports/report_json.h"
#include "supervisor/tests/gpu_run_paths.h"

namespace flashscope {
namespace {

namespace fs = std::filesystem;

using testing::FaultSuite;
using testing::Flashscope;

// Runs `flashscope run FaultSuite() ARGS --out OUT --quiet`; returns its exit code.
int RunFaults(const std::string& args, const std::string& out) {
  fs::remove(out);
  const std::string cmd = Flashscope() + " run " + FaultSuite() + " " + args + " --out " + out +
                          " --quiet 2>" + out + ".stderr";
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

TEST(DevicesGpuTest, DeviceZeroGivesThePlainVerdictsAndNamesItsGpu) {
  const std::string out = (fs::temp_directory_path() / "flashscope_devices0.json").string();
  EXPECT_EQ(RunFaults("--devices 0 --case_timeout_s 10", out), 1);
  auto report = reports::ReadReportFile(out);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->complete);
  ASSERT_EQ(report->cases.size(), 12u);
  ASSERT_EQ(report->environment.devices.size(), 1u);
  const reports::DeviceRecord& gpu = report->environment.devices[0];
  EXPECT_EQ(gpu.index, 0);
  EXPECT_EQ(gpu.uuid.rfind("GPU-", 0), 0u) << gpu.uuid;
  EXPECT_FALSE(gpu.pci_bus_id.empty());
  EXPECT_EQ(gpu.name, report->environment.gpu_name);
  EXPECT_GT(gpu.peaks.matmul_bf16_tflops, 0) << "peaks measured on the GPU itself";
  const std::map<std::string, reports::CaseStatus> expected = {
      {"attn.a01_scalar", reports::CaseStatus::kPassed},
      {"attn.a02_smem_tiled", reports::CaseStatus::kPassed},
      {"test.oob_write", reports::CaseStatus::kError},
      {"test.infinite_loop", reports::CaseStatus::kTimeout},
      {"test.nan_output", reports::CaseStatus::kFailed},
      {"test.half_output", reports::CaseStatus::kFailed}};
  for (const auto& c : report->cases) {
    EXPECT_EQ(c.status, expected.at(c.kernel_id)) << c.Key() << ": " << c.reason;
    EXPECT_EQ(c.device, 0) << c.Key();
    EXPECT_EQ(c.device_uuid, gpu.uuid) << c.Key();
  }
}

TEST(DevicesGpuTest, AllRunsOnEveryGpuCudaSees) {
  const std::string out = (fs::temp_directory_path() / "flashscope_devices_all.json").string();
  EXPECT_EQ(RunFaults("--devices all --kernels attn.a01_scalar,attn.a02_smem_tiled", out), 0);
  auto report = reports::ReadReportFile(out);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->complete);
  ASSERT_FALSE(report->environment.devices.empty());
  std::set<std::string> uuids;
  for (const auto& d : report->environment.devices) uuids.insert(d.uuid);
  EXPECT_EQ(uuids.size(), report->environment.devices.size()) << "one record per GPU";
  for (const auto& c : report->cases) {
    EXPECT_EQ(c.status, reports::CaseStatus::kPassed) << c.Key();
    EXPECT_TRUE(uuids.count(c.device_uuid)) << c.Key() << " ran on an unlisted GPU";
  }
}

TEST(DevicesGpuTest, AnIndexThatIsNoGpuIsRefusedBeforeAnythingRuns) {
  const std::string out = (fs::temp_directory_path() / "flashscope_devices_99.json").string();
  EXPECT_EQ(RunFaults("--devices 99", out), 2);
  std::ifstream err(out + ".stderr");
  const std::string said((std::istreambuf_iterator<char>(err)), std::istreambuf_iterator<char>());
  EXPECT_NE(said.find("--devices 99: there is no GPU 99; CUDA sees "), std::string::npos) << said;
  EXPECT_FALSE(fs::exists(out + ".journal.jsonl"));
}

}  // namespace
}  // namespace flashscope
