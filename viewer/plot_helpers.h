// Small drawing helpers shared by the chart views (ImDrawList; ImGui 1.86 has no plotting).
#pragma once

#include <imgui.h>

#include <string>

#include "viewer/palette.h"

namespace flashscope::viewer {

inline ImU32 ToU32(Rgb c, uint8_t alpha = 255) {
  return (uint32_t(alpha) << 24) | (uint32_t(c.b) << 16) | (uint32_t(c.g) << 8) | uint32_t(c.r);
}

// A rectangular plot area reserved in the layout (an invisible button so it takes hover and
// drag), with the background drawn.
struct PlotArea {
  ImVec2 min, max;
  bool hovered = false;
  float Width() const { return max.x - min.x; }
  float Height() const { return max.y - min.y; }
};
PlotArea BeginPlotArea(const char* id, ImVec2 size);

// Horizontal bar of `fraction` (0..1) in `colour` inside a track, with text on top.
void FractionBar(float fraction, Rgb colour, const std::string& text, float width = -1);

// Text centred horizontally on x.
void TextCentered(ImDrawList* dl, float x, float y, ImU32 col, const std::string& text);

}  // namespace flashscope::viewer
