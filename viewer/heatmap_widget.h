// The error heatmap of a case as an OpenGL texture: kind switch, max/mean, linear/log, the
// kernel's structure drawn over it (analysis/heatmap_overlay.h: tile boundaries, the last partial
// tile, where a causal diagonal enters each key tile), colour bar, zoom (mouse wheel, around the
// cursor) and pan (drag), tooltip with position and value. The case view draws one; the compare
// view draws two side by side on one colour scale.
#pragma once

#include <string>

#include "reports/report.h"
#include "viewer/chart_model.h"
#include "viewer/gl_texture.h"

namespace flashscope::viewer {

// One heatmap panel's settings and its cached image.
struct HeatmapView {
  int index = 0;  // which of the case's heatmaps
  bool mean = false;
  bool log = true;
  bool overlay = true;
  float zoom = 1.f;
  float pan[2] = {0.f, 0.f};  // in cells, top-left corner shown
  std::string image_key;      // the image below was built for this key
  HeatmapImage image;

  void ResetZoom() {
    zoom = 1;
    pan[0] = pan[1] = 0;
  }
};

// `id` names the panel for ImGui and the texture cache; it must change when the report is
// reloaded (put its generation in it). With `controls` false the panel draws no switches (a
// panel that follows another's). `range` fixes the colour scale (two panels that compare).
void DrawHeatmapPanel(HeatmapView& view, TextureCache& textures, const std::string& id,
                      const reports::CaseResult& c, bool controls = true,
                      const ValueRange* range = nullptr);

}  // namespace flashscope::viewer
