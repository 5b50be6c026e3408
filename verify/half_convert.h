// Host-side conversions between float and the 16-bit formats flashscope's kernels read and write.
// Round-to-nearest-even, like __float2half_rn / __float2bfloat16_rn on the device, so that a
// value rounded here equals the value a kernel would store. No CUDA headers: CPU tests and the
// verifier use these on raw bytes copied back from the device.
#pragma once

#include <cstdint>

#include "common/problem.h"

namespace flashscope::verify {

uint16_t FloatToHalfBits(float f);
float HalfBitsToFloat(uint16_t h);
uint16_t FloatToBf16Bits(float f);
float Bf16BitsToFloat(uint16_t b);

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
