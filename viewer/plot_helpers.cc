#include "viewer/plot_helpers.h"

#include <algorithm>

namespace flashscope::viewer {

PlotArea BeginPlotArea(const char* id, ImVec2 size) {
  PlotArea a;
  if (size.x <= 0) size.x = std::max(50.f, ImGui::GetContentRegionAvail().x);
  if (size.y <= 0) size.y = std::max(50.f, ImGui::GetContentRegionAvail().y);
  a.min = ImGui::GetCursorScreenPos();
  a.max = ImVec2(a.min.x + size.x, a.min.y + size.y);
  ImGui::InvisibleButton(id, size);
  a.hovered = ImGui::IsItemHovered();
  ImGui::GetWindowDrawList()->AddRectFilled(a.min, a.max, ToU32(palette::kPlotBg));
  return a;
}

void FractionBar(float fraction, Rgb colour, const std::string& text, float width) {
  fraction = std::clamp(fraction, 0.f, 1.f);
  float h = ImGui::GetTextLineHeight() + 4;
  if (width <= 0) width = std::max(50.f, ImGui::GetContentRegionAvail().x);
  ImVec2 p = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(p, ImVec2(p.x + width, p.y + h), ToU32(palette::kPlotBg));
  dl->AddRectFilled(p, ImVec2(p.x + width * fraction, p.y + h), ToU32(colour));
  dl->AddText(ImVec2(p.x + 4, p.y + 2), IM_COL32(255, 255, 255, 255), text.c_str());
  ImGui::Dummy(ImVec2(width, h));
}

void TextCentered(ImDrawList* dl, float x, float y, ImU32 col, const std::string& text) {
  ImVec2 sz = ImGui::CalcTextSize(text.c_str());
  dl->AddText(ImVec2(x - sz.x * 0.5f, y), col, text.c_str());
}

}  // namespace flashscope::viewer
