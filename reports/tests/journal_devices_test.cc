// The journal of a run on several GPUs (docs/devices.md): device lines, the cases' device fields,
// the devices of a report, and several processes appending to one journal while others read it.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "render/render_markdown.h"
#include "render/render_terminal.h"
#include "reports/devices.h"
#include "reports/journal.h"
#include "reports/report_json.h"
#include "reports/tests/sample_reports.h"

namespace flashscope::reports {
namespace {

using testing::SimpleCase;

DeviceRecord Device(int index, const std::string& name = "NVIDIA H200") {
  DeviceRecord d;
  d.index = index;
  d.uuid = "GPU-0000000" + std::to_string(index) + "-aaaa-bbbb-cccc-dddddddddddd";
  d.pci_bus_id = "0000:1" + std::to_string(index) + ":00.0";
  d.name = name;
  d.compute_capability = 90;
  d.sm_count = 132;
  d.memory_bytes = 150754820096;
  d.sm_clock_mhz = 1980;
  d.driver_version = "580.95.05";
  d.peaks.matmul_bf16_tflops = 700 + index;
  return d;
}

std::string NewJournal() {
  const std::string path = testing::MakeTempDir() + "/run.jsonl";
  auto w = JournalWriter::Open(path, /*append=*/false);
  EXPECT_TRUE(w.ok()) << w.status();
  SuiteRecord s;
  s.name = "devices";
  EXPECT_TRUE(w->WriteHeader(s, "flashscope run devices --devices all", "t0").ok());
  return path;
}

TEST(JournalDevices, OneRecordPerGpuTheFirstKeptAndTheReportListsThemByIndex) {
  const std::string path = NewJournal();
  auto w = JournalWriter::Open(path, /*append=*/true);
  ASSERT_TRUE(w.ok());
  Environment first = testing::SyntheticEnvironment();
  first.gpu_name = "first";
  Environment second = first;
  second.gpu_name = "second";
  ASSERT_TRUE(w->WriteEnvironment(first).ok());
  ASSERT_TRUE(w->WriteEnvironment(second).ok());
  ASSERT_TRUE(w->WriteDevice(Device(3)).ok());
  ASSERT_TRUE(w->WriteDevice(Device(1)).ok());
  DeviceRecord again = Device(3);
  again.peaks.matmul_bf16_tflops = 1;
  ASSERT_TRUE(w->WriteDevice(again).ok());
  CaseResult c = SimpleCase("attn.a01_scalar", "attention_fwd{S=1}", CaseStatus::kPassed, 1.0);
  c.device = 3;
  c.device_uuid = Device(3).uuid;
  ASSERT_TRUE(w->CaseFinished(0, c).ok());

  auto j = ReadJournal(path);
  ASSERT_TRUE(j.ok()) << j.status();
  EXPECT_EQ(j->environment->gpu_name, "first") << "workers starting together: the first line wins";
  ASSERT_EQ(j->devices.size(), 2u);
  EXPECT_EQ(j->devices[0].index, 1);
  EXPECT_EQ(j->devices[1].index, 3);
  EXPECT_EQ(j->devices[1].peaks.matmul_bf16_tflops, 703) << "a GPU's first record is kept";
  const Report r = ReportFromJournal(*j);
  ASSERT_EQ(r.environment.devices.size(), 2u);
  EXPECT_EQ(r.environment.devices[1].pci_bus_id, "0000:13:00.0");
  ASSERT_EQ(r.cases.size(), 1u);
  EXPECT_EQ(r.cases[0].device, 3);
  EXPECT_EQ(r.cases[0].device_uuid, Device(3).uuid);
  // Every output names the GPUs.
  EXPECT_NE(RenderSummary(r, /*color=*/false)
                .find("ran on 2 GPUs: device 1 (NVIDIA H200, GPU-00000001-aaaa-bbbb-cccc-"
                      "dddddddddddd, 0000:11:00.0); device 3 ("),
            std::string::npos)
      << RenderSummary(r, false);
  EXPECT_NE(RenderReportMarkdown(r).find("2 GPUs (devices 1, 3)"), std::string::npos);

  // And the report keeps them through its JSON form.
  auto back = ReportFromJson(ToJson(r));
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->environment.devices.size(), 2u);
  EXPECT_EQ(back->environment.devices[0].uuid, Device(1).uuid);
  EXPECT_EQ(back->environment.devices[0].driver_version, "580.95.05");
  EXPECT_EQ(back->environment.devices[0].peaks.matmul_bf16_tflops, 701);
  EXPECT_EQ(back->cases[0].device, 3);
}

TEST(JournalDevices, ACaseWithoutADeviceStaysWithout) {
  CaseResult c = SimpleCase("attn.a01_scalar", "attention_fwd{S=1}", CaseStatus::kError, 0);
  auto back = CaseFromJson(CaseToJson(c));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_FALSE(back->device.has_value());
  EXPECT_FALSE(CaseToJson(c).contains("device"));
  EXPECT_FALSE(ToJson(Report{}).at("environment").contains("devices"))
      << "reports of one unnamed GPU look as they did before --devices";
}

TEST(JournalDevices, ModelsDifferByNameMemoryAndClockNotByIdentity) {
  EXPECT_EQ(ModelDifference(Device(0), Device(1)), "") << "two boards of one model";
  DeviceRecord h100 = Device(2, "NVIDIA H100 80GB HBM3");
  h100.memory_bytes = 85520809984;
  EXPECT_EQ(ModelDifference(Device(0), h100),
            "name NVIDIA H200 vs NVIDIA H100 80GB HBM3, memory 140 GiB vs 80 GiB");
  DeviceRecord slower = Device(1);
  slower.sm_clock_mhz = 1755;
  EXPECT_EQ(ModelDifference(Device(0), slower), "maximum SM clock 1980 MHz vs 1755 MHz");
  EXPECT_EQ(ModelText(Device(0)), "NVIDIA H200 (sm_90, 132 SMs, 140 GiB)");
  EXPECT_EQ(DeviceText(Device(0)),
            "device 0 (NVIDIA H200, GPU-00000000-aaaa-bbbb-cccc-dddddddddddd, 0000:10:00.0)");
}

// A case result whose line is about `kb` kilobytes: big lines are written in several pieces by
// the kernel, which is when a reader without the lock sees half of one.
CaseResult BigCase(int writer, int i, int kb) {
  CaseResult c = SimpleCase("w" + std::to_string(writer), "p{i=" + std::to_string(i) + "}",
                            CaseStatus::kPassed, 1.0);
  c.timing->samples_ms.assign(static_cast<size_t>(kb) * 1024 / 20, 1.2345678901234567 + writer);
  c.timing->median_ms = c.timing->samples_ms[0];  // a timing agrees with its samples
  return c;
}

TEST(JournalDevices, ConcurrentWritersNeverInterleaveAndReadersNeverSeeHalfALine) {
  const std::string path = NewJournal();
  constexpr int kWriters = 4, kLines = 10, kKb = 2048;
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters; ++w) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      auto writer = JournalWriter::Open(path, /*append=*/true);
      if (!writer.ok()) _exit(3);
      for (int i = 0; i < kLines; ++i) {
        if (!writer->CaseStarted(w * kLines + i, "x").ok()) _exit(4);
        if (!writer->CaseFinished(w * kLines + i, BigCase(w, i, kKb)).ok()) _exit(5);
      }
      _exit(0);
    }
    children.push_back(pid);
  }
  // Read while they write: every snapshot must parse whole.
  int snapshots = 0, running = kWriters;
  while (running > 0) {
    auto j = ReadJournal(path);
    ASSERT_TRUE(j.ok()) << j.status();
    ASSERT_EQ(j->bad_lines, 0) << "a reader saw a line that was being written (snapshot "
                               << snapshots << ", " << j->finished.size() << " results)";
    ++snapshots;
    running = 0;
    for (pid_t& pid : children) {
      int status = 0;
      if (pid > 0 && waitpid(pid, &status, WNOHANG) == pid) {
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
        pid = -1;
      }
      running += pid > 0;
    }
  }
  auto j = ReadJournal(path);
  ASSERT_TRUE(j.ok()) << j.status();
  EXPECT_EQ(j->bad_lines, 0);
  ASSERT_EQ(j->finished.size(), static_cast<size_t>(kWriters * kLines));
  for (const auto& [index, c] : j->finished) {
    EXPECT_EQ(c.timing->samples_ms.size(), static_cast<size_t>(kKb) * 1024 / 20) << index;
  }
  EXPECT_TRUE(j->started_unfinished.empty());
  EXPECT_GT(snapshots, 1);
}

}  // namespace
}  // namespace flashscope::reports
