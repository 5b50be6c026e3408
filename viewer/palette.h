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
inline constexpr Rgb kOkText{90, 220, 120};     // "no errors"
// Compare: the tone of a pair's verdict (analysis/comparison_summary.h), by significance.
inline constexpr Rgb kBetter{30, 200, 70};   // faster, confirmed
inline constexpr Rgb kWorse{230, 40, 40};    // a correctness regression or a gate failure
inline constexpr Rgb kSlower{200, 100, 50};  // slower, confirmed, within the gate's allowance
inline constexpr Rgb kUnsure{190, 160, 40};  // a change the test did not confirm (ambiguous)
inline constexpr Rgb kNeutral{60, 60, 60};   // same, or not timed
// History view: the series' medians and its change points.
inline constexpr Rgb kSeriesLine{80, 170, 255};
inline constexpr Rgb kChangePoint{255, 60, 90};
// Heatmap overlays (analysis/heatmap_overlay.h), drawn opaque over the error.
inline constexpr Rgb kTileLine{235, 235, 235};   // tile boundaries
inline constexpr Rgb kDiagonal{0, 230, 255};     // where the causal diagonal enters a key tile
inline constexpr Rgb kPartialTile{255, 60, 60};  // outline of the last partial tile
// A heatmap cell holding a never-written (still poisoned), NaN or Inf element: outside the scale.
inline constexpr Rgb kSaturated{255, 0, 255};
}  // namespace palette

}  // namespace flashscope::viewer
