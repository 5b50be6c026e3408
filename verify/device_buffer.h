// A device allocation owned by a host object, and the translation of CUDA errors into
// absl::Status, shared by workspace.cc and cross_check.cc (host code; never included by .cu).
//
// Every allocation is padded with guard bytes (docs/trust.md, "integrity"): kGuardBytes before
// and after the bytes asked for, filled with kGuardByte, so that a kernel writing out of bounds
// of a buffer it was given lands in a guard that runner/buffer_integrity.h checks after every
// launch (instead of in a neighbouring buffer, silently). The guards of a live allocation are
// found from its pointer (GuardedBytes).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace flashscope::verify {

inline absl::Status CudaStatus(cudaError_t e, const std::string& what) {
  if (e == cudaSuccess) return absl::OkStatus();
  return absl::InternalError(
      absl::StrCat(what, ": ", cudaGetErrorName(e), " (", cudaGetErrorString(e), ")"));
}

inline std::string GiB(double bytes) { return absl::StrFormat("%.2f GiB", bytes / (1 << 30)); }

// Guard bytes on each side of every DeviceBuffer: a multiple of 4096 keeps the pointer handed out
// as aligned as cudaMalloc's (TMA descriptors, vector loads); 64 KiB catches a store one row of a
// wide tile past the end (the bytes cost nothing next to the buffers).
inline constexpr size_t kGuardBytes = 64 << 10;
inline constexpr unsigned char kGuardByte = 0xA7;

namespace device_buffer_internal {
inline std::mutex& RegistryMutex() {
  static std::mutex m;
  return m;
}
// Pointer handed out -> bytes asked for, of every live DeviceBuffer.
inline std::map<const void*, size_t>& Registry() {
  static std::map<const void*, size_t> r;
  return r;
}
}  // namespace device_buffer_internal

// The bytes asked for when `ptr` is the pointer of a live DeviceBuffer (its guards are then at
// [ptr - kGuardBytes, ptr) and [ptr + bytes, ptr + bytes + kGuardBytes)); nullopt otherwise.
inline std::optional<size_t> GuardedBytes(const void* ptr) {
  std::lock_guard<std::mutex> lock(device_buffer_internal::RegistryMutex());
  auto it = device_buffer_internal::Registry().find(ptr);
  if (it == device_buffer_internal::Registry().end()) return std::nullopt;
  return it->second;
}

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(o.bytes_) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      Reset();
      ptr_ = std::exchange(o.ptr_, nullptr);
      bytes_ = o.bytes_;
    }
    return *this;
  }
  ~DeviceBuffer() { Reset(); }

  // `what` names the buffer in the error; an allocation failure is ResourceExhausted with the
  // bytes asked for and the bytes free.
  absl::Status Allocate(size_t bytes, const std::string& what) {
    Reset();
    if (bytes == 0) return absl::OkStatus();
    void* base = nullptr;
    const cudaError_t e = cudaMalloc(&base, bytes + 2 * kGuardBytes);
    if (e == cudaErrorMemoryAllocation) {
      cudaGetLastError();  // not sticky; clear it so that later calls do not report it
      ptr_ = nullptr;
      size_t free_b = 0, total_b = 0;
      cudaMemGetInfo(&free_b, &total_b);
      return absl::ResourceExhaustedError(absl::StrCat("allocating ", what, " (", GiB(bytes),
                                                       ") failed: ", GiB(free_b), " free of ",
                                                       GiB(total_b), " on the device"));
    }
    if (e != cudaSuccess) {
      ptr_ = nullptr;
      return CudaStatus(e, absl::StrCat("cudaMalloc of ", what));
    }
    ptr_ = static_cast<unsigned char*>(base) + kGuardBytes;
    bytes_ = bytes;
    // Synchronous: the runner's streams do not wait for the legacy stream the memsets run on.
    cudaError_t g = cudaMemset(base, kGuardByte, kGuardBytes);
    if (g == cudaSuccess) {
      g = cudaMemset(static_cast<unsigned char*>(ptr_) + bytes, kGuardByte, kGuardBytes);
    }
    if (g == cudaSuccess) g = cudaDeviceSynchronize();
    if (g != cudaSuccess) {
      cudaFree(base);
      ptr_ = nullptr;
      bytes_ = 0;
      return CudaStatus(g, absl::StrCat("guard bytes of ", what));
    }
    std::lock_guard<std::mutex> lock(device_buffer_internal::RegistryMutex());
    device_buffer_internal::Registry()[ptr_] = bytes;
    return absl::OkStatus();
  }

  void Reset() {
    if (ptr_ != nullptr) {
      {
        std::lock_guard<std::mutex> lock(device_buffer_internal::RegistryMutex());
        device_buffer_internal::Registry().erase(ptr_);
      }
      cudaFree(static_cast<unsigned char*>(ptr_) - kGuardBytes);
    }
    ptr_ = nullptr;
    bytes_ = 0;
  }

  void* get() const { return ptr_; }
  float* f32() const { return static_cast<float*>(ptr_); }
  size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace flashscope::verify
