#include "runner/case_isolation.h"

#include <chrono>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/seconds_since.h"

namespace flashscope::runner {
namespace {

struct LimitSpec {
  cudaLimit limit;
  const char* name;
  bool grows_on_demand;
};

// Every limit cudaDeviceSetLimit takes. The stack grows on demand: the driver raises it for a
// kernel whose threads need more and never lowers it again.
const std::vector<LimitSpec>& Limits() {
  static const std::vector<LimitSpec> kLimits = {
      {cudaLimitStackSize, "cudaLimitStackSize", true},
      {cudaLimitPrintfFifoSize, "cudaLimitPrintfFifoSize", false},
      {cudaLimitMallocHeapSize, "cudaLimitMallocHeapSize", false},
      {cudaLimitDevRuntimeSyncDepth, "cudaLimitDevRuntimeSyncDepth", false},
      {cudaLimitDevRuntimePendingLaunchCount, "cudaLimitDevRuntimePendingLaunchCount", false},
      {cudaLimitMaxL2FetchGranularity, "cudaLimitMaxL2FetchGranularity", false},
      {cudaLimitPersistingL2CacheSize, "cudaLimitPersistingL2CacheSize", false},
  };
  return kLimits;
}

constexpr const char* kWindow = "launch stream access-policy window";
constexpr const char* kSyncPolicy = "launch stream synchronization policy";
constexpr const char* kCacheConfig = "cudaDeviceGetCacheConfig";
constexpr const char* kCurrentDevice = "current device";

std::string WindowText(const cudaAccessPolicyWindow& w) {
  if (w.num_bytes == 0) return "none";
  return absl::StrFormat("%zu bytes at %p, hitRatio %.3g, hitProp %d, missProp %d", w.num_bytes,
                         w.base_ptr, w.hitRatio, static_cast<int>(w.hitProp),
                         static_cast<int>(w.missProp));
}

void Add(DeviceState& st, std::string name, cudaError_t e, std::string value, uint64_t number = 0,
         bool grows = false) {
  if (e != cudaSuccess) cudaGetLastError();  // an unsupported query is not sticky: clear it
  st.settings.push_back(
      {std::move(name), e == cudaSuccess, e == cudaSuccess ? value : "", number, grows});
}

std::string CudaText(cudaError_t e) { return absl::StrCat(cudaGetErrorName(e)); }

}  // namespace

DeviceState ReadDeviceState(int device, cudaStream_t stream) {
  (void)device;
  DeviceState st;
  for (const LimitSpec& l : Limits()) {
    size_t v = 0;
    const cudaError_t e = cudaDeviceGetLimit(&v, l.limit);
    Add(st, l.name, e, absl::StrCat(v), v, l.grows_on_demand);
  }
  cudaFuncCache cache = cudaFuncCachePreferNone;
  const cudaError_t ce = cudaDeviceGetCacheConfig(&cache);
  Add(st, kCacheConfig, ce, absl::StrCat(static_cast<int>(cache)));
  int current = -1;
  const cudaError_t de = cudaGetDevice(&current);
  Add(st, kCurrentDevice, de, absl::StrCat(current));
  cudaStreamAttrValue window{};
  const cudaError_t we =
      cudaStreamGetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &window);
  Add(st, kWindow, we, WindowText(window.accessPolicyWindow));
  cudaStreamAttrValue sync{};
  const cudaError_t se =
      cudaStreamGetAttribute(stream, cudaStreamAttributeSynchronizationPolicy, &sync);
  Add(st, kSyncPolicy, se, absl::StrCat(static_cast<int>(sync.syncPolicy)));
  return st;
}

CaseIsolation::CaseIsolation(int device, cudaStream_t stream) : device_(device), stream_(stream) {
  start_ = ReadDeviceState(device, stream);
  int max_persisting = 0;
  if (cudaDeviceGetAttribute(&max_persisting, cudaDevAttrMaxPersistingL2CacheSize, device) !=
      cudaSuccess) {
    cudaGetLastError();
  }
  persisting_l2_ = max_persisting > 0;
  cudaStreamAttrValue v{};
  if (cudaStreamGetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &v) == cudaSuccess) {
    start_window_ = v.accessPolicyWindow;
  } else {
    cudaGetLastError();
  }
  if (cudaStreamGetAttribute(stream, cudaStreamAttributeSynchronizationPolicy, &v) == cudaSuccess) {
    start_sync_policy_ = v.syncPolicy;
  } else {
    cudaGetLastError();
  }
}

absl::Status CaseIsolation::Restore() {
  std::vector<std::string> failed;
  auto note = [&](const std::string& what, cudaError_t e) {
    if (e == cudaSuccess) return;
    cudaGetLastError();
    failed.push_back(absl::StrCat(what, ": ", CudaText(e)));
  };
  int current = -1;
  if (cudaGetDevice(&current) == cudaSuccess && current != device_) {
    note(kCurrentDevice, cudaSetDevice(device_));
  }
  const DeviceState now = ReadDeviceState(device_, stream_);
  for (const StateChange& c : DiffDeviceState(start_, now)) {
    for (const LimitSpec& l : Limits()) {
      if (c.name != l.name) continue;
      for (const DeviceSetting& s : start_.settings) {
        if (s.name == l.name && s.readable) note(l.name, cudaDeviceSetLimit(l.limit, s.number));
      }
    }
    if (c.name == kCacheConfig) {
      for (const DeviceSetting& s : start_.settings) {
        if (s.name == kCacheConfig && s.readable) {
          note(kCacheConfig,
               cudaDeviceSetCacheConfig(static_cast<cudaFuncCache>(std::stoi(s.value))));
        }
      }
    }
    if (c.name == kWindow) {
      cudaStreamAttrValue v{};
      v.accessPolicyWindow = start_window_;
      note(kWindow, cudaStreamSetAttribute(stream_, cudaStreamAttributeAccessPolicyWindow, &v));
    }
    if (c.name == kSyncPolicy) {
      cudaStreamAttrValue v{};
      v.syncPolicy = start_sync_policy_;
      note(kSyncPolicy,
           cudaStreamSetAttribute(stream_, cudaStreamAttributeSynchronizationPolicy, &v));
    }
  }
  // Lines a kernel marked persisting (through a window on its own stream or launch attributes,
  // which no read-back sees) stay in L2 through the flush: demote them all before every case.
  // A GPU without persisting L2 (before sm_80, MIG) refuses the call: nothing to demote there.
  if (persisting_l2_) {
    if (cudaCtxResetPersistingL2Cache() != cudaSuccess) cudaGetLastError();
  }
  // Anything still different was not put back.
  for (const StateChange& c : DiffDeviceState(start_, ReadDeviceState(device_, stream_))) {
    failed.push_back(absl::StrCat(c.name, " is still ", c.after, " (was ", c.before, ")"));
  }
  if (failed.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrJoin(failed, "; "));
}

reports::TrustCheckRecord CaseIsolation::CheckAndRestore(const std::vector<LeftThread>& threads) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<StateChange> changes =
      DiffDeviceState(start_, ReadDeviceState(device_, stream_));
  std::string restore_error;
  if (absl::Status s = Restore(); !s.ok()) {
    restore_error = std::string(s.message());
    fresh_worker_needed_ = true;
  }
  const double cost = SecondsSince(t0);
  // A thread cannot be put back: the process that holds it ends after this case.
  if (AnyCaseThread(threads)) fresh_worker_needed_ = true;
  return CheckIsolation(changes, restore_error, cost, threads);
}

}  // namespace flashscope::runner
