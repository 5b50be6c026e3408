// The viewer and the HTML report draw the same points from one report: both take their ladders
// and roofline from the one chart model (analysis/chart_model.h). The HTML page tags every mark it
// draws with its case index (data-case); the set of marks per chart must be the model's, which the
// viewer's views draw as they are (view_ladder.cc, view_roofline.cc).
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>
#include <vector>

#include "render/render_html.h"
#include "viewer/chart_model.h"
#include "viewer/tests/synthetic_report.h"

namespace flashscope::viewer {
namespace {

// The case indices of the marks inside each <svg class="KIND"> element, in page order.
std::vector<std::set<int>> MarksOf(const std::string& html, const std::string& kind) {
  std::vector<std::set<int>> charts;
  const std::string open = "<svg class=\"" + kind + "\"";
  for (size_t at = html.find(open); at != std::string::npos; at = html.find(open, at + 1)) {
    const size_t end = html.find("</svg>", at);
    const std::string svg = html.substr(at, end - at);
    std::set<int> marks;
    static const std::regex mark("data-case=\"([0-9]+)\"");
    for (std::sregex_iterator m(svg.begin(), svg.end(), mark), e; m != e; ++m) {
      marks.insert(std::stoi((*m)[1]));
    }
    charts.push_back(marks);
  }
  return charts;
}

// What the viewer's ladder view draws: every rung (a bar, or a slot with its status) and the timed
// peers' lines.
std::set<int> ViewerLadderMarks(const Ladder& l) {
  std::set<int> marks;
  for (const LadderBar& b : l.rungs) marks.insert(b.case_index);
  for (const LadderBar& p : l.peers) {
    if (p.timed) marks.insert(p.case_index);
  }
  return marks;
}

TEST(ChartParity, HtmlAndViewerDrawTheSamePointsFromOneReport) {
  reports::Report r = testing::MakeSyntheticReport(120, 11);
  // A hostile point too: it must be left out of both, not drawn by one of them.
  ASSERT_TRUE(r.cases[3].throughput.has_value());
  r.cases[3].throughput->tflops = 1.79e308;
  reports::HtmlLimits limits;
  limits.ladder_problems = 1000;  // every ladder
  const std::string html = reports::RenderReportHtml(r, limits);

  const Roofline rl = BuildRoofline(r);
  std::set<int> viewer_points;
  for (const RooflinePoint& p : rl.points) viewer_points.insert(p.case_index);
  const auto roofline = MarksOf(html, "roofline");
  ASSERT_EQ(roofline.size(), 1u);
  EXPECT_FALSE(viewer_points.empty());
  EXPECT_EQ(roofline[0], viewer_points);
  EXPECT_EQ(viewer_points.count(3), 0u);
  EXPECT_NE(html.find(rl.note.Text()), std::string::npos) << "the note is on the page";

  const std::vector<std::string> problems = LadderProblems(r);
  const auto ladders = MarksOf(html, "ladder");
  ASSERT_EQ(ladders.size(), problems.size());
  std::set<std::set<int>> html_ladders(ladders.begin(), ladders.end()), viewer_ladders;
  for (const std::string& key : problems) {
    viewer_ladders.insert(ViewerLadderMarks(BuildLadder(r, key)));
  }
  EXPECT_EQ(html_ladders, viewer_ladders);
}

}  // namespace
}  // namespace flashscope::viewer
