#include "supervisor/device_selection.h"

#include <algorithm>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "reports/devices.h"
#include "supervisor/gpu_affinity.h"

namespace flashscope::suites {
namespace {

absl::Status BadSelection(const std::string& text, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat("--devices ", text, ": ", why,
                                                 " (expected 'all' or a comma list of GPU indices "
                                                 "such as 0,2,3; `nvidia-smi -L` lists them)"));
}

std::string VisibleList(const std::vector<reports::DeviceRecord>& visible) {
  std::vector<std::string> names;
  for (const auto& d : visible) names.push_back(reports::DeviceText(d));
  return absl::StrJoin(names, "; ");
}

// Every GPU of `devices` against the first: "" when one model, else who differs and how.
std::string MixedModels(const std::vector<reports::DeviceRecord>& devices, const char* where) {
  std::vector<std::string> differ;
  for (size_t i = 1; i < devices.size(); ++i) {
    const std::string diff = reports::ModelDifference(devices[0], devices[i]);
    if (diff.empty()) continue;
    differ.push_back(absl::StrCat("device ", devices[i].index, " is ",
                                  reports::ModelText(devices[i]), " (", diff, ")"));
  }
  if (differ.empty()) return "";
  return absl::StrCat("GPUs of different models", where, ": device ", devices[0].index, " is ",
                      reports::ModelText(devices[0]), ", ", absl::StrJoin(differ, ", "));
}

}  // namespace

absl::StatusOr<DeviceSelection> ParseDeviceSelection(const std::string& text) {
  DeviceSelection s;
  if (text.empty()) return s;
  s.given = true;
  if (text == "all") {
    s.all = true;
    return s;
  }
  std::set<int> seen;
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    int index = -1;
    if (!absl::SimpleAtoi(part, &index) || index < 0) {
      return BadSelection(text, absl::StrCat("'", part, "' is not a GPU index"));
    }
    if (!seen.insert(index).second) {
      return BadSelection(text, absl::StrCat("GPU ", index, " is named twice"));
    }
    s.indices.push_back(index);
  }
  return s;
}

absl::StatusOr<std::vector<DeviceSlot>> ChooseDevices(
    const DeviceSelection& selection, const std::vector<reports::DeviceRecord>& visible,
    const std::vector<reports::DeviceRecord>& journal_devices, bool force,
    std::vector<std::string>* warnings) {
  std::vector<DeviceSlot> slots;
  if (visible.empty()) {
    return absl::FailedPreconditionError("no GPU was found to run on");
  }
  if (!selection.given) {
    slots.push_back({visible[0], /*pinned=*/false});
  } else if (selection.all) {
    for (const auto& d : visible) slots.push_back({d, /*pinned=*/true});
  } else {
    const std::string text = absl::StrJoin(selection.indices, ",");
    for (int index : selection.indices) {
      auto it = std::find_if(visible.begin(), visible.end(),
                             [&](const reports::DeviceRecord& d) { return d.index == index; });
      if (it == visible.end()) {
        return BadSelection(text, absl::StrCat("there is no GPU ", index, "; CUDA sees ",
                                               visible.size(), ": ", VisibleList(visible)));
      }
      slots.push_back({*it, /*pinned=*/true});
    }
  }
  for (const DeviceSlot& s : slots) {
    if (s.pinned && s.device.uuid.empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat(reports::DeviceText(s.device),
                       " has no UUID, so its worker cannot be pinned to it (CUDA_VISIBLE_DEVICES "
                       "takes one); run without --devices"));
    }
  }
  std::vector<reports::DeviceRecord> all;
  for (const auto& s : slots) all.push_back(s.device);
  std::string mixed = MixedModels(all, "");
  if (mixed.empty() && !journal_devices.empty()) {
    std::vector<reports::DeviceRecord> with_journal = journal_devices;
    with_journal.push_back(all[0]);
    mixed = MixedModels(with_journal, " (with those that ran the resumed run's cases)");
  }
  if (!mixed.empty()) {
    if (!force) {
      return absl::InvalidArgumentError(absl::StrCat(
          mixed,
          ". Timings of different models do not compare within one report: choose GPUs of one "
          "model with --devices, or pass --force to run on them anyway"));
    }
    warnings->push_back(absl::StrCat("--force: ", mixed));
  }
  for (DeviceSlot& s : slots) {
    if (s.pinned) s.cpus = CpusNearGpu(s.device.pci_bus_id);
  }
  return slots;
}

std::vector<std::pair<std::string, std::string>> PinningEnvironment(const DeviceSlot& slot) {
  if (!slot.pinned) return {};
  return {{"CUDA_VISIBLE_DEVICES", slot.device.uuid}};
}

std::string RenderDevices(const std::vector<DeviceSlot>& slots) {
  std::string out;
  for (const DeviceSlot& s : slots) {
    absl::StrAppend(
        &out, "  ", reports::DeviceText(s.device), ": ", reports::ModelText(s.device),
        s.pinned ? ", its worker pinned to it" : ", CUDA's default device",
        s.cpus.empty() ? "" : absl::StrCat(" on the CPUs near it (", FormatCpuList(s.cpus), ")"),
        "\n");
  }
  return out;
}

}  // namespace flashscope::suites
