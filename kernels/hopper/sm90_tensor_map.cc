#include "kernels/hopper/sm90_tensor_map.h"

#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include <mutex>

namespace flashscope::kernels::sm90 {
namespace {

// The driver's entry point, looked up once (thread-safe); null with `error` set when missing.
PFN_cuTensorMapEncodeTiled_v12000 EncodeFn(std::string* error) {
  static std::once_flag once;
  static PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
  static std::string lookup_error;
  std::call_once(once, [] {
    void* ptr = nullptr;
    cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
    const cudaError_t err = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &ptr, 12000,
                                                             cudaEnableDefault, &status);
    if (err != cudaSuccess || status != cudaDriverEntryPointSuccess || ptr == nullptr) {
      lookup_error = std::string("cuTensorMapEncodeTiled not found in the CUDA driver (") +
                     cudaGetErrorString(err) + "): TMA needs a driver for CUDA 12.0 or newer";
      return;
    }
    fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(ptr);
  });
  if (fn == nullptr) *error = lookup_error;
  return fn;
}

}  // namespace

std::string EncodeTensorMap3D(const Tensor3D& t, CUtensorMap* out) {
  if (reinterpret_cast<uintptr_t>(t.base) % 16 != 0) {
    return "TMA needs a 16-byte aligned tensor base address";
  }
  for (uint64_t s : t.strides_bytes) {
    if (s % 16 != 0 || s >= (uint64_t{1} << 40)) {
      return "TMA strides must be multiples of 16 bytes below 2^40; got " + std::to_string(s);
    }
  }
  for (int i = 0; i < 3; ++i) {
    if (t.dims[i] == 0 || t.dims[i] > (uint64_t{1} << 32)) {
      return "TMA tensor dimension " + std::to_string(i) + " must be in 1..2^32; got " +
             std::to_string(t.dims[i]);
    }
    if (t.box[i] == 0 || t.box[i] > 256) {
      return "TMA box dimension " + std::to_string(i) + " must be in 1..256; got " +
             std::to_string(t.box[i]);
    }
  }
  std::string error;
  const auto encode = EncodeFn(&error);
  if (encode == nullptr) return error;
  const cuuint32_t element_strides[3] = {1, 1, 1};
  const CUresult r = encode(out, t.type, 3, const_cast<void*>(t.base), t.dims, t.strides_bytes,
                            t.box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, t.swizzle,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    return "cuTensorMapEncodeTiled failed with CUresult " + std::to_string(static_cast<int>(r));
  }
  return "";
}

}  // namespace flashscope::kernels::sm90
