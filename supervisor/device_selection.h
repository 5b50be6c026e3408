// `--devices all|0,2,3` (docs/devices.md): which GPUs a run uses, checked against the GPUs a
// worker found (the supervisor itself never touches CUDA). Each chosen GPU gets one worker,
// pinned to it through CUDA_VISIBLE_DEVICES=<its UUID>, so that every CUDA runtime in that
// process, a plugin's own included, sees that GPU alone. A run without --devices keeps one
// unpinned worker on CUDA's device 0, as before.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "reports/report.h"

namespace flashscope::suites {

struct DeviceSelection {
  bool given = false;        // --devices was on the command line
  bool all = false;          // --devices all
  std::vector<int> indices;  // --devices 0,2,3 (CUDA device ordinals), in the order given
};

// "" (not given), "all", or a comma list of distinct non-negative integers; errors say what is
// wrong with the text and what is expected.
absl::StatusOr<DeviceSelection> ParseDeviceSelection(const std::string& text);

// A GPU the run uses: what is known of it before it runs anything, and whether its worker is
// pinned to it.
struct DeviceSlot {
  reports::DeviceRecord device;
  bool pinned = false;
  // The CPUs near the GPU its worker runs on (supervisor/gpu_affinity.h); empty: not known, the
  // worker keeps the supervisor's affinity.
  std::vector<int> cpus;
};

// The GPUs `selection` names among `visible` (a planning worker's list). Refused, with the
// reason, when an index is not a GPU here, or when the GPUs (with those that already ran cases of
// a resumed run, `journal_devices`) are not all one model, unless `force`: then `warnings` says
// which differ.
absl::StatusOr<std::vector<DeviceSlot>> ChooseDevices(
    const DeviceSelection& selection, const std::vector<reports::DeviceRecord>& visible,
    const std::vector<reports::DeviceRecord>& journal_devices, bool force,
    std::vector<std::string>* warnings);

// The environment a worker on `slot` starts with: CUDA_VISIBLE_DEVICES=<UUID> when pinned.
std::vector<std::pair<std::string, std::string>> PinningEnvironment(const DeviceSlot& slot);

// The chosen GPUs as --dry_run and the run's first line print them.
std::string RenderDevices(const std::vector<DeviceSlot>& slots);

}  // namespace flashscope::suites
