// Opaque signature colours of the viewer. Views draw their flat areas (row backgrounds, bars,
// ceilings, the error panel) with these exact colours so that the headless screenshot tests can
// find each view's elements by counting pixels of a known RGB value.
#pragma once

#include <cstdint>

namespace flashscope::viewer {

struct Rgb {
  uint8_t r, g, b;
};

// ImGui packs colours as 0xAABBGGRR; all of these are opaque.
constexpr uint32_t PackRgb(Rgb c) {
  return 0xFF000000u | (uint32_t(c.b) << 16) | (uint32_t(c.g) << 8) | uint32_t(c.r);
}

namespace palette {
inline constexpr Rgb kRowPassed{24, 64, 36};
inline constexpr Rgb kRowFailed{110, 28, 28};
inline constexpr Rgb kRowSkipped{58, 58, 66};
inline constexpr Rgb kRowError{120, 70, 10};
inline constexpr Rgb kRowTimeout{96, 40, 100};
inline constexpr Rgb kRowSelected{40, 80, 150};
inline constexpr Rgb kBar{70, 130, 220};        // ladder bars, metric bars
inline constexpr Rgb kHistogram{230, 160, 40};  // timing-sample histogram
inline constexpr Rgb kPeerLine{240, 80, 200};   // ladder peers
inline constexpr Rgb kCeiling{250, 250, 120};   // roofline ceilings
inline constexpr Rgb kPlotBg{18, 20, 26};       // background of every chart
inline constexpr Rgb kErrorPanel{96, 16, 20};   // background of the error panel
inline constexpr Rgb kBetter{30, 200, 70};      // compare: fully saturated improvement
inline constexpr Rgb kWorse{230, 40, 40};       // compare: fully saturated regression
inline constexpr Rgb kNeutral{60, 60, 60};      // compare: no change
}  // namespace palette

}  // namespace flashscope::viewer
