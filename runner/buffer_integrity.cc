#include "runner/buffer_integrity.h"

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/seconds_since.h"
#include "runner/case_binding.h"
#include "runner/harness_checks.h"
#include "verify/buffer_slots.h"

namespace flashscope::runner {
namespace {

class CostTimer {
 public:
  explicit CostTimer(double* total) : total_(total), t0_(std::chrono::steady_clock::now()) {}
  ~CostTimer() { *total_ += SecondsSince(t0_); }

 private:
  double* total_;
  std::chrono::steady_clock::time_point t0_;
};

}  // namespace

void BufferIntegrity::Add(const std::string& name, const void* ptr, size_t bytes, Watch watch) {
  if (ptr == nullptr || bytes == 0) return;
  for (const Region& m : meta_) {
    if (m.buffer_ptr == ptr) return;
  }
  for (const std::string& u : unguarded_) {
    if (u == name) return;
  }
  uploaded_ = false;
  const auto* p = static_cast<const unsigned char*>(ptr);
  if (watch == Watch::kContentAndGuards) {
    regions_.push_back({p, bytes, total_chunks_, kIntegrityContent, 0});
    meta_.push_back({name, "content", ptr, static_cast<int64_t>(bytes), 0});
    total_chunks_ += IntegrityChunks(bytes);
  }
  const std::optional<size_t> allocated = verify::GuardedBytes(ptr);
  if (!allocated || *allocated < bytes) {
    unguarded_.push_back(name);
    return;
  }
  const auto guard = static_cast<int64_t>(verify::kGuardBytes);
  regions_.push_back(
      {p - verify::kGuardBytes, verify::kGuardBytes, 0, kIntegrityGuard, verify::kGuardByte});
  meta_.push_back({name, "guard before", ptr, static_cast<int64_t>(*allocated), -guard});
  regions_.push_back({p + *allocated, verify::kGuardBytes, 0, kIntegrityGuard, verify::kGuardByte});
  meta_.push_back({name, "guard after", ptr, static_cast<int64_t>(*allocated),
                   static_cast<int64_t>(*allocated)});
  max_guard_bytes_ = static_cast<int>(verify::kGuardBytes);
}

absl::Status BufferIntegrity::Upload(cudaStream_t stream) {
  if (uploaded_) return absl::OkStatus();
  // Content regions first, in chunk order (the kernels find a chunk's region by first_chunk).
  std::stable_partition(regions_.begin(), regions_.end(),
                        [](const IntegrityRegion& r) { return r.kind == kIntegrityContent; });
  std::vector<Region> meta;
  for (const IntegrityRegion& r : regions_) {
    for (const Region& m : meta_) {
      const auto* start = static_cast<const unsigned char*>(m.buffer_ptr) + m.offset_from_buffer;
      const bool content = m.part == "content";
      if (start == r.ptr && content == (r.kind == kIntegrityContent)) {
        meta.push_back(m);
        break;
      }
    }
  }
  meta_ = std::move(meta);
  const size_t n = regions_.size();
  if (absl::Status s = device_regions_.Allocate(std::max<size_t>(1, n) * sizeof(IntegrityRegion),
                                                "integrity regions");
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          hashes_.Allocate(std::max<unsigned long long>(1, total_chunks_) * 8, "integrity hashes");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = results_.Allocate(std::max<size_t>(1, n) * 8, "integrity results");
      !s.ok()) {
    return s;
  }
  if (n > 0) {
    if (cudaError_t e =
            cudaMemcpyAsync(device_regions_.get(), regions_.data(), n * sizeof(IntegrityRegion),
                            cudaMemcpyHostToDevice, stream);
        e != cudaSuccess) {
      return verify::CudaStatus(e, "integrity regions");
    }
  }
  if (cudaError_t e = cudaMemsetAsync(results_.get(), 0xFF, std::max<size_t>(1, n) * 8, stream);
      e != cudaSuccess) {
    return verify::CudaStatus(e, "integrity results");
  }
  // The copy reads host memory that may change: wait for it (once per case).
  if (cudaError_t e = cudaStreamSynchronize(stream); e != cudaSuccess) {
    return verify::CudaStatus(e, "integrity setup");
  }
  uploaded_ = true;
  return absl::OkStatus();
}

absl::Status BufferIntegrity::Snapshot(cudaStream_t stream) {
  CostTimer cost(&cost_s_);
  if (absl::Status s = Upload(stream); !s.ok()) return s;
  snapshot_taken_ = true;
  return verify::CudaStatus(
      LaunchIntegrityHash(static_cast<const IntegrityRegion*>(device_regions_.get()),
                          static_cast<int>(regions_.size()),
                          static_cast<unsigned long long*>(hashes_.get()), total_chunks_, stream),
      "integrity hash");
}

absl::Status BufferIntegrity::Check(cudaStream_t stream, const std::string& launch,
                                    bool compare_content) {
  if (!snapshot_taken_) return absl::OkStatus();  // nothing launched since the buffers were made
  CostTimer cost(&cost_s_);
  const auto label = static_cast<unsigned long long>(labels_.size());
  labels_.push_back(launch);
  return verify::CudaStatus(
      LaunchIntegrityCheck(static_cast<const IntegrityRegion*>(device_regions_.get()),
                           static_cast<int>(regions_.size()), max_guard_bytes_,
                           static_cast<unsigned long long*>(hashes_.get()), total_chunks_,
                           static_cast<unsigned long long*>(results_.get()), label, compare_content,
                           stream),
      "integrity check");
}

absl::StatusOr<std::vector<unsigned long long>> BufferIntegrity::ReadResults(cudaStream_t stream) {
  std::vector<unsigned long long> results(regions_.size(), kIntegrityClean);
  if (results.empty() || !snapshot_taken_) return results;
  cudaError_t e = cudaMemcpyAsync(results.data(), results_.get(), results.size() * 8,
                                  cudaMemcpyDeviceToHost, stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  if (e != cudaSuccess) return verify::CudaStatus(e, "integrity results");
  return results;
}

absl::StatusOr<reports::TrustCheckRecord> BufferIntegrity::Finish(cudaStream_t stream) {
  const auto t0 = std::chrono::steady_clock::now();
  absl::StatusOr<std::vector<unsigned long long>> read = ReadResults(stream);
  if (!read.ok()) return read.status();
  const std::vector<unsigned long long>& results = *read;
  std::vector<RegionVerdict> verdicts;
  const unsigned long long offset_mask = (1ull << kIntegrityLabelShift) - 1;
  for (size_t i = 0; i < regions_.size(); ++i) {
    RegionVerdict v;
    v.buffer = meta_[i].buffer;
    v.part = meta_[i].part;
    v.bytes = static_cast<uint64_t>(meta_[i].buffer_bytes);
    v.changed = results[i] != kIntegrityClean;
    if (v.changed) {
      const unsigned long long label = results[i] >> kIntegrityLabelShift;
      v.launch = label < labels_.size() ? labels_[label] : absl::StrCat("check ", label);
      v.offset = meta_[i].offset_from_buffer + static_cast<int64_t>(results[i] & offset_mask);
    }
    verdicts.push_back(std::move(v));
  }
  cost_s_ += SecondsSince(t0);
  reports::TrustCheckRecord r =
      CheckIntegrity(verdicts, static_cast<int>(labels_.size()), kIntegrityChunkBytes, cost_s_);
  if (!unguarded_.empty()) {
    absl::StrAppend(&r.rule, "; without guard bytes (not a harness allocation): ",
                    absl::StrJoin(unguarded_, ", "));
  }
  return r;
}

absl::StatusOr<bool> BufferIntegrity::ChangedSoFar(cudaStream_t stream) {
  CostTimer cost(&cost_s_);
  absl::StatusOr<std::vector<unsigned long long>> results = ReadResults(stream);
  if (!results.ok()) return results.status();
  return std::any_of(results->begin(), results->end(),
                     [](unsigned long long r) { return r != kIntegrityClean; });
}

absl::Status BufferIntegrity::RestoreGuards(cudaStream_t stream) {
  CostTimer cost(&cost_s_);
  for (const IntegrityRegion& r : regions_) {
    if (r.kind != kIntegrityGuard) continue;
    // The harness's own allocation (verify/device_buffer.h): writable, only typed const here.
    if (cudaError_t e = cudaMemsetAsync(const_cast<unsigned char*>(r.ptr), r.pattern,
                                        static_cast<size_t>(r.bytes), stream);
        e != cudaSuccess) {
      return verify::CudaStatus(e, "restoring guard bytes");
    }
  }
  return absl::OkStatus();
}

profiler::SampleHooks WithIntegrity(profiler::SampleHooks hooks, BufferIntegrity* integrity,
                                    cudaStream_t stream) {
  // Every hook the trust checks set (fresh inputs and checks around the warm-up launches too)
  // is kept; the timed launches' hooks are wrapped.
  profiler::SampleHooks out = hooks;
  out.before = [integrity, stream, before = hooks.before](int i) -> absl::Status {
    if (before) {
      if (absl::Status st = before(i); !st.ok()) return st;
    }
    return integrity->Snapshot(stream);
  };
  out.after = [integrity, stream, after = hooks.after](int i) -> absl::Status {
    if (absl::Status st = integrity->Check(stream, absl::StrCat("timed launch ", i)); !st.ok()) {
      return st;
    }
    return after ? after(i) : absl::OkStatus();
  };
  return out;
}

std::vector<WatchedBuffer> WorkspaceBuffers(const Problem& problem,
                                            const std::vector<fs_buffers>& slots,
                                            const void* reference, size_t reference_bytes) {
  using Watch = BufferIntegrity::Watch;
  const verify::BufferSizes sizes = verify::BufferSizesOf(problem);
  const auto bytes = [](int64_t n) { return static_cast<size_t>(n); };
  std::vector<WatchedBuffer> out;
  for (size_t slot = 0; slot < slots.size(); ++slot) {
    const std::string in = absl::StrCat(" (slot ", slot, ")");
    if (std::holds_alternative<AttentionProblem>(problem)) {
      const fs_attention_buffers& b = slots[slot].attention;
      out.push_back({"input q" + in, b.q, bytes(sizes.input_bytes[0]), Watch::kContentAndGuards});
      out.push_back({"input k" + in, b.k, bytes(sizes.input_bytes[1]), Watch::kContentAndGuards});
      out.push_back({"input v" + in, b.v, bytes(sizes.input_bytes[2]), Watch::kContentAndGuards});
      out.push_back({"output o" + in, b.o, bytes(sizes.output_bytes), Watch::kGuardsOnly});
      if (b.lse != nullptr) {
        out.push_back(
            {"log-sum-exp" + in, b.lse, bytes(4 * sizes.lse_elements), Watch::kGuardsOnly});
      }
    } else {
      const fs_gemm_buffers& b = slots[slot].gemm;
      out.push_back({"input a" + in, b.a, bytes(sizes.input_bytes[0]), Watch::kContentAndGuards});
      out.push_back({"input b" + in, b.b, bytes(sizes.input_bytes[1]), Watch::kContentAndGuards});
      out.push_back({"output c" + in, b.c, bytes(sizes.output_bytes), Watch::kGuardsOnly});
    }
  }
  out.push_back({"reference", reference, reference_bytes, Watch::kContentAndGuards});
  return out;
}

void WatchWorkspace(const Problem& problem, verify::Workspace& ws, BufferIntegrity* integrity) {
  std::vector<fs_buffers> slots;
  for (int slot = 0; slot < ws.num_slots(); ++slot) slots.push_back(BuffersFor(problem, ws, slot));
  for (const WatchedBuffer& b :
       WorkspaceBuffers(problem, slots, ws.reference_device(), ws.reference_device_bytes())) {
    integrity->Add(b.name, b.ptr, b.bytes, b.watch);
  }
}

}  // namespace flashscope::runner
