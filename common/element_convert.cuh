// Conversions between the element types of flashscope's tensors (fp32, fp16, bf16, e4m3) and the
// float arithmetic of kernels, generators and references: one set for kernels/ and verify/, which
// may not include each other. The one CUDA header of common/: included by .cu/.cuh files only (the
// layering check, scripts/check_layering.py, keeps it out of every library that builds without
// CUDA).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

namespace flashscope {

template <typename T>
__host__ __device__ __forceinline__ float ToFloat(T x);
template <>
__host__ __device__ __forceinline__ float ToFloat<float>(float x) {
  return x;
}
template <>
__host__ __device__ __forceinline__ float ToFloat<__half>(__half x) {
  return __half2float(x);
}
template <>
__host__ __device__ __forceinline__ float ToFloat<__nv_bfloat16>(__nv_bfloat16 x) {
  return __bfloat162float(x);
}

// E4M3 (OCP FP8 E4M3FN) widens exactly; its NaN (0x7F/0xFF) reads as NaN.
template <>
__host__ __device__ __forceinline__ float ToFloat<__nv_fp8_e4m3>(__nv_fp8_e4m3 x) {
  return static_cast<float>(x);
}

template <typename T>
__host__ __device__ __forceinline__ T FromFloat(float x);
template <>
__host__ __device__ __forceinline__ float FromFloat<float>(float x) {
  return x;
}
template <>
__host__ __device__ __forceinline__ __half FromFloat<__half>(float x) {
  return __float2half_rn(x);
}
template <>
__host__ __device__ __forceinline__ __nv_bfloat16 FromFloat<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}

// Round to nearest even, saturating to ±448 (satfinite: a finite x never becomes NaN; NaN stays
// NaN), what cvt.rn.satfinite.e4m3x2.f32 does in a kernel.
template <>
__host__ __device__ __forceinline__ __nv_fp8_e4m3 FromFloat<__nv_fp8_e4m3>(float x) {
  return __nv_fp8_e4m3(x);
}

// x rounded to T and back: the value a kernel storing x in T would keep.
template <typename T>
__host__ __device__ __forceinline__ float RoundTo(float x) {
  return ToFloat<T>(FromFloat<T>(x));
}

// Name of the element type in device function names ("a03_wmma<bf16,128>").
template <typename T>
inline const char* ElementName();
template <>
inline const char* ElementName<__half>() {
  return "fp16";
}
template <>
inline const char* ElementName<__nv_bfloat16>() {
  return "bf16";
}
template <>
inline const char* ElementName<__nv_fp8_e4m3>() {
  return "e4m3";
}
template <>
inline const char* ElementName<float>() {
  return "fp32";
}

}  // namespace flashscope
