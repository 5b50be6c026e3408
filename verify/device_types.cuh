// Device-side conversions between the storage types of flashscope's tensors and the arithmetic
// types of the generators and references. Included by .cu files of verify/ only.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace flashscope::verify::device {

template <typename T>
__device__ __forceinline__ float ToFloat(T x);
template <>
__device__ __forceinline__ float ToFloat<float>(float x) {
  return x;
}
template <>
__device__ __forceinline__ float ToFloat<__half>(__half x) {
  return __half2float(x);
}
template <>
__device__ __forceinline__ float ToFloat<__nv_bfloat16>(__nv_bfloat16 x) {
  return __bfloat162float(x);
}

template <typename T>
__device__ __forceinline__ T FromFloat(float x);
template <>
__device__ __forceinline__ float FromFloat<float>(float x) {
  return x;
}
template <>
__device__ __forceinline__ __half FromFloat<__half>(float x) {
  return __float2half_rn(x);
}
template <>
__device__ __forceinline__ __nv_bfloat16 FromFloat<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}

// x rounded to T and back: the value a kernel storing x in T would keep.
template <typename T>
__device__ __forceinline__ float RoundTo(float x) {
  return ToFloat<T>(FromFloat<T>(x));
}

}  // namespace flashscope::verify::device
