// Host-side conversions between float and the 16-bit and 8-bit formats flashscope's kernels read
// and write. Round-to-nearest-even, like __float2half_rn / __float2bfloat16_rn on the device (and
// for E4M3 __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3)), so that a value rounded here
// equals the value a kernel would store. No CUDA headers: CPU tests and the
// verifier use these on raw bytes copied back from the device.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "common/problem.h"

namespace flashscope::verify {

uint16_t FloatToHalfBits(float f);
uint16_t FloatToBf16Bits(float f);
// OCP FP8 E4M3FN: bias 7, 3 mantissa bits, no infinities, 0x7F/0xFF NaN, largest 448, smallest
// subnormal 2^-9. Saturating: finite values beyond ±448 (and ±inf) become ±448, NaN 0x7F.
uint8_t FloatToE4M3Bits(float f);
inline constexpr float kE4M3Max = 448.f;

// Widening to float is exact; inline, because the verifier's statistics pass calls them once
// per element of outputs of tens of millions (error_stats.cc).
inline float FloatFromBits(uint32_t x) {
  float f;
  std::memcpy(&f, &x, sizeof(f));
  return f;
}
inline float HalfBitsToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu;
  const uint32_t mant = h & 0x3FFu;
  if (exp == 0) {
    const float mag = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -mag : mag;
  }
  if (exp == 31) return FloatFromBits(sign | 0x7F800000u | (mant << 13));  // inf or NaN
  return FloatFromBits(sign | ((exp + 112u) << 23) | (mant << 13));
}
inline float Bf16BitsToFloat(uint16_t b) { return FloatFromBits(static_cast<uint32_t>(b) << 16); }
inline float E4M3BitsToFloat(uint8_t b) {
  const uint32_t exp = (b >> 3) & 0xFu;
  const uint32_t mant = b & 0x7u;
  if (exp == 15 && mant == 7) return std::nanf("");
  // Subnormals (exp 0) are mant · 2^-9; normals (8 + mant) · 2^(exp - 10). Both exact in float.
  const float mag = exp == 0 ? std::ldexp(static_cast<float>(mant), -9)
                             : std::ldexp(static_cast<float>(8 + mant), static_cast<int>(exp) - 10);
  return (b & 0x80u) ? -mag : mag;
}

// `f` rounded to the nearest value representable in `t` (fp32: unchanged).
float RoundToDType(float f, DType t);

// Element `i` of a raw array of `t`, as float.
float LoadAsFloat(const void* data, DType t, int64_t i);
// The raw bit pattern of `t` at element `i` (zero-extended), for poison checks.
uint32_t LoadBits(const void* data, DType t, int64_t i);

// Whole-array conversions: `n` elements of raw `t` <-> float.
void ConvertToFloat(const void* src, DType t, int64_t n, float* dst);
void ConvertFromFloat(const float* src, int64_t n, DType t, void* dst);

}  // namespace flashscope::verify
