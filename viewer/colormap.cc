#include "viewer/colormap.h"

#include <algorithm>
#include <cmath>

namespace flashscope::viewer {
namespace {

constexpr double kPi = 3.14159265358979323846;

struct Linear {
  double r, g, b;
};

// OKLab -> linear sRGB (Björn Ottosson's published matrices for the OKLab definition).
Linear OklabToLinear(double L, double a, double b) {
  double l_ = L + 0.3963377774 * a + 0.2158037573 * b;
  double m_ = L - 0.1055613458 * a - 0.0638541728 * b;
  double s_ = L - 0.0894841775 * a - 1.2914855480 * b;
  double l = l_ * l_ * l_, m = m_ * m_ * m_, s = s_ * s_ * s_;
  return {+4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s,
          -1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s,
          -0.0041960863 * l - 0.7034186147 * m + 1.7076147010 * s};
}

double LinearToSrgb(double x) {
  x = std::clamp(x, 0.0, 1.0);
  return x <= 0.0031308 ? 12.92 * x : 1.055 * std::pow(x, 1.0 / 2.4) - 0.055;
}

double SrgbToLinear(double x) {
  return x <= 0.04045 ? x / 12.92 : std::pow((x + 0.055) / 1.055, 2.4);
}

bool InGamut(const Linear& c) {
  constexpr double e = 1e-6;
  return c.r >= -e && c.r <= 1 + e && c.g >= -e && c.g <= 1 + e && c.b >= -e && c.b <= 1 + e;
}

// The path: lightness 0.27 -> 0.93 linearly; hue 320° (violet) -> 105° (yellow); chroma a
// parabola that dips in the middle (teal is a low-chroma colour at that lightness) and rises
// towards the saturated yellow end.
void PathAt(double t, double* L, double* C, double* h_deg) {
  *L = 0.27 + 0.66 * t;
  *C = 0.14 - 0.25 * t + 0.30 * t * t;
  *h_deg = 320.0 - 215.0 * t;
}

}  // namespace

double ColormapLightness(double t) {
  double L, C, h;
  PathAt(std::clamp(t, 0.0, 1.0), &L, &C, &h);
  return L;
}

Rgb Viridisish(double t) {
  if (std::isnan(t)) return palette::kSaturated;
  t = std::clamp(t, 0.0, 1.0);
  double L, C, h;
  PathAt(t, &L, &C, &h);
  double hr = h * kPi / 180.0;
  // Reduce chroma by bisection until the colour fits in sRGB.
  Linear lin = OklabToLinear(L, C * std::cos(hr), C * std::sin(hr));
  if (!InGamut(lin)) {
    double lo = 0, hi = C;
    for (int i = 0; i < 30; ++i) {
      double mid = 0.5 * (lo + hi);
      Linear c = OklabToLinear(L, mid * std::cos(hr), mid * std::sin(hr));
      (InGamut(c) ? lo : hi) = mid;
    }
    lin = OklabToLinear(L, lo * std::cos(hr), lo * std::sin(hr));
  }
  auto to8 = [](double x) { return uint8_t(std::lround(LinearToSrgb(x) * 255.0)); };
  return {to8(lin.r), to8(lin.g), to8(lin.b)};
}

const std::array<Rgb, 256>& ColormapTable() {
  static const std::array<Rgb, 256> table = [] {
    std::array<Rgb, 256> t{};
    for (int i = 0; i < 256; ++i) t[i] = Viridisish(i / 255.0);
    return t;
  }();
  return table;
}

double OklabLightnessOfSrgb(Rgb c) {
  double r = SrgbToLinear(c.r / 255.0), g = SrgbToLinear(c.g / 255.0),
         b = SrgbToLinear(c.b / 255.0);
  double l = 0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b;
  double m = 0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b;
  double s = 0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b;
  return 0.2104542553 * std::cbrt(l) + 0.7936177850 * std::cbrt(m) - 0.0040720468 * std::cbrt(s);
}

}  // namespace flashscope::viewer
