#include "verify/host_memory.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "verify/error_stats.h"
#include "verify/heatmap.h"
#include "verify/parallel_chunks.h"

namespace flashscope::verify {
namespace {

std::string Gib(int64_t bytes) {
  return absl::StrFormat("%.2f GiB", static_cast<double>(bytes) / (1ull << 30));
}

}  // namespace

HostBytes HostBytesNeeded(const Problem& p, bool heatmaps, bool dump) {
  int64_t out_elems = 0, out_bytes = 0, lse_elems = 0, largest_input = 0, input_bytes = 0;
  if (const auto* a = std::get_if<AttentionProblem>(&p)) {
    const int64_t e = static_cast<int64_t>(DTypeBytes(a->dtype));
    out_elems = a->QElements();
    out_bytes = out_elems * static_cast<int64_t>(DTypeBytes(AttentionOutputDType(a->dtype)));
    lse_elems = a->want_lse ? a->LseElements() : 0;
    largest_input = std::max(a->QElements(), a->KElements());
    input_bytes = e;
  } else {
    const auto& g = std::get<GemmProblem>(p);
    out_elems = g.m * g.n;
    out_bytes = 4 * out_elems;  // gemm writes fp32
    largest_input = std::max(g.m * g.k, g.k * g.n);
    input_bytes = static_cast<int64_t>(DTypeBytes(g.dtype));
  }
  HostBytes h;
  h.resident = 2 * 4 * out_elems + 4 * lse_elems + out_bytes + 4 * lse_elems;
  if (heatmaps) {
    // The largest maps a case builds: a failing case's, at most kFullHeatmapSide a side; the
    // fold's rows are at most that whatever the kernel's tile.
    const HeatmapAccumulator maps =
        std::holds_alternative<AttentionProblem>(p)
            ? HeatmapAccumulator::ForAttention(std::get<AttentionProblem>(p), kFullHeatmapSide,
                                               kFullHeatmapSide)
            : HeatmapAccumulator::ForGemm(std::get<GemmProblem>(p), kFullHeatmapSide,
                                          kFullHeatmapSide, kFullHeatmapSide);
    h.verify = maps.Bytes(ChunkCount(out_elems, kStatsChunkElements));
  }
  if (dump) {
    // Output: fp32 copy + raw copy; each input the same; lse twice (kernel's, reference's).
    h.dump = std::max(4 * out_elems + out_bytes, (4 + input_bytes) * largest_input);
  }
  h.peak = h.resident + std::max(h.verify, h.dump);
  return h;
}

absl::StatusOr<int64_t> MemAvailableBytes(const std::string& meminfo_path) {
  std::ifstream f(meminfo_path);
  if (!f) {
    return absl::UnavailableError(absl::StrCat(
        "cannot read ", meminfo_path, ": the host-memory guard needs Linux's /proc/meminfo"));
  }
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("MemAvailable:", 0) != 0) continue;
    std::istringstream in(line.substr(13));
    int64_t kib = -1;
    std::string unit;
    in >> kib >> unit;
    if (kib < 0 || unit != "kB") {
      return absl::DataLossError(
          absl::StrCat(meminfo_path, ": cannot read the MemAvailable line \"", line, "\""));
    }
    return kib * 1024;
  }
  return absl::NotFoundError(absl::StrCat(meminfo_path, " has no MemAvailable line"));
}

absl::Status CheckHostMemory(const HostBytes& need, int64_t available_bytes, double fraction) {
  const int64_t limit = static_cast<int64_t>(fraction * static_cast<double>(available_bytes));
  if (need.peak <= limit) return absl::OkStatus();
  std::string parts = absl::StrCat("host copies of reference, baseline and output ",
                                   Gib(need.resident), ", heatmap maps ", Gib(need.verify));
  if (need.dump > 0) absl::StrAppend(&parts, ", largest .npy dump array ", Gib(need.dump));
  return absl::ResourceExhaustedError(
      absl::StrFormat("needs %s of host memory to verify (%s); %.0f%% of MemAvailable %s is %s",
                      Gib(need.peak), parts, fraction * 100, Gib(available_bytes), Gib(limit)));
}

}  // namespace flashscope::verify
