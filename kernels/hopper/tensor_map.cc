#include "kernels/hopper/tensor_map.h"

#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled_v12000
#include <cuda_runtime_api.h>

#include <mutex>

namespace flashscope::kernels::hopper {
namespace {

// The driver's encoder, looked up once (thread-safe; the ABI of CUDA 12.0, which 13.x still
// provides); null with `why` set when the driver lacks it.
PFN_cuTensorMapEncodeTiled_v12000 Encoder(std::string* why) {
  static std::once_flag once;
  static PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
  static std::string lookup_error;
  std::call_once(once, [] {
    void* ptr = nullptr;
    cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
    const cudaError_t err = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &ptr, 12000,
                                                             cudaEnableDefault, &status);
    if (err != cudaSuccess || status != cudaDriverEntryPointSuccess || ptr == nullptr) {
      lookup_error = std::string("the driver has no cuTensorMapEncodeTiled (") +
                     cudaGetErrorString(err) + ", query result " +
                     std::to_string(static_cast<int>(status)) +
                     "): TMA needs a driver for CUDA 12.0 or later";
      return;
    }
    fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(ptr);
  });
  if (fn == nullptr) *why = lookup_error;
  return fn;
}

std::string Shape(const TmaTensor& t) {
  std::string s = "dims";
  for (int i = 0; i < t.rank; ++i) s += (i ? "x" : " ") + std::to_string(t.dims[i]);
  s += ", box";
  for (int i = 0; i < t.rank; ++i) s += (i ? "x" : " ") + std::to_string(t.box[i]);
  return s;
}

// The tensor map's own limits, checked here so that the message names the value.
std::string CheckLimits(const TmaTensor& t) {
  if (t.rank < 2 || t.rank > 3) {
    return "TMA tensors here have 2 or 3 dimensions; got " + std::to_string(t.rank);
  }
  for (int i = 0; i + 1 < t.rank; ++i) {
    if (std::string why = TmaAddressable(t.base, t.strides_bytes[i]); !why.empty()) return why;
    if (t.strides_bytes[i] >= (uint64_t{1} << 40)) {
      return "TMA strides must be below 2^40 bytes; got " + std::to_string(t.strides_bytes[i]);
    }
  }
  for (int i = 0; i < t.rank; ++i) {
    if (t.dims[i] == 0 || t.dims[i] > (uint64_t{1} << 32)) {
      return "TMA tensor dimension " + std::to_string(i) + " must be in 1..2^32; got " +
             std::to_string(t.dims[i]);
    }
    if (t.box[i] == 0 || t.box[i] > 256) {
      return "TMA box dimension " + std::to_string(i) + " must be in 1..256; got " +
             std::to_string(t.box[i]);
    }
  }
  return "";
}

}  // namespace

CUtensorMapL2promotion PromotionForRows(uint64_t row_bytes) {
  return row_bytes % 32 != 0 ? CU_TENSOR_MAP_L2_PROMOTION_L2_128B
                             : CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
}

TmaTensor MatrixTensor(const void* base, CUtensorMapDataType type, uint64_t rows, uint64_t cols,
                       uint64_t row_stride_bytes, uint32_t box_rows, uint32_t box_cols) {
  TmaTensor t;
  t.base = base;
  t.type = type;
  t.rank = 2;
  t.dims[0] = cols;  // dimension 0 is the innermost (contiguous) one
  t.dims[1] = rows;
  t.strides_bytes[0] = row_stride_bytes;
  t.box[0] = box_cols;
  t.box[1] = box_rows;
  t.l2_promotion = PromotionForRows(row_stride_bytes);
  return t;
}

std::string TmaAddressable(const void* base, uint64_t row_stride_bytes) {
  if (reinterpret_cast<uintptr_t>(base) % 16 != 0) {
    return "the tensor does not start on a 16-byte boundary";
  }
  if (row_stride_bytes % 16 != 0) {
    return "its row stride (" + std::to_string(row_stride_bytes) +
           " bytes) is not a multiple of 16 bytes";
  }
  return "";
}

std::string EncodeTensorMap(const TmaTensor& t, CUtensorMap* out) {
  if (std::string why = CheckLimits(t); !why.empty()) return why;
  std::string why;
  const PFN_cuTensorMapEncodeTiled_v12000 encode = Encoder(&why);
  if (encode == nullptr) return why;
  // Dimension 0's stride is the element itself: strides_bytes lists the others.
  const cuuint32_t element_strides[3] = {1, 1, 1};
  const CUresult r =
      encode(out, t.type, static_cast<cuuint32_t>(t.rank), const_cast<void*>(t.base), t.dims,
             t.strides_bytes, t.box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, t.swizzle,
             t.l2_promotion, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    return "cuTensorMapEncodeTiled failed with CUresult " + std::to_string(static_cast<int>(r)) +
           " (" + Shape(t) + ")";
  }
  return "";
}

}  // namespace flashscope::kernels::hopper
