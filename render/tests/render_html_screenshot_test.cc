// The HTML report seen by a real browser: headless Chromium takes a screenshot of the rendered
// page and the pixels must show the page (not blank): the red warning banner, the blue bars and
// dots of the charts, the viridis cells of a heatmap. Labelled `html`; skipped, with the command
// that installs it, when Chromium is absent (FLASHSCOPE_WITH_HTML_CHECK=1 scripts/install-deps.sh).
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/tests/headless_chromium.h"
#include "render/render_html.h"
#include "reports/report_json.h"
#include "reports/tests/sample_reports.h"

namespace flashscope::reports {
namespace {

using flashscope::testing::DecodePng;
using flashscope::testing::FindChromium;
using flashscope::testing::Image;
using flashscope::testing::Near;

TEST(HtmlScreenshot, ChromiumRendersTheReport) {
  const std::string chromium = FindChromium();
  if (chromium.empty()) {
    GTEST_SKIP() << flashscope::testing::kNoChromium;
  }
  auto report = ReadReportFile(testing::TestdataPath("synthetic_example_report.json"));
  ASSERT_TRUE(report.ok()) << report.status();
  const std::string dir = testing::MakeTempDir();
  const std::string html = dir + "/report.html", png = dir + "/shot.png";
  std::ofstream(html) << RenderReportHtml(*report);
  const std::string failure =
      flashscope::testing::ChromiumScreenshot(chromium, html, png, dir, 1200, 1600);
  ASSERT_EQ(failure, "");
  std::ifstream in(png, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Image img;
  std::string error;
  ASSERT_TRUE(DecodePng(bytes, &img, &error)) << png << ": " << error;
  EXPECT_EQ(img.width, 1200);
  EXPECT_EQ(img.height, 1600);
  size_t non_white = 0, banner_red = 0, bar_blue = 0, heat = 0;
  std::set<uint32_t> colors;
  for (size_t i = 0; i < img.rgb.size() / 3; ++i) {
    const uint8_t* px = &img.rgb[i * 3];
    if (px[0] < 245 || px[1] < 245 || px[2] < 245) ++non_white;
    banner_red += Near(px, 0xb0, 0x00, 0x20);
    bar_blue += Near(px, 0x3b, 0x6f, 0xb6);
    heat += Near(px, 68, 1, 84) || Near(px, 253, 231, 37) || Near(px, 33, 145, 140);
    colors.insert((px[0] << 16) | (px[1] << 8) | px[2]);
  }
  const double total = static_cast<double>(img.width) * img.height;
  EXPECT_GT(non_white / total, 0.02) << "the screenshot is (nearly) blank: " << png;
  EXPECT_GT(banner_red, 1000u) << "no red SYNTHETIC banner in " << png;
  EXPECT_GT(bar_blue, 50u) << "no ladder bars / roofline points in " << png;
  EXPECT_GT(heat, 20u) << "no heatmap cells in " << png;
  EXPECT_GT(colors.size(), 20u) << "too few colours for text, charts and heatmap in " << png;
}

}  // namespace
}  // namespace flashscope::reports
