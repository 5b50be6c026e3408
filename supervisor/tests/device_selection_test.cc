// --devices (supervisor/device_selection.h): the text, the GPUs it names, one model unless forced
// (counting a resumed run's GPUs), and the pinning of each worker.
#include "supervisor/device_selection.h"

#include <gtest/gtest.h>

namespace flashscope::suites {
namespace {

reports::DeviceRecord Gpu(int index, const std::string& name = "NVIDIA H200", int64_t gib = 141) {
  reports::DeviceRecord d;
  d.index = index;
  d.uuid = "GPU-" + std::to_string(index);
  d.pci_bus_id = "0000:0" + std::to_string(index) + ":00.0";
  d.name = name;
  d.compute_capability = 90;
  d.sm_count = 132;
  d.memory_bytes = gib << 30;
  d.sm_clock_mhz = 1980;
  return d;
}

std::string Message(const absl::Status& s) { return std::string(s.message()); }

TEST(DeviceSelection, ParsesAllAListOrNothing) {
  auto none = ParseDeviceSelection("");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->given);
  auto all = ParseDeviceSelection("all");
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->given && all->all);
  auto list = ParseDeviceSelection("3,0,2");
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->indices, (std::vector<int>{3, 0, 2}));
}

TEST(DeviceSelection, RefusesBadTextSayingWhatIsExpected) {
  for (const auto& [text, why] :
       std::vector<std::pair<std::string, std::string>>{{"0,0", "GPU 0 is named twice"},
                                                        {"x", "'x' is not a GPU index"},
                                                        {"1,-2", "'-2' is not a GPU index"},
                                                        {"0,", "'' is not a GPU index"},
                                                        {"ALL", "'ALL' is not a GPU index"}}) {
    auto s = ParseDeviceSelection(text);
    ASSERT_FALSE(s.ok()) << text;
    EXPECT_EQ(Message(s.status()),
              "--devices " + text + ": " + why +
                  " (expected 'all' or a comma list of GPU indices such as 0,2,3; `nvidia-smi -L` "
                  "lists them)");
  }
}

TEST(DeviceSelection, WithoutDevicesOneUnpinnedWorkerOnDeviceZero) {
  std::vector<std::string> warnings;
  auto slots = ChooseDevices({}, {Gpu(0), Gpu(1)}, {}, false, &warnings);
  ASSERT_TRUE(slots.ok()) << slots.status();
  ASSERT_EQ(slots->size(), 1u);
  EXPECT_FALSE((*slots)[0].pinned);
  EXPECT_TRUE(PinningEnvironment((*slots)[0]).empty()) << "the user's environment stays as it is";
}

TEST(DeviceSelection, ChosenGpusArePinnedByUuid) {
  std::vector<std::string> warnings;
  auto slots =
      ChooseDevices(*ParseDeviceSelection("2,0"), {Gpu(0), Gpu(1), Gpu(2)}, {}, false, &warnings);
  ASSERT_TRUE(slots.ok()) << slots.status();
  ASSERT_EQ(slots->size(), 2u);
  EXPECT_EQ((*slots)[0].device.index, 2);
  const auto env = PinningEnvironment((*slots)[0]);
  ASSERT_EQ(env.size(), 1u);
  EXPECT_EQ(env[0], (std::pair<std::string, std::string>{"CUDA_VISIBLE_DEVICES", "GPU-2"}));
  auto all = ChooseDevices(*ParseDeviceSelection("all"), {Gpu(0), Gpu(1)}, {}, false, &warnings);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 2u);
  EXPECT_TRUE(warnings.empty());
}

TEST(DeviceSelection, AnIndexThatIsNoGpuIsRefusedListingTheGpus) {
  std::vector<std::string> warnings;
  auto slots = ChooseDevices(*ParseDeviceSelection("0,5"), {Gpu(0), Gpu(1)}, {}, false, &warnings);
  ASSERT_FALSE(slots.ok());
  EXPECT_EQ(Message(slots.status()),
            "--devices 0,5: there is no GPU 5; CUDA sees 2: device 0 (NVIDIA H200, GPU-0, "
            "0000:00:00.0); device 1 (NVIDIA H200, GPU-1, 0000:01:00.0) (expected 'all' or a "
            "comma list of GPU indices such as 0,2,3; `nvidia-smi -L` lists them)");
}

TEST(DeviceSelection, MixedModelsAreRefusedNamingWhatDiffersUnlessForced) {
  const std::vector<reports::DeviceRecord> visible = {Gpu(0), Gpu(1, "NVIDIA H100 80GB HBM3", 80)};
  std::vector<std::string> warnings;
  auto refused = ChooseDevices(*ParseDeviceSelection("all"), visible, {}, false, &warnings);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(Message(refused.status()),
            "GPUs of different models: device 0 is NVIDIA H200 (sm_90, 132 SMs, 141 GiB), device "
            "1 is NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 80 GiB) (name NVIDIA H200 vs NVIDIA H100 "
            "80GB HBM3, memory 141 GiB vs 80 GiB). Timings of different models do not compare "
            "within one report: choose GPUs of one model with --devices, or pass --force to run "
            "on them anyway");
  auto forced = ChooseDevices(*ParseDeviceSelection("all"), visible, {}, true, &warnings);
  ASSERT_TRUE(forced.ok()) << forced.status();
  EXPECT_EQ(forced->size(), 2u);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].rfind("--force: GPUs of different models: device 0 is NVIDIA H200", 0), 0u)
      << warnings[0];
  // One model is fine even when another is in the machine.
  warnings.clear();
  EXPECT_TRUE(ChooseDevices(*ParseDeviceSelection("0"), visible, {}, false, &warnings).ok());
}

TEST(DeviceSelection, AResumedRunKeepsToTheModelItStartedOn) {
  std::vector<std::string> warnings;
  const std::vector<reports::DeviceRecord> before = {Gpu(0, "NVIDIA H100 80GB HBM3", 80)};
  auto refused = ChooseDevices({}, {Gpu(0)}, before, false, &warnings);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(Message(refused.status())
                .find("GPUs of different models (with those that ran the resumed run's cases): "
                      "device 0 is NVIDIA H100 80GB HBM3"),
            std::string::npos)
      << refused.status();
  EXPECT_TRUE(ChooseDevices({}, {Gpu(0)}, {Gpu(3)}, false, &warnings).ok())
      << "another GPU of the same model may go on with it";
  EXPECT_TRUE(ChooseDevices({}, {Gpu(0)}, before, true, &warnings).ok());
}

}  // namespace
}  // namespace flashscope::suites
