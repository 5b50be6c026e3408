// An output element's storage bits, for the device checks that read outputs as bits: the poison
// pattern (every byte kPoisonByte, 0xFF: the output buffers are filled with it before a launch, so
// these bits mean "never written") and the element's value from its bits.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace flashscope::verify {

template <typename T>
struct ElementBits;
template <>
struct ElementBits<float> {
  using Type = unsigned int;
  static constexpr Type kPoison = 0xFFFFFFFFu;
  __device__ static float Value(Type b) { return __uint_as_float(b); }
};
template <>
struct ElementBits<__half> {
  using Type = unsigned short;
  static constexpr Type kPoison = 0xFFFFu;
  __device__ static float Value(Type b) { return __half2float(__ushort_as_half(b)); }
};
template <>
struct ElementBits<__nv_bfloat16> {
  using Type = unsigned short;
  static constexpr Type kPoison = 0xFFFFu;
  __device__ static float Value(Type b) { return __bfloat162float(__ushort_as_bfloat16(b)); }
};

}  // namespace flashscope::verify
