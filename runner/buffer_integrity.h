// Integrity of the buffers around a case's launches (docs/trust.md, "integrity"): the inputs and
// the references must come out of every launch as they went in, and nothing may be written into
// the guard bytes before and after any buffer the kernel is given (verify/device_buffer.h pads
// every allocation). All on the GPU, on the launch stream, outside the timing events: one hash
// pass over the watched content and one pass over the guards per check; the results stay on the
// device (the earliest change per region) and are read once, when the case is concluded.
//
// The harness itself may rewrite a watched buffer (fresh inputs for a launch): it calls
// Snapshot() after doing so, and the next Check() compares with that.
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/problem.h"
#include "flashscope/kernel_abi.h"
#include "profiler/timing.h"
#include "reports/trust_record.h"
#include "runner/buffer_integrity_kernels.h"
#include "verify/device_buffer.h"
#include "verify/workspace.h"

namespace flashscope::runner {

class BufferIntegrity {
 public:
  enum class Watch { kContentAndGuards, kGuardsOnly };

  // Watches `bytes` at `ptr` under `name` (null or empty: ignored; a buffer watched twice, e.g.
  // one output shared by every input set, once). Its guards are watched when `ptr` is a
  // DeviceBuffer's; else the buffer is listed as without guards in the evidence.
  void Add(const std::string& name, const void* ptr, size_t bytes, Watch watch);

  // Hashes the watched content (after the harness wrote it). Enqueued on `stream`.
  absl::Status Snapshot(cudaStream_t stream);
  // Compares with the last snapshot (`compare_content`) and checks the guards, recording a change
  // as made by `launch` ("verified launch", "timed launch 3"). Enqueued on `stream`; nothing
  // before the first Snapshot().
  absl::Status Check(cudaStream_t stream, const std::string& launch, bool compare_content = true);
  // The verdict (synchronises `stream`).
  absl::StatusOr<reports::TrustCheckRecord> Finish(cudaStream_t stream);
  // Whether any check so far saw a change (synchronises `stream`; the verdict stays for Finish).
  absl::StatusOr<bool> ChangedSoFar(cudaStream_t stream);
  // Writes the guard pattern back into every watched guard: the buffers are shared with the other
  // cases of the problem, whose own checks must not see another case's out-of-bounds writes.
  absl::Status RestoreGuards(cudaStream_t stream);

 private:
  struct Region {
    std::string buffer, part;
    const void* buffer_ptr = nullptr;
    int64_t buffer_bytes = 0;
    int64_t offset_from_buffer = 0;  // where the region starts relative to the buffer
  };
  absl::Status Upload(cudaStream_t stream);
  // Each region's earliest change so far (kIntegrityClean: none), read back (synchronises).
  absl::StatusOr<std::vector<unsigned long long>> ReadResults(cudaStream_t stream);

  std::vector<IntegrityRegion> regions_;
  std::vector<Region> meta_;
  std::vector<std::string> unguarded_;
  unsigned long long total_chunks_ = 0;
  int max_guard_bytes_ = 0;
  bool uploaded_ = false;
  bool snapshot_taken_ = false;
  verify::DeviceBuffer device_regions_, hashes_, results_;
  std::vector<std::string> labels_;  // label index -> launch name
  double cost_s_ = 0;
};

// `hooks` with the integrity check around every timed launch: the watched content hashed after
// `hooks.before` (which may write fresh inputs), compared and the guards checked before
// `hooks.after`, both outside the timing events. `integrity` must outlive the hooks.
profiler::SampleHooks WithIntegrity(profiler::SampleHooks hooks, BufferIntegrity* integrity,
                                    cudaStream_t stream);

// One buffer to watch: its name in the evidence, where it is, its size and how.
struct WatchedBuffer {
  std::string name;
  const void* ptr = nullptr;
  size_t bytes = 0;
  BufferIntegrity::Watch watch = BufferIntegrity::Watch::kContentAndGuards;
};

// What a case's kernel is given in every buffer slot (`slots`, BuffersFor of each) and what the
// harness keeps: each slot's inputs (content and guards: a launch given another slot must not
// touch them either), each slot's output and log-sum-exp (their guards: their content is the
// kernel's to write), and the device reference (content and guards). Sizes from the problem.
std::vector<WatchedBuffer> WorkspaceBuffers(const Problem& problem,
                                            const std::vector<fs_buffers>& slots,
                                            const void* reference, size_t reference_bytes);

// Watches WorkspaceBuffers of `ws`, every slot's.
void WatchWorkspace(const Problem& problem, verify::Workspace& ws, BufferIntegrity* integrity);

}  // namespace flashscope::runner
