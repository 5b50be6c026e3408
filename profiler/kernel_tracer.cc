#include "profiler/kernel_tracer.h"

#include <cupti.h>
#include <cxxabi.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>

#include "profiler/cuda_check.h"
#include "profiler/cupti_host.h"

namespace flashscope::profiler {
namespace {

constexpr size_t kBufferBytes = 8 << 20;
constexpr size_t kAlign = 8;

// CUPTI's buffer callbacks carry no user pointer: records land in this process-wide sink.
std::mutex g_mu;
std::vector<KernelRecord>* g_sink = nullptr;  // guarded by g_mu
size_t g_dropped = 0;                         // guarded by g_mu
std::atomic<bool> g_active{false};

std::string Demangle(const char* name) {
  if (name == nullptr) return "(unknown)";
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = (status == 0 && d) ? d : name;
  std::free(d);
  return out;
}

void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  void* p = nullptr;
  if (posix_memalign(&p, kAlign, kBufferBytes) != 0) p = nullptr;
  *buffer = static_cast<uint8_t*>(p);
  *size = p ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI BufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  std::lock_guard<std::mutex> lock(g_mu);
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL &&
        record->kind != CUPTI_ACTIVITY_KIND_KERNEL) {
      continue;
    }
    const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
    if (g_sink == nullptr) continue;
    KernelRecord r;
    r.name = Demangle(k->name);
    r.start_ns = k->start;
    r.end_ns = k->end;
    r.ms = static_cast<double>(k->end - k->start) * 1e-6;
    g_sink->push_back(std::move(r));
  }
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS) {
    g_dropped += dropped;
  }
  std::free(buffer);
}

absl::Status RegisterOnce() {
  static const absl::Status* status = [] {
    return new absl::Status(
        CuptiStatus(cuptiActivityRegisterCallbacks(BufferRequested, BufferCompleted),
                    "cuptiActivityRegisterCallbacks"));
  }();
  return *status;
}

}  // namespace

double TotalMs(const std::vector<KernelRecord>& records) {
  double total = 0;
  for (const auto& r : records) total += r.ms;
  return total;
}

absl::StatusOr<std::unique_ptr<KernelTracer>> KernelTracer::Create() {
  if (absl::Status s = RegisterOnce(); !s.ok()) return s;
  return std::unique_ptr<KernelTracer>(new KernelTracer());
}

KernelTracer::~KernelTracer() {
  if (recording_) {
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    std::lock_guard<std::mutex> lock(g_mu);
    delete g_sink;
    g_sink = nullptr;
    g_active = false;
  }
}

absl::Status KernelTracer::Start() {
  bool expected = false;
  if (!g_active.compare_exchange_strong(expected, true)) {
    return absl::FailedPreconditionError(
        "another KernelTracer is recording; stop it first (CUPTI activity buffers are "
        "process-wide)");
  }
  {
    std::lock_guard<std::mutex> lock(g_mu);
    g_sink = new std::vector<KernelRecord>();
    g_dropped = 0;
  }
  // Work queued before Start must not show up in this trace.
  if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) {
    g_active = false;
    return CudaStatus(e, "cudaDeviceSynchronize before tracing");
  }
  if (absl::Status s = CuptiStatus(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL),
                                   "cuptiActivityEnable(CONCURRENT_KERNEL)");
      !s.ok()) {
    g_active = false;
    return s;
  }
  recording_ = true;
  return absl::OkStatus();
}

absl::StatusOr<std::vector<KernelRecord>> KernelTracer::Stop() {
  if (!recording_) return absl::FailedPreconditionError("KernelTracer::Stop without Start");
  const cudaError_t sync = cudaDeviceSynchronize();
  recording_ = false;
  const CUptiResult disable = cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  const CUptiResult flush = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::vector<KernelRecord> records;
  size_t dropped = 0;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    records = std::move(*g_sink);
    delete g_sink;
    g_sink = nullptr;
    dropped = g_dropped;
  }
  g_active = false;
  FS_CUDA_RETURN_IF_ERROR(sync, "cudaDeviceSynchronize (kernel trace)");
  if (absl::Status s = CuptiStatus(disable, "cuptiActivityDisable"); !s.ok()) return s;
  if (absl::Status s = CuptiStatus(flush, "cuptiActivityFlushAll"); !s.ok()) return s;
  if (dropped != 0) {
    return absl::InternalError(
        absl::StrCat("CUPTI dropped ", dropped, " activity records (buffer too small)"));
  }
  std::sort(records.begin(), records.end(),
            [](const KernelRecord& a, const KernelRecord& b) { return a.start_ns < b.start_ns; });
  return records;
}

absl::StatusOr<std::vector<KernelRecord>> KernelTracer::Trace(
    const std::function<cudaError_t(cudaStream_t)>& launch, cudaStream_t stream) {
  if (absl::Status s = Start(); !s.ok()) return s;
  const cudaError_t e = launch(stream);
  absl::StatusOr<std::vector<KernelRecord>> records = Stop();
  FS_CUDA_RETURN_IF_ERROR(e, "kernel launch (traced)");
  return records;
}

}  // namespace flashscope::profiler
