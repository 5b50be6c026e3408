#include "profiler/kernel_tracer.h"

#include <cupti.h>
#include <cxxabi.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>

#include "absl/strings/str_cat.h"
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

const char* MemcpyKindName(uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
      return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
      return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
      return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
      return "HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
      return "PtoP";
    default:
      return "array copy";
  }
}

const char* SyncTypeName(CUpti_ActivitySynchronizationType type) {
  switch (type) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE:
      return "cudaEventSynchronize";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT:
      return "cudaStreamWaitEvent";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE:
      return "cudaStreamSynchronize";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE:
      return "cudaDeviceSynchronize";
    default:
      return "unknown";
  }
}

// The record as ours, or false for kinds we do not keep.
bool Convert(const CUpti_Activity* record, KernelRecord* out) {
  KernelRecord r;
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      r.kind = ActivityKind::kKernel;
      r.name = Demangle(k->name);
      r.start_ns = k->start;
      r.end_ns = k->end;
      r.stream_id = k->streamId;
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      r.kind = ActivityKind::kMemcpy;
      r.name = MemcpyKindName(m->copyKind);
      r.start_ns = m->start;
      r.end_ns = m->end;
      r.stream_id = m->streamId;
      r.bytes = m->bytes;
      r.synchronous = (m->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) == 0;
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      r.kind = ActivityKind::kMemset;
      r.name = "memset";
      r.start_ns = m->start;
      r.end_ns = m->end;
      r.stream_id = m->streamId;
      r.bytes = m->bytes;
      break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      const auto* y = reinterpret_cast<const CUpti_ActivitySynchronization2*>(record);
      r.kind = ActivityKind::kSync;
      r.name = SyncTypeName(y->type);
      r.start_ns = y->start;
      r.end_ns = y->end;
      r.stream_id = y->streamId == CUPTI_SYNCHRONIZATION_INVALID_VALUE ? kNoStream : y->streamId;
      break;
    }
    default:
      return false;
  }
  r.ms = r.end_ns >= r.start_ns ? static_cast<double>(r.end_ns - r.start_ns) * 1e-6 : 0;
  *out = std::move(r);
  return true;
}

void CUPTIAPI BufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  std::lock_guard<std::mutex> lock(g_mu);
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    KernelRecord r;
    if (g_sink != nullptr && Convert(record, &r)) g_sink->push_back(std::move(r));
  }
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS) {
    g_dropped += dropped;
  }
  std::free(buffer);
}

// The activity kinds a scope records.
std::vector<CUpti_ActivityKind> KindsOf(TraceScope scope) {
  if (scope == TraceScope::kKernels) return {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL};
  return {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
          CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION};
}

void DisableAll(TraceScope scope) {
  for (CUpti_ActivityKind k : KindsOf(scope)) cuptiActivityDisable(k);
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

const char* ActivityKindName(ActivityKind kind) {
  switch (kind) {
    case ActivityKind::kKernel:
      return "kernel";
    case ActivityKind::kMemcpy:
      return "memcpy";
    case ActivityKind::kMemset:
      return "memset";
    case ActivityKind::kSync:
      return "sync";
  }
  return "unknown";
}

double TotalMs(const std::vector<KernelRecord>& records) {
  double total = 0;
  for (const auto& r : records) {
    if (r.kind == ActivityKind::kKernel) total += r.ms;
  }
  return total;
}

uint64_t HostTimestampNs() {
  uint64_t t = 0;
  if (cuptiGetTimestamp(&t) != CUPTI_SUCCESS) return 0;
  return t;
}

absl::StatusOr<std::unique_ptr<KernelTracer>> KernelTracer::Create() {
  if (absl::Status s = RegisterOnce(); !s.ok()) return s;
  return std::unique_ptr<KernelTracer>(new KernelTracer());
}

KernelTracer::~KernelTracer() {
  if (recording_) {
    DisableAll(scope_);
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    std::lock_guard<std::mutex> lock(g_mu);
    delete g_sink;
    g_sink = nullptr;
    g_active = false;
  }
}

absl::Status KernelTracer::Start(TraceScope scope) {
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
  for (CUpti_ActivityKind kind : KindsOf(scope)) {
    if (absl::Status s = CuptiStatus(cuptiActivityEnable(kind),
                                     absl::StrCat("cuptiActivityEnable(kind ", kind, ")"));
        !s.ok()) {
      DisableAll(scope);
      g_active = false;
      return s;
    }
  }
  scope_ = scope;
  recording_ = true;
  return absl::OkStatus();
}

absl::StatusOr<std::vector<KernelRecord>> KernelTracer::Stop() {
  if (!recording_) return absl::FailedPreconditionError("KernelTracer::Stop without Start");
  const cudaError_t sync = cudaDeviceSynchronize();
  recording_ = false;
  CUptiResult disable = CUPTI_SUCCESS;
  for (CUpti_ActivityKind kind : KindsOf(scope_)) {
    const CUptiResult r = cuptiActivityDisable(kind);
    if (disable == CUPTI_SUCCESS) disable = r;
  }
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
    const std::function<cudaError_t(cudaStream_t)>& launch, cudaStream_t stream, TraceScope scope) {
  if (absl::Status s = Start(scope); !s.ok()) return s;
  const cudaError_t e = launch(stream);
  absl::StatusOr<std::vector<KernelRecord>> records = Stop();
  FS_CUDA_RETURN_IF_ERROR(e, "kernel launch (traced)");
  return records;
}

}  // namespace flashscope::profiler
