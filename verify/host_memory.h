// Host memory a case needs for verification, and the guard that skips a case which would not fit.
// The Workspace (verify/workspace.h) keeps fp32 host copies of the reference and the baseline for
// the whole problem, and each Verify() copies the kernel's whole output back, plus an fp32 error
// array for heatmaps; a .npy dump converts output and inputs to fp32 one at a time. For the
// ladder's largest problem (B=1, H=16, S=16384, D=128, bf16: 33.5 M output elements) that is
// 256 MiB resident + 64 MiB output + 128 MiB errors = 448 MiB at the peak of a case
// (verify/tests/host_memory_test.cc); S = 131072 would need 3.5 GiB, and a large GEMM more: an
// unbounded copy that can push a small runner into swap or the OOM killer.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/problem.h"

namespace flashscope::verify {

struct HostBytes {
  int64_t resident = 0;  // reference + baseline (+ reference lse), fp32, held for the problem
  int64_t verify = 0;    // during Verify(): the output as written, its lse, the error array
  int64_t dump = 0;      // during DumpNpy(): the largest array converted to fp32 (+ its raw copy)
  int64_t peak = 0;      // resident + the larger of the two transients that apply
};

// `heatmaps`: an error array is built (any heatmap policy but "none": a failing case is verified
// again with heatmaps). `dump`: --dump is on. The workspace's buffer slots need no host memory.
HostBytes HostBytesNeeded(const Problem& p, bool heatmaps, bool dump);

// MemAvailable from /proc/meminfo (or `meminfo_path`), in bytes.
absl::StatusOr<int64_t> MemAvailableBytes(const std::string& meminfo_path = "/proc/meminfo");

// The share of MemAvailable a case may use: the rest stays for the CUDA driver's pinned staging
// buffers, the supervisor and whatever else runs on the machine.
inline constexpr double kHostMemoryFraction = 0.5;

// OK when `need.peak` <= fraction x available; else ResourceExhausted naming every size, e.g.
// "needs 3.63 GiB of host memory to verify (reference + baseline 3.00 GiB, output and errors
// 0.75 GiB); 50% of MemAvailable 4.00 GiB is 2.00 GiB".
absl::Status CheckHostMemory(const HostBytes& need, int64_t available_bytes,
                             double fraction = kHostMemoryFraction);

}  // namespace flashscope::verify
