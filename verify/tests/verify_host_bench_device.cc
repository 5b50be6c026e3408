// flashscope-verify-host-bench --device: what the CPU benchmark cannot measure. (1) The
// device-to-host copies of a redraw (reference, baseline, lse: fp32) and of a verify (the output
// in its dtype): into freshly allocated vectors as before, into vectors kept from one copy to the
// next, and into the Workspace's kept HostBuffers (pinned where cudaMallocHost succeeds). (2) The
// Workspace itself at the problem's size: Redraw (GPU reference and baseline, then the copies)
// and Verify with the heatmaps the ladder asks for, on an output that is the reference rounded to
// the dtype.
#include "verify/tests/verify_host_bench_device.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "verify/device_buffer.h"
#include "verify/half_convert.h"
#include "verify/host_buffer.h"
#include "verify/tolerance.h"
#include "verify/workspace.h"

namespace flashscope::verify::testing {
namespace {

struct Timed {
  std::string name;
  std::vector<double> ms;
};

void Time(Timed* t, const std::function<bool()>& run) {
  const auto t0 = std::chrono::steady_clock::now();
  if (!run()) return;
  t->ms.push_back(
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
}

void PrintTable(std::vector<Timed>& rows) {
  std::printf("| step | min ms | median ms |\n|---|---:|---:|\n");
  for (Timed& r : rows) {
    if (r.ms.empty()) {
      std::printf("| %s | failed | failed |\n", r.name.c_str());
      continue;
    }
    std::sort(r.ms.begin(), r.ms.end());
    std::printf("| %s | %.1f | %.1f |\n", r.name.c_str(), r.ms.front(), r.ms[r.ms.size() / 2]);
  }
  std::printf("\n");
}

bool Copied(cudaError_t e) {
  if (e != cudaSuccess) std::fprintf(stderr, "copy failed: %s\n", cudaGetErrorString(e));
  return e == cudaSuccess;
}

// The copies alone: `bytes` from the device into three kinds of host memory.
bool TimeCopies(const char* what, size_t bytes, int reps, std::vector<Timed>* rows) {
  DeviceBuffer device;
  if (absl::Status st = device.Allocate(bytes, what); !st.ok()) {
    std::fprintf(stderr, "%s\n", std::string(st.message()).c_str());
    return false;
  }
  cudaMemset(device.get(), 0x3C, bytes);
  std::vector<unsigned char> kept(bytes);
  HostBuffer host;
  if (absl::Status st = host.Allocate(bytes, what); !st.ok()) return false;
  Timed fresh{std::string(what) + ": into a fresh vector (before)"};
  Timed reused{std::string(what) + ": into a kept pageable vector"};
  Timed kept_host{std::string(what) + ": into the kept HostBuffer (" +
                  (host.pinned() ? "pinned" : "pinning failed: pageable") + ", after)"};
  for (int r = 0; r < reps; ++r) {
    Time(&fresh, [&] {
      std::vector<unsigned char> v(bytes);
      return Copied(cudaMemcpy(v.data(), device.get(), bytes, cudaMemcpyDeviceToHost));
    });
    Time(&reused, [&] {
      return Copied(cudaMemcpy(kept.data(), device.get(), bytes, cudaMemcpyDeviceToHost));
    });
    Time(&kept_host, [&] {
      return Copied(cudaMemcpy(host.data(), device.get(), bytes, cudaMemcpyDeviceToHost));
    });
  }
  rows->push_back(std::move(fresh));
  rows->push_back(std::move(reused));
  rows->push_back(std::move(kept_host));
  return true;
}

bool WriteReferenceAsOutput(Workspace& ws) {
  const absl::Span<const float> ref = ws.reference();
  std::vector<unsigned char> raw(ref.size() * DTypeBytes(ws.output_dtype()));
  ConvertFromFloat(ref.data(), static_cast<int64_t>(ref.size()), ws.output_dtype(), raw.data());
  if (!Copied(cudaMemcpy(ws.output(), raw.data(), raw.size(), cudaMemcpyHostToDevice))) {
    return false;
  }
  // With --lse the kernel's lse is judged too: the reference's, as a correct kernel writes it.
  const absl::Span<const float> lse = ws.reference_lse();
  return lse.empty() || Copied(cudaMemcpy(ws.lse(), lse.data(), lse.size() * sizeof(float),
                                          cudaMemcpyHostToDevice));
}

// The Workspace's own Redraw and Verify, as a ladder case calls them.
bool TimeWorkspace(const AttentionProblem& p, int side, int block_m, int reps,
                   std::vector<Timed>* rows) {
  auto ws = Workspace::Create(p, {}, nullptr);
  if (!ws.ok()) {
    std::fprintf(stderr, "Workspace::Create: %s\n", std::string(ws.status().message()).c_str());
    return false;
  }
  const TolerancePolicy policy = DefaultTolerance(Family::kAttentionFwd, p.dtype);
  HeatmapOptions heatmaps;
  heatmaps.block_m = block_m;
  heatmaps.max_side = side;
  Timed redraw{"Workspace::Redraw (GPU reference and baseline + copies to the host)"};
  Timed verify{"Workspace::Verify (copy back, statistics with heatmaps, baseline, lse)"};
  Timed verify_cached{"Workspace::Verify again (baseline statistics cached)"};
  bool passed = true;
  for (int r = 0; r < reps; ++r) {
    Time(&redraw, [&] { return (*ws)->Redraw(1000 + r, nullptr).ok(); });
    if (!WriteReferenceAsOutput(**ws)) return false;
    Time(&verify, [&] {
      auto v = (*ws)->Verify(policy, heatmaps, nullptr);
      passed = passed && v.ok() && v->verdict.passed;
      return v.ok();
    });
    Time(&verify_cached, [&] { return (*ws)->Verify(policy, heatmaps, nullptr).ok(); });
  }
  if (!passed) std::fprintf(stderr, "the reference rounded to the dtype did not pass\n");
  rows->push_back(std::move(redraw));
  rows->push_back(std::move(verify));
  rows->push_back(std::move(verify_cached));
  return passed;
}

}  // namespace

int RunDeviceBench(const AttentionProblem& p, int side, int block_m, int reps) {
  const size_t out = static_cast<size_t>(p.QElements());
  const size_t lse = p.want_lse ? static_cast<size_t>(p.LseElements()) : 0;
  std::vector<Timed> rows;
  bool ok =
      TimeCopies("redraw: reference + baseline + lse (fp32)", 4 * (2 * out + lse), reps, &rows) &&
      TimeCopies("verify: output + lse", out * DTypeBytes(p.dtype) + 4 * lse, reps, &rows);
  std::printf("Device-to-host copies (one copy of the sizes a case copies), %d reps:\n\n", reps);
  PrintTable(rows);
  rows.clear();
  ok = TimeWorkspace(p, side, block_m, reps, &rows) && ok;
  std::printf("The Workspace at this problem's size, %d reps:\n\n", reps);
  PrintTable(rows);
  return ok ? 0 : 1;
}

}  // namespace flashscope::verify::testing
