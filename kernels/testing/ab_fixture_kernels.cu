#include <cuda_runtime_api.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "kernels/kernel_list.h"
#include "kernels/testing/ab_fixture.h"
#include "kernels/testing/spin_delay.h"

namespace flashscope::kernels {
namespace {

// The spin of one copy, per problem (nanoseconds), calibrated at its first launch.
struct Calibration {
  std::mutex mutex;
  std::map<std::string, unsigned long long> spin_ns;
};

KernelEntry MakeCopy(int copy, int percent) {
  KernelEntry e = MakeA10Fa2();
  const std::string n = std::to_string(copy);
  e.info.id = "test.ab_a10_" + n;
  e.info.title =
      "Test only: attn.a10_fa2 plus a spin of this build's percentage (ab fixture, copy " + n + ")";
  e.info.changed = "a10 then a spin of " + std::to_string(percent) +
                   " % of (a10 + an empty spin): the ab quality experiment's subject";
  e.info.revision = 9200 + copy;
  e.info.test_only = true;
  const AttentionLaunch a10 = e.attention_launch;
  const double fraction = percent / 100.0;
  auto calibration = std::make_shared<Calibration>();
  e.attention_launch = [a10, fraction, calibration](const AttentionProblem& p,
                                                    const AttentionArgs& args,
                                                    cudaStream_t s) -> cudaError_t {
    unsigned long long spin_ns = 0;
    if (fraction > 0) {
      std::lock_guard<std::mutex> lock(calibration->mutex);
      const std::string key = ProblemKey(p);
      auto it = calibration->spin_ns.find(key);
      if (it == calibration->spin_ns.end()) {
        float ms = 0;
        auto pair = [&]() -> cudaError_t {
          if (cudaError_t err = a10(p, args, s); err != cudaSuccess) return err;
          return LaunchSpin(0, s);
        };
        if (cudaError_t err = ColdMedianMs(s, pair, &ms); err != cudaSuccess) return err;
        it = calibration->spin_ns.emplace(key, static_cast<unsigned long long>(fraction * ms * 1e6))
                 .first;
      }
      spin_ns = it->second;
    }
    if (cudaError_t err = a10(p, args, s); err != cudaSuccess) return err;
    return LaunchSpin(spin_ns, s);
  };
  AddSpinToDeviceFunctions(&e);
  return e;
}

}  // namespace

std::vector<KernelEntry> AbFixtureKernels(int percent) {
  std::vector<KernelEntry> v;
  for (int copy = 1; copy <= kAbFixtureCopies; ++copy) v.push_back(MakeCopy(copy, percent));
  return v;
}

}  // namespace flashscope::kernels
