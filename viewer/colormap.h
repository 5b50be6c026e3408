// A perceptual colour map in the spirit of viridis, computed rather than tabulated: the colour
// walks a path in OKLab whose lightness rises linearly from dark violet to light yellow, with
// hue turning through blue and teal to green, so equal steps of value read as equal steps of
// brightness (and the map survives greyscale printing and the common colour-vision deficiencies,
// which mostly affect hue). Colours outside sRGB are brought in by reducing chroma, keeping
// lightness and hue.
#pragma once

#include <array>
#include <cstdint>

#include "viewer/palette.h"

namespace flashscope::viewer {

// t in [0, 1] (clamped); NaN gives palette::kSaturated (magenta) so that NaN cells stand out.
Rgb Viridisish(double t);

// OKLab lightness of the map's colour at t (for tests and the colour bar's ticks).
double ColormapLightness(double t);

// 256 entries, built once.
const std::array<Rgb, 256>& ColormapTable();

// sRGB (0..255) -> OKLab L (0..1); used by tests to check perceptual monotonicity.
double OklabLightnessOfSrgb(Rgb c);

}  // namespace flashscope::viewer
