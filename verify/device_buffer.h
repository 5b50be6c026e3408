// A device allocation owned by a host object, and the translation of CUDA errors into
// absl::Status, shared by workspace.cc and cross_check.cc (host code; never included by .cu).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
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
    const cudaError_t e = cudaMalloc(&ptr_, bytes);
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
    bytes_ = bytes;
    return absl::OkStatus();
  }

  void Reset() {
    if (ptr_ != nullptr) cudaFree(ptr_);
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
