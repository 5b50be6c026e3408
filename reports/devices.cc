#include "reports/devices.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace flashscope::reports {
namespace {

std::string GiB(int64_t bytes) {
  return absl::StrCat(static_cast<int64_t>(std::llround(bytes / 1073741824.0)), " GiB");
}

// Memory sizes of one model differ by a few MiB between boards (reserved regions): compare whole
// GiB.
bool SameMemory(int64_t a, int64_t b) { return GiB(a) == GiB(b); }

}  // namespace

std::string ModelDifference(const DeviceRecord& a, const DeviceRecord& b) {
  std::vector<std::string> diffs;
  if (a.name != b.name) diffs.push_back(absl::StrCat("name ", a.name, " vs ", b.name));
  if (a.compute_capability != b.compute_capability) {
    diffs.push_back(absl::StrCat("compute capability sm_", a.compute_capability, " vs sm_",
                                 b.compute_capability));
  }
  if (a.sm_count != b.sm_count) {
    diffs.push_back(absl::StrCat("SMs ", a.sm_count, " vs ", b.sm_count));
  }
  if (!SameMemory(a.memory_bytes, b.memory_bytes)) {
    diffs.push_back(absl::StrCat("memory ", GiB(a.memory_bytes), " vs ", GiB(b.memory_bytes)));
  }
  if (a.sm_clock_mhz != b.sm_clock_mhz) {
    diffs.push_back(
        absl::StrCat("maximum SM clock ", a.sm_clock_mhz, " MHz vs ", b.sm_clock_mhz, " MHz"));
  }
  return absl::StrJoin(diffs, ", ");
}

std::string ModelText(const DeviceRecord& d) {
  return absl::StrCat(d.name.empty() ? "unnamed GPU" : d.name, " (sm_", d.compute_capability, ", ",
                      d.sm_count, " SMs, ", GiB(d.memory_bytes), ")");
}

std::string DeviceText(const DeviceRecord& d) {
  std::vector<std::string> parts = {d.name.empty() ? "unnamed GPU" : d.name};
  if (!d.uuid.empty()) parts.push_back(d.uuid);
  if (!d.pci_bus_id.empty()) parts.push_back(d.pci_bus_id);
  return absl::StrCat("device ", d.index, " (", absl::StrJoin(parts, ", "), ")");
}

void AddDevices(const std::vector<DeviceRecord>& extra, std::vector<DeviceRecord>* devices) {
  for (const DeviceRecord& d : extra) {
    const bool known = std::any_of(devices->begin(), devices->end(), [&](const DeviceRecord& e) {
      return d.uuid.empty() ? e.uuid.empty() && e.index == d.index : e.uuid == d.uuid;
    });
    if (!known) devices->push_back(d);
  }
  std::stable_sort(devices->begin(), devices->end(),
                   [](const DeviceRecord& a, const DeviceRecord& b) {
                     return a.index != b.index ? a.index < b.index : a.uuid < b.uuid;
                   });
}

const DeviceRecord* FindDevice(const std::vector<DeviceRecord>& devices, const std::string& uuid) {
  for (const DeviceRecord& d : devices) {
    if (d.uuid == uuid) return &d;
  }
  return nullptr;
}

}  // namespace flashscope::reports
