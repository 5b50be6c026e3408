#include "verify/host_buffer.h"

#include <cuda_runtime_api.h>

#include <new>
#include <utility>

#include "absl/strings/str_cat.h"

namespace flashscope::verify {

HostBuffer::~HostBuffer() { Release(); }

HostBuffer::HostBuffer(HostBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      pinned_(std::exchange(other.pinned_, false)) {}

HostBuffer& HostBuffer::operator=(HostBuffer&& other) noexcept {
  if (this != &other) {
    Release();
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    pinned_ = std::exchange(other.pinned_, false);
  }
  return *this;
}

void HostBuffer::Release() {
  if (data_ == nullptr) return;
  if (pinned_) {
    cudaFreeHost(data_);
  } else {
    ::operator delete(data_);
  }
  data_ = nullptr;
  bytes_ = 0;
  pinned_ = false;
}

absl::Status HostBuffer::Allocate(size_t bytes, const char* what, Pinning pinning) {
  if (data_ != nullptr && bytes_ == bytes && pinned_ == (pinning == Pinning::kPinned)) {
    return absl::OkStatus();
  }
  Release();
  if (bytes == 0) return absl::OkStatus();
  if (pinning == Pinning::kPinned && cudaMallocHost(&data_, bytes) == cudaSuccess) {
    pinned_ = true;
  } else {
    // Not sticky, but it would be reported by the next cudaGetLastError: clear it.
    cudaGetLastError();
    data_ = ::operator new(bytes, std::nothrow);
    if (data_ == nullptr) {
      return absl::ResourceExhaustedError(
          absl::StrCat("allocating ", bytes, " bytes of host memory for ", what, " failed"));
    }
  }
  bytes_ = bytes;
  return absl::OkStatus();
}

}  // namespace flashscope::verify
