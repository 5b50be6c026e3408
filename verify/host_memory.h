// Host memory a case needs for verification, and the guard that skips a case which would not fit.
// The Workspace (verify/workspace.h) keeps host buffers for the whole problem: fp32 copies of the
// reference and the baseline (and the reference lse), and the kernel's output and lse as each
// Verify() copies them back (verify/host_buffer.h, pinned where possible). Verify() builds the
// heatmaps in the statistics' pass, in one set of partial maps per chunk (verify/heatmap.h); a
// .npy dump converts output and inputs to fp32 one at a time. For the ladder's problems (33.5 M
// output elements, bf16) that is 256 MiB + 64 MiB held for the problem and ~25 MiB of maps
// (verify/tests/host_memory_test.cc); S = 131072 would need 2.5 GiB, and a large GEMM more: an
// unbounded copy that can push a small runner into swap or the OOM killer.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/problem.h"

namespace flashscope::verify {

struct HostBytes {
  int64_t resident = 0;  // held for the problem: reference, baseline (+ lse), output (+ lse)
  int64_t verify = 0;    // during Verify(): the heatmaps' partial maps and their layout
  int64_t dump = 0;      // during DumpNpy(): the largest array converted to fp32 (+ its raw copy)
  int64_t peak = 0;      // resident + the larger of the two transients that apply
};

// `heatmaps`: maps are built (any heatmap policy but "none": a failing case is verified again
// with full-resolution heatmaps, max_side 256, which this counts). `dump`: --dump is on. The
// workspace's buffer slots need no host memory.
HostBytes HostBytesNeeded(const Problem& p, bool heatmaps, bool dump);

// MemAvailable from /proc/meminfo (or `meminfo_path`), in bytes.
absl::StatusOr<int64_t> MemAvailableBytes(const std::string& meminfo_path = "/proc/meminfo");

// The share of MemAvailable a case may use: the rest stays for the CUDA driver's pinned staging
// buffers, the supervisor and whatever else runs on the machine.
inline constexpr double kHostMemoryFraction = 0.5;

// OK when `need.peak` <= fraction x available; else ResourceExhausted naming every size, e.g.
// "needs 3.63 GiB of host memory to verify (host copies of reference, baseline and output
// 3.50 GiB, heatmap maps 0.03 GiB); 50% of MemAvailable 4.00 GiB is 2.00 GiB".
absl::Status CheckHostMemory(const HostBytes& need, int64_t available_bytes,
                             double fraction = kHostMemoryFraction);

}  // namespace flashscope::verify
