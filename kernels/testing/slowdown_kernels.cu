// Test-only variants of attn.a10_fa2 that are slower by a known fraction, the subjects of the
// regression gate's quality experiment (scripts/device/gate-quality.sh, docs/gate-quality.md):
//   test.a10_slow3, test.a10_slow5, test.a10_slow10: a10's launch, then a one-warp spin kernel on
//   the same stream that waits a calibrated time, so the pair takes (1 + p) times a10's time.
// Calibration, once per problem at the first launch (the runner's verification launch, which is
// not timed): median of a10 alone and of a10 followed by a zero-length spin, each sample after an
// L2 flush like the runner's cold timing; the spin then lasts p * t(a10) minus the measured cost
// of launching the spin kernel at all. The output is a10's, so verification passes as for a10.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <string>

#include "kernels/kernel_list.h"
#include "kernels/testing/spin_delay.h"
#include "kernels/testing/test_kernel_list.h"

namespace flashscope::kernels {
namespace {

// Per variant and problem: how long the spin must last (nanoseconds). The key holds the percent:
// the three variants share this map, and a key of the problem alone once gave all three the spin
// calibrated for whichever ran first (measured on the H200: +2.8 % for slow3, slow5 and slow10).
std::mutex g_mutex;
std::map<std::string, unsigned long long> g_spin_ns;

KernelEntry MakeSlow(int percent) {
  KernelEntry e = MakeA10Fa2();
  const std::string pct = std::to_string(percent);
  e.info.id = "test.a10_slow" + pct;
  e.info.title = "Test only: attn.a10_fa2 made " + pct + " % slower by a calibrated spin";
  e.info.changed =
      "a10 plus a spin kernel lasting " + pct + " % of a10's cold median (gate-quality experiment)";
  e.info.revision = 9100 + percent;
  e.info.test_only = true;
  const AttentionLaunch a10 = e.attention_launch;
  const double fraction = percent / 100.0;
  e.attention_launch = [a10, fraction](const AttentionProblem& p, const AttentionArgs& args,
                                       cudaStream_t s) -> cudaError_t {
    std::lock_guard<std::mutex> lock(g_mutex);
    const std::string key = std::to_string(fraction) + " " + ProblemKey(p);
    auto it = g_spin_ns.find(key);
    if (it == g_spin_ns.end()) {
      float base = 0, with_zero_spin = 0;
      if (cudaError_t err = ColdMedianMs(
              s, [&] { return a10(p, args, s); }, &base);
          err != cudaSuccess)
        return err;
      auto pair = [&]() -> cudaError_t {
        if (cudaError_t err = a10(p, args, s); err != cudaSuccess) return err;
        return LaunchSpin(0, s);
      };
      if (cudaError_t err = ColdMedianMs(s, pair, &with_zero_spin); err != cudaSuccess) return err;
      const double target_ns = fraction * base * 1e6;
      const double overhead_ns = std::max(0.0, (with_zero_spin - base) * 1e6);
      it =
          g_spin_ns
              .emplace(key, static_cast<unsigned long long>(std::max(0.0, target_ns - overhead_ns)))
              .first;
    }
    if (cudaError_t err = a10(p, args, s); err != cudaSuccess) return err;
    return LaunchSpin(it->second, s);
  };
  AddSpinToDeviceFunctions(&e);
  return e;
}

}  // namespace

KernelEntry MakeTestA10Slow3() { return MakeSlow(3); }
KernelEntry MakeTestA10Slow5() { return MakeSlow(5); }
KernelEntry MakeTestA10Slow10() { return MakeSlow(10); }

}  // namespace flashscope::kernels
