// Host side of TMA for the Hopper rungs (GEMM g06, attention a12+): tensor maps of up to three
// dimensions, encoded by the driver's cuTensorMapEncodeTiled. The driver entry point is reached
// through cudaGetDriverEntryPointByVersion, so nothing beyond the CUDA runtime is linked (the
// driver library is already loaded by then).
#pragma once

#include <cuda.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

namespace flashscope::kernels::hopper {

// A tensor of `rank` (2 or 3) dimensions of 16-bit elements: dims[0] is the contiguous one;
// strides_bytes[i] is the distance between consecutive indices of dims[i + 1]. TMA copies boxes
// of box[0] x box[1] (x box[2]) elements; box[0] · 2 bytes must not exceed the swizzle span (128
// bytes with CU_TENSOR_MAP_SWIZZLE_128B). Elements of a box outside the tensor load as zeros.
struct TmaTensor {
  const void* base = nullptr;
  CUtensorMapDataType type = CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  int rank = 2;
  uint64_t dims[3] = {0, 0, 1};
  uint64_t strides_bytes[2] = {0, 0};
  uint32_t box[3] = {0, 0, 1};
  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
  // How much L2 fetches around each request of the copy engine: 256 bytes, but 128 for a matrix
  // whose rows are off the 32-byte grid (MatrixTensor sets it by PromotionForRows).
  CUtensorMapL2promotion l2_promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
};

// L2 promotion for a tensor whose rows are `row_bytes` apart: 128 bytes when the rows are off the
// 32-byte sector grid, 256 otherwise. Session 10's promotion study (kernels/perf/gemm_sweep.cu
// --promotion, results/device/20261128-h200-session10/call7-promotion.txt): with 256 bytes g06 ran
// 3000^3 at 0.80x cuBLAS and 5000^3 at 0.80x, with 128 at 0.91-0.92x and 0.86x (a 128-byte box row
// that straddles two 256-byte blocks made L2 fetch both); on rows on the grid (4000^3, 6000^3)
// every promotion was level within 0.5 %.
CUtensorMapL2promotion PromotionForRows(uint64_t row_bytes);

// A row-major matrix of `rows` x `cols` elements, `row_stride_bytes` apart, read in boxes of
// `box_rows` x `box_cols` elements, 128-byte swizzled, with the rows' L2 promotion
// (PromotionForRows).
TmaTensor MatrixTensor(const void* base, CUtensorMapDataType type, uint64_t rows, uint64_t cols,
                       uint64_t row_stride_bytes, uint32_t box_rows, uint32_t box_cols);

// Empty when TMA can address a tensor at `base` whose rows are `row_stride_bytes` apart: the base
// 16-byte aligned and the stride a multiple of 16 bytes (the tensor map's own rules); else why
// not, naming the value.
std::string TmaAddressable(const void* base, uint64_t row_stride_bytes);

// Encodes `t` into `out`. Empty on success, else the reason naming the value at fault (alignment,
// stride, extent, box) or the driver's own error with the tensor's shape.
std::string EncodeTensorMap(const TmaTensor& t, CUtensorMap* out);

// Tensor maps (or any host-side set-up) kept for the last kEntries buffer sets, the oldest
// replaced first. Encoding costs host time inside a timed launch, and the harness gives the
// launches of a case one of two buffer slots drawn per launch (docs/trust.md, "Rotated buffers"):
// a single kept entry would be encoded again on every change of slot. Not thread-safe: the caller
// locks or keeps one per thread.
template <typename Key, typename Maps, int kEntries = 4>
class RecentMaps {
 public:
  // The maps kept for `key`, or null.
  const Maps* Find(const Key& key) const {
    for (int i = 0; i < size_; ++i) {
      if (keys_[i] == key) return &maps_[i];
    }
    return nullptr;
  }
  void Keep(const Key& key, const Maps& maps) {
    keys_[next_] = key;
    maps_[next_] = maps;
    next_ = (next_ + 1) % kEntries;
    size_ = std::min(size_ + 1, kEntries);
  }

 private:
  std::array<Key, kEntries> keys_{};
  std::array<Maps, kEntries> maps_{};
  int next_ = 0;
  int size_ = 0;
};

}  // namespace flashscope::kernels::hopper
