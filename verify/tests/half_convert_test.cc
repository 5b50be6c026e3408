#include "verify/half_convert.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace flashscope::verify {
namespace {

float Bits(uint32_t x) {
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

TEST(HalfConvert, ExactValuesAndSigns) {
  EXPECT_EQ(FloatToHalfBits(1.0f), 0x3C00);
  EXPECT_EQ(FloatToHalfBits(-2.0f), 0xC000);
  EXPECT_EQ(FloatToHalfBits(0.0f), 0x0000);
  EXPECT_EQ(FloatToHalfBits(-0.0f), 0x8000);
  EXPECT_EQ(FloatToHalfBits(65504.0f), 0x7BFF);
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1.0f, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(HalfBitsToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(HalfBitsToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(HalfBitsToFloat(0x83FF), -std::ldexp(1023.0f, -24));
}

TEST(HalfConvert, RoundsToNearestEven) {
  // 1 + 2^-11 is halfway between 1 (even mantissa) and 1 + 2^-10: goes to 1.
  EXPECT_EQ(FloatToHalfBits(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  // 1 + 3·2^-11 is halfway between 1 + 2^-10 (odd) and 1 + 2^-9: goes up.
  EXPECT_EQ(FloatToHalfBits(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
  // Just above the halfway point rounds up.
  EXPECT_EQ(FloatToHalfBits(std::nextafter(1.0f + std::ldexp(1.0f, -11), 2.0f)), 0x3C01);
  // Subnormal ties: 2^-25 -> 0 (even), 3·2^-25 -> 2·2^-24 (even), 1.5·2^-25 -> 2^-24.
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1.0f, -25)), 0x0000);
  EXPECT_EQ(FloatToHalfBits(3 * std::ldexp(1.0f, -25)), 0x0002);
  EXPECT_EQ(FloatToHalfBits(1.5f * std::ldexp(1.0f, -25)), 0x0001);
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1.0f, -30)), 0x0000);
  // Rounding the largest subnormal up carries into the smallest normal.
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1023.6f, -24)), 0x0400);
}

TEST(HalfConvert, OverflowInfNan) {
  EXPECT_EQ(FloatToHalfBits(65519.0f), 0x7BFF);
  EXPECT_EQ(FloatToHalfBits(65520.0f), 0x7C00);  // tie goes to the even neighbour: infinity
  EXPECT_EQ(FloatToHalfBits(1e10f), 0x7C00);
  EXPECT_EQ(FloatToHalfBits(-1e10f), 0xFC00);
  EXPECT_EQ(FloatToHalfBits(std::numeric_limits<float>::infinity()), 0x7C00);
  const uint16_t nan = FloatToHalfBits(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7C00, 0x7C00);
  EXPECT_NE(nan & 0x03FF, 0);
  EXPECT_TRUE(std::isinf(HalfBitsToFloat(0xFC00)));
  EXPECT_LT(HalfBitsToFloat(0xFC00), 0);
  EXPECT_TRUE(std::isnan(HalfBitsToFloat(0xFFFF)));
}

TEST(HalfConvert, EveryHalfRoundTrips) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = HalfBitsToFloat(static_cast<uint16_t>(h));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(HalfBitsToFloat(FloatToHalfBits(f)))) << h;
    } else {
      ASSERT_EQ(FloatToHalfBits(f), h) << "half bits 0x" << std::hex << h;
    }
  }
}

TEST(Bf16Convert, ValuesRoundingAndSpecials) {
  EXPECT_EQ(FloatToBf16Bits(1.0f), 0x3F80);
  EXPECT_EQ(FloatToBf16Bits(-1.0f), 0xBF80);
  EXPECT_EQ(FloatToBf16Bits(1.0f + std::ldexp(1.0f, -8)), 0x3F80);        // tie, even stays
  EXPECT_EQ(FloatToBf16Bits(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3F82);    // tie, odd goes up
  EXPECT_EQ(FloatToBf16Bits(std::numeric_limits<float>::max()), 0x7F80);  // rounds to inf
  EXPECT_EQ(FloatToBf16Bits(Bits(0x7F7F7FFF)), 0x7F7F);  // just below the tie: largest finite
  EXPECT_EQ(FloatToBf16Bits(std::numeric_limits<float>::infinity()), 0x7F80);
  EXPECT_TRUE(
      std::isnan(Bf16BitsToFloat(FloatToBf16Bits(std::numeric_limits<float>::quiet_NaN()))));
  // A NaN whose payload sits only in the dropped low bits must stay a NaN, not become inf.
  EXPECT_TRUE(std::isnan(Bf16BitsToFloat(FloatToBf16Bits(Bits(0x7F800001)))));
  EXPECT_EQ(Bf16BitsToFloat(0x4049), 3.140625f);
}

TEST(Bf16Convert, EveryBf16RoundTrips) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const float f = Bf16BitsToFloat(static_cast<uint16_t>(b));
    if (std::isnan(f)) continue;
    ASSERT_EQ(FloatToBf16Bits(f), b) << "bf16 bits 0x" << std::hex << b;
  }
}

TEST(E4M3Convert, ValuesRoundingSaturationAndNan) {
  EXPECT_EQ(FloatToE4M3Bits(1.0f), 0x38);
  EXPECT_EQ(FloatToE4M3Bits(-2.0f), 0xC0);
  EXPECT_EQ(FloatToE4M3Bits(448.0f), 0x7E);
  EXPECT_EQ(E4M3BitsToFloat(0x7E), kE4M3Max);
  EXPECT_EQ(E4M3BitsToFloat(0x01), std::ldexp(1.0f, -9));  // smallest subnormal
  EXPECT_EQ(E4M3BitsToFloat(0x08), std::ldexp(1.0f, -6));  // smallest normal
  // Ties to even: 1 + 1/16 lies between 1 (even) and 1.125; 1 + 3/16 between 1.125 and 1.25.
  EXPECT_EQ(FloatToE4M3Bits(1.0625f), 0x38);
  EXPECT_EQ(FloatToE4M3Bits(1.1875f), 0x3A);
  EXPECT_EQ(FloatToE4M3Bits(1.07f), 0x39);
  // Subnormal ties: 2^-10 (half the smallest) goes to 0, 3·2^-10 to 2·2^-9 (even).
  EXPECT_EQ(FloatToE4M3Bits(std::ldexp(1.0f, -10)), 0x00);
  EXPECT_EQ(FloatToE4M3Bits(std::ldexp(1.1f, -10)), 0x01);
  EXPECT_EQ(FloatToE4M3Bits(std::ldexp(3.0f, -10)), 0x02);
  EXPECT_EQ(FloatToE4M3Bits(std::ldexp(7.5f, -9)), 0x08) << "a tie rounds up into the normals";
  EXPECT_EQ(FloatToE4M3Bits(-1e-30f), 0x80);
  // Saturation (satfinite): never NaN, never beyond ±448.
  for (float big : {449.0f, 463.9f, 464.0f, 480.0f, 1e6f, std::numeric_limits<float>::max(),
                    std::numeric_limits<float>::infinity()}) {
    EXPECT_EQ(FloatToE4M3Bits(big), 0x7E) << big;
    EXPECT_EQ(FloatToE4M3Bits(-big), 0xFE) << big;
  }
  EXPECT_TRUE(std::isnan(E4M3BitsToFloat(FloatToE4M3Bits(std::nanf("")))));
  EXPECT_TRUE(std::isnan(E4M3BitsToFloat(0x7F)));
  EXPECT_TRUE(std::isnan(E4M3BitsToFloat(0xFF)));
}

TEST(E4M3Convert, EveryE4M3RoundTripsAndNeighboursRoundToTheNearer) {
  for (int b = 0; b < 256; ++b) {
    if ((b & 0x7F) == 0x7F) continue;  // NaN
    const float v = E4M3BitsToFloat(static_cast<uint8_t>(b));
    if (v == 0.0f) {
      EXPECT_EQ(FloatToE4M3Bits(v) & 0x7F, 0) << b;
      continue;
    }
    EXPECT_EQ(FloatToE4M3Bits(v), b) << b;
    // Just inside the midpoint towards the next larger magnitude still rounds here.
    if ((b & 0x7F) < 0x7E) {
      const float next = E4M3BitsToFloat(static_cast<uint8_t>(b + 1));
      const float mid = 0.5f * (v + next);
      EXPECT_EQ(FloatToE4M3Bits(std::nextafter(mid, v)), b) << b;
      EXPECT_EQ(FloatToE4M3Bits(std::nextafter(mid, next)), b + 1) << b;
    }
  }
}

TEST(Convert, E4M3ArraysAndBits) {
  const float src[3] = {1.0f, 0.3f, -500.0f};
  uint8_t e4m3[3];
  ConvertFromFloat(src, 3, DType::kE4M3, e4m3);
  float back[3];
  ConvertToFloat(e4m3, DType::kE4M3, 3, back);
  EXPECT_EQ(back[0], 1.0f);
  EXPECT_EQ(back[1], RoundToDType(0.3f, DType::kE4M3));
  EXPECT_EQ(back[1], 0.3125f);
  EXPECT_EQ(back[2], -448.0f);
  EXPECT_EQ(LoadBits(e4m3, DType::kE4M3, 0), 0x38u);
  EXPECT_EQ(LoadAsFloat(e4m3, DType::kE4M3, 2), -448.0f);
}

TEST(Convert, ArraysAndRoundToDType) {
  const float src[4] = {1.0f, 0.1f, -3.5f, 70000.0f};
  uint16_t half[4];
  ConvertFromFloat(src, 4, DType::kF16, half);
  float back[4];
  ConvertToFloat(half, DType::kF16, 4, back);
  EXPECT_EQ(back[0], 1.0f);
  EXPECT_EQ(back[1], RoundToDType(0.1f, DType::kF16));
  EXPECT_NEAR(back[1], 0.1f, 0.1f * std::ldexp(1.0f, -11));
  EXPECT_EQ(back[2], -3.5f);
  EXPECT_TRUE(std::isinf(back[3]));
  EXPECT_EQ(RoundToDType(0.1f, DType::kF32), 0.1f);
  EXPECT_EQ(RoundToDType(0.1f, DType::kBF16), Bf16BitsToFloat(0x3DCD));
  EXPECT_EQ(LoadBits(half, DType::kF16, 0), 0x3C00u);
  EXPECT_EQ(LoadAsFloat(src, DType::kF32, 2), -3.5f);
}

}  // namespace
}  // namespace flashscope::verify
