// The CPUs near a GPU (issue 28): on a host of several GPUs each GPU hangs off one CPU socket's
// PCIe root, and a worker that runs its host side (input staging, verification, CUPTI's decoding,
// the journal) on the other socket pays a cross-socket hop for every transfer and page it touches.
// The kernel says which CPUs are local to a PCI device in sysfs (local_cpulist); each worker is
// started on those of its GPU (within the CPUs this process may use), so workers of different
// GPUs also never compete for one socket's cores while another's idle.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace flashscope::suites {

// "0-3,8,10-11" -> {0,1,2,3,8,10,11}; nullopt for anything else (empty, a bad range, garbage).
std::optional<std::vector<int>> ParseCpuList(const std::string& text);

// The sysfs name of a PCI bus id as CUDA or NVML print it: "00000000:3B:00.0" or "0000:3b:00.0"
// -> "0000:3b:00.0" (a four-digit domain, lower case); "" when it is not a PCI bus id.
std::string SysfsPciName(const std::string& bus_id);

// The CPUs local to the GPU at `bus_id` that this process may run on (its own affinity mask),
// read from SYSFS_ROOT/bus/pci/devices/NAME/local_cpulist. Empty when unknown (no such file, no
// bus id, a one-node machine whose list is every CPU anyway is returned as is): then the worker
// is started without an affinity of its own. `sysfs_root` is "/sys" except in tests.
std::vector<int> CpusNearGpu(const std::string& bus_id, const std::string& sysfs_root = "/sys");

// "0-15,32-47" for the progress and dry-run lines.
std::string FormatCpuList(const std::vector<int>& cpus);

}  // namespace flashscope::suites
