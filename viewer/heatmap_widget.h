// The error heatmap of a case as an OpenGL texture: kind switch, max/mean, linear/log, colour
// bar, zoom (mouse wheel, around the cursor) and pan (drag), tooltip with position and value.
#pragma once

#include "reports/report.h"
#include "viewer/viewer_state.h"

namespace flashscope::viewer {

void DrawHeatmapPanel(ViewerState& s, const reports::CaseResult& c);

}  // namespace flashscope::viewer
