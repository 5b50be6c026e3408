// Host side of TMA for the Hopper rungs: tensor maps (CUtensorMap) encoded by the driver's
// cuTensorMapEncodeTiled, reached through cudaGetDriverEntryPointByVersion so that nothing beyond
// the CUDA runtime is linked (the driver library is already loaded by then).
#pragma once

#include <cuda.h>

#include <cstdint>
#include <string>

namespace flashscope::kernels::sm90 {

// A 3-D tensor of 16-bit elements: dims[0] is the contiguous one; strides_bytes[i] is the
// distance between consecutive indices of dims[i + 1]. Boxes of box[0] x box[1] x box[2]
// elements are copied per TMA instruction; box[0] · 2 bytes must not exceed the swizzle span
// (128 bytes with CU_TENSOR_MAP_SWIZZLE_128B). Elements of a box outside the tensor load as zeros.
struct Tensor3D {
  const void* base = nullptr;
  CUtensorMapDataType type = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  uint64_t dims[3] = {0, 0, 0};
  uint64_t strides_bytes[2] = {0, 0};
  uint32_t box[3] = {0, 0, 0};
  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
};

// Encodes `t` into `out`. Returns "" on success, else the reason naming the value at fault
// (alignment, stride, box or the driver's own error).
std::string EncodeTensorMap3D(const Tensor3D& t, CUtensorMap* out);

}  // namespace flashscope::kernels::sm90
