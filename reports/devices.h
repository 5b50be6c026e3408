// The GPUs of a run (`flashscope run --devices`, docs/devices.md) as data: whether two of them are
// the same model (a run mixes models only when forced, because their timings would not compare),
// how a device reads in one phrase, and the list of devices a report holds.
#pragma once

#include <string>
#include <vector>

#include "reports/report.h"

namespace flashscope::reports {

// "" when `a` and `b` are the same model (name, compute capability, SM count, memory size and
// maximum SM clock agree); else every fact that differs, in words: "name NVIDIA H200 vs NVIDIA
// H100 80GB HBM3, memory 141 GiB vs 80 GiB".
std::string ModelDifference(const DeviceRecord& a, const DeviceRecord& b);

// "NVIDIA H200 (sm_90, 132 SMs, 141 GiB)".
std::string ModelText(const DeviceRecord& d);

// "device 2 (NVIDIA H200, GPU-8932f937-..., 0000:3B:00.0)": which GPU, for messages.
std::string DeviceText(const DeviceRecord& d);

// `extra` added to `devices`, one record per GPU (by UUID; the first record of a GPU is kept),
// ordered by index, then UUID. A record without a UUID is told apart by its index.
void AddDevices(const std::vector<DeviceRecord>& extra, std::vector<DeviceRecord>* devices);

// The record of the GPU with this UUID; nullptr when none.
const DeviceRecord* FindDevice(const std::vector<DeviceRecord>& devices, const std::string& uuid);

}  // namespace flashscope::reports
