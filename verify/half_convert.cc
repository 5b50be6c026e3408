#include "verify/half_convert.h"

#include <cmath>
#include <cstring>

namespace flashscope::verify {
namespace {

uint32_t FloatBits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof(x));
  return x;
}

// Shifts `mant` right by `shift` bits, rounding to nearest with ties to even.
uint32_t ShiftRoundEven(uint32_t mant, int shift) {
  uint32_t kept = mant >> shift;
  uint32_t rem = mant & ((1u << shift) - 1u);
  uint32_t half = 1u << (shift - 1);
  if (rem > half || (rem == half && (kept & 1u))) ++kept;
  return kept;
}

}  // namespace

uint16_t FloatToHalfBits(float f) {
  const uint32_t x = FloatBits(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7FFFFFFFu;
  if (abs > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u);  // NaN stays a quiet NaN
  // 65520 is halfway between 65504 (largest half) and 65536; the tie goes to the even
  // neighbour, which is infinity.
  if (abs >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);
  const int exp = static_cast<int>(abs >> 23);
  if (exp < 113) {                // below 2^-14: a half subnormal (unit 2^-24) or zero
    const int shift = 126 - exp;  // value = mant * 2^(exp-150) = (mant >> shift) * 2^-24
    if (shift > 24) return static_cast<uint16_t>(sign);  // < 2^-25: rounds to zero
    const uint32_t mant = (abs & 0x7FFFFFu) | 0x800000u;
    // A carry into 0x400 is the smallest normal, which is the right encoding.
    return static_cast<uint16_t>(sign | ShiftRoundEven(mant, shift));
  }
  // Normal: rebias the exponent (127 -> 15) and round the mantissa from 23 to 10 bits; a carry
  // out of the mantissa correctly increments the exponent.
  const uint32_t unrounded = ((static_cast<uint32_t>(exp - 112)) << 23) | (abs & 0x7FFFFFu);
  return static_cast<uint16_t>(sign | ShiftRoundEven(unrounded, 13));
}

uint16_t FloatToBf16Bits(float f) {
  const uint32_t x = FloatBits(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((x >> 16) | 0x0040u);
  // Adding 0x7FFF plus the lowest kept bit rounds ties to even; an overflow carries into the
  // exponent and lands on infinity, as round-to-nearest-even requires.
  const uint32_t lsb = (x >> 16) & 1u;
  return static_cast<uint16_t>((x + 0x7FFFu + lsb) >> 16);
}

uint8_t FloatToE4M3Bits(float f) {
  const uint32_t x = FloatBits(f);
  const uint8_t sign = static_cast<uint8_t>((x >> 24) & 0x80u);
  const uint32_t abs = x & 0x7FFFFFFFu;
  if (abs > 0x7F800000u) return 0x7F;  // NaN (the one NaN encoding with its sign clear)
  // 464 is halfway between 448 and 480 (which E4M3FN lacks): at and above it round-to-nearest
  // would leave the format; satfinite clamps to 448, and so does everything below it that rounds
  // up past 448 (nothing does: 448 is the nearest).
  if (abs >= 0x43E80000u) return static_cast<uint8_t>(sign | 0x7Eu);  // >= 464 and inf
  const int exp = static_cast<int>(abs >> 23);                        // biased fp32 exponent
  const uint32_t mant = (abs & 0x7FFFFFu) | 0x800000u;
  if (exp < 121) {  // below 2^-6: an E4M3 subnormal (unit 2^-9) or zero
    // abs = mant · 2^(exp - 150); in units of 2^-9: mant · 2^(exp - 141).
    const int shift = 141 - exp;
    if (shift > 24) return sign;  // below half the smallest subnormal (2^-10): zero
    return static_cast<uint8_t>(sign | ShiftRoundEven(mant, shift));  // 8 carries into exp 1
  }
  // Normal: keep 3 of the 23 mantissa bits; a carry into the exponent is the right result.
  const uint32_t e4 = static_cast<uint32_t>(exp - 120);  // E4M3's biased exponent, 1..15
  const uint32_t rounded = (e4 << 3) + ShiftRoundEven(mant, 20) - 8u;
  return static_cast<uint8_t>(sign | (rounded > 0x7Eu ? 0x7Eu : rounded));
}

float RoundToDType(float f, DType t) {
  switch (t) {
    case DType::kF32:
      return f;
    case DType::kF16:
      return HalfBitsToFloat(FloatToHalfBits(f));
    case DType::kBF16:
      return Bf16BitsToFloat(FloatToBf16Bits(f));
    case DType::kE4M3:
      return E4M3BitsToFloat(FloatToE4M3Bits(f));
  }
  return f;
}

float LoadAsFloat(const void* data, DType t, int64_t i) {
  switch (t) {
    case DType::kF32:
      return static_cast<const float*>(data)[i];
    case DType::kF16:
      return HalfBitsToFloat(static_cast<const uint16_t*>(data)[i]);
    case DType::kBF16:
      return Bf16BitsToFloat(static_cast<const uint16_t*>(data)[i]);
    case DType::kE4M3:
      return E4M3BitsToFloat(static_cast<const uint8_t*>(data)[i]);
  }
  return 0.f;
}

uint32_t LoadBits(const void* data, DType t, int64_t i) {
  if (t == DType::kF32) {
    uint32_t x;
    std::memcpy(&x, static_cast<const char*>(data) + 4 * i, 4);
    return x;
  }
  if (t == DType::kE4M3) return static_cast<const uint8_t*>(data)[i];
  return static_cast<const uint16_t*>(data)[i];
}

void ConvertToFloat(const void* src, DType t, int64_t n, float* dst) {
  for (int64_t i = 0; i < n; ++i) dst[i] = LoadAsFloat(src, t, i);
}

void ConvertFromFloat(const float* src, int64_t n, DType t, void* dst) {
  for (int64_t i = 0; i < n; ++i) {
    switch (t) {
      case DType::kF32:
        static_cast<float*>(dst)[i] = src[i];
        break;
      case DType::kF16:
        static_cast<uint16_t*>(dst)[i] = FloatToHalfBits(src[i]);
        break;
      case DType::kBF16:
        static_cast<uint16_t*>(dst)[i] = FloatToBf16Bits(src[i]);
        break;
      case DType::kE4M3:
        static_cast<uint8_t*>(dst)[i] = FloatToE4M3Bits(src[i]);
        break;
    }
  }
}

}  // namespace flashscope::verify
