// One switch over an element type for the host side of verify's kernels: fn is called with a
// value of the C++ type of `dtype` (__half, __nv_bfloat16, __nv_fp8_e4m3 or float), so that one
// generic lambda launches the instantiation of a templated kernel for any of them:
//   return WithElementType(p.dtype, [&](auto e) { return Launch<decltype(e)>(...); });
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include "common/problem.h"

namespace flashscope::verify {

// cudaErrorInvalidValue for a dtype outside the four. An E4M3 attention's output is BF16
// (AttentionOutputDType): code that dispatches on an output's type passes that, not p.dtype.
template <class Fn>
cudaError_t WithElementType(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::kF16:
      return fn(__half{});
    case DType::kBF16:
      return fn(__nv_bfloat16{});
    case DType::kE4M3:
      return fn(__nv_fp8_e4m3{});
    case DType::kF32:
      return fn(float{});
  }
  return cudaErrorInvalidValue;
}

}  // namespace flashscope::verify
