// Host memory that the device copies into, allocated once and reused: the Workspace's host copies
// of the reference, the baseline and the kernel's output (verify/workspace.h), so that no redraw
// pays the page faults of a fresh allocation. kPinned (cudaMallocHost) where that succeeds, so
// that a device-to-host copy goes straight into it at the link's speed; pageable where pinning
// fails (no device, or the system's pinned-memory limit), which still copies correctly, through
// the driver's staging buffer. kPageable for what a kernel must not be able to write: pinned
// memory is addressable from the GPU, pageable memory is not (see Pinning).
#pragma once

#include <cstddef>
#include <memory>

#include "absl/status/status.h"
#include "absl/types/span.h"

namespace flashscope::verify {

// kPageable keeps a buffer out of every kernel's reach: pinned host memory is a live allocation
// of the device's address space (a kernel can write it, unwatched by the integrity check). Found
// on 2 x H200 (session 6, call 5): test.cheat_write_reference took the pinned host copy of the
// reference for the device reference and zeroed the half it had not computed; verification,
// which compares with that copy, then passed its half-done output.
enum class Pinning { kPinned, kPageable };

class HostBuffer {
 public:
  HostBuffer() = default;
  ~HostBuffer();
  HostBuffer(HostBuffer&& other) noexcept;
  HostBuffer& operator=(HostBuffer&& other) noexcept;
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  // Holds `bytes` bytes from now on (their contents undefined); keeps the allocation when it
  // already holds that many. ResourceExhausted naming `what` only when neither pinned nor pageable
  // memory can be had.
  absl::Status Allocate(size_t bytes, const char* what, Pinning pinning = Pinning::kPinned);

  void* data() { return data_; }
  const void* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  bool pinned() const { return pinned_; }
  float* f32() { return static_cast<float*>(data_); }
  absl::Span<const float> floats() const {
    return absl::Span<const float>(static_cast<const float*>(data_), bytes_ / sizeof(float));
  }

 private:
  void Release();

  void* data_ = nullptr;
  size_t bytes_ = 0;
  bool pinned_ = false;
};

}  // namespace flashscope::verify
