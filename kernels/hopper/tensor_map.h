// Host side of TMA for the Hopper rungs: 2-D tensor maps of row-major matrices, encoded by the
// driver's cuTensorMapEncodeTiled. The driver entry point is reached through
// cudaGetDriverEntryPointByVersion, so nothing beyond the CUDA runtime is linked.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <string>

namespace flashscope::kernels::hopper {

// A row-major matrix of `rows` x `cols` elements with `row_stride_bytes` between rows, read in
// boxes of `box_rows` x `box_cols` elements (the box's row must be at most the swizzle span:
// 128 bytes for CU_TENSOR_MAP_SWIZZLE_128B).
struct MatrixTile {
  const void* base = nullptr;
  CUtensorMapDataType type = CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  uint64_t rows = 0, cols = 0, row_stride_bytes = 0;
  uint32_t box_rows = 0, box_cols = 0;
  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
};

// Empty when TMA can address the matrix: the base 16-byte aligned and the row stride a multiple
// of 16 bytes (the tensor map's own rules); else why not, naming the value.
std::string TmaAddressable(const void* base, uint64_t row_stride_bytes);

// Encodes `tile` into `out`; empty on success, else the reason (the driver's error included).
// Elements of a box outside the matrix are loaded as zeros.
std::string EncodeTensorMap2D(const MatrixTile& tile, CUtensorMap* out);

}  // namespace flashscope::kernels::hopper
