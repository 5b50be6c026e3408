#include "kernels/hopper/tensor_map.h"

#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled_v12000
#include <cuda_runtime_api.h>

namespace flashscope::kernels::hopper {
namespace {

// The driver's encoder, looked up once (the ABI of CUDA 12.0, which 13.x still provides).
PFN_cuTensorMapEncodeTiled_v12000 Encoder(std::string* why) {
  static std::string error;
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    const cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000,
                                                           cudaEnableDefault, &q);
    if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || p == nullptr) {
      error = std::string("the driver has no cuTensorMapEncodeTiled (") + cudaGetErrorString(e) +
              ", query result " + std::to_string(static_cast<int>(q)) +
              "): a driver for CUDA 12.0 or later is needed";
      return PFN_cuTensorMapEncodeTiled_v12000{nullptr};
    }
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  if (fn == nullptr) *why = error;
  return fn;
}

}  // namespace

std::string TmaAddressable(const void* base, uint64_t row_stride_bytes) {
  if (reinterpret_cast<uintptr_t>(base) % 16 != 0) {
    return "the matrix does not start on a 16-byte boundary";
  }
  if (row_stride_bytes % 16 != 0) {
    return "its row stride (" + std::to_string(row_stride_bytes) +
           " bytes) is not a multiple of 16 bytes";
  }
  return "";
}

std::string EncodeTensorMap2D(const MatrixTile& t, CUtensorMap* out) {
  if (std::string why = TmaAddressable(t.base, t.row_stride_bytes); !why.empty()) return why;
  std::string why;
  const PFN_cuTensorMapEncodeTiled_v12000 encode = Encoder(&why);
  if (encode == nullptr) return why;
  // Dimension 0 is the innermost (contiguous) one: columns.
  const cuuint64_t dims[2] = {t.cols, t.rows};
  const cuuint64_t strides[1] = {t.row_stride_bytes};  // dimension 0's stride is the element
  const cuuint32_t box[2] = {t.box_cols, t.box_rows};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult r = encode(out, t.type, 2, const_cast<void*>(t.base), dims, strides, box,
                            element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, t.swizzle,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    return "cuTensorMapEncodeTiled failed with CUresult " + std::to_string(static_cast<int>(r)) +
           " (rows " + std::to_string(t.rows) + ", cols " + std::to_string(t.cols) + ", box " +
           std::to_string(t.box_rows) + "x" + std::to_string(t.box_cols) + ")";
  }
  return "";
}

}  // namespace flashscope::kernels::hopper
