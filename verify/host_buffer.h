// Host memory that the device copies into, allocated once and reused: the Workspace's host copies
// of the reference, the baseline and the kernel's output (verify/workspace.h). Pinned
// (cudaMallocHost) where that succeeds, so that a device-to-host copy goes straight into it at
// the link's speed and no redraw pays the page faults of a fresh allocation; pageable where
// pinning fails (no device, or the system's pinned-memory limit), which still copies correctly,
// through the driver's staging buffer.
#pragma once

#include <cstddef>
#include <memory>

#include "absl/status/status.h"
#include "absl/types/span.h"

namespace flashscope::verify {

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
  absl::Status Allocate(size_t bytes, const char* what);

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
