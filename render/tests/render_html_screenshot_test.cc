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

#include "render/render_html.h"
#include "reports/report_json.h"
#include "reports/tests/sample_reports.h"

namespace flashscope::reports {
namespace {

std::string FindChromium() {
  if (const char* env = std::getenv("FLASHSCOPE_CHROMIUM"); env && *env) return env;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    for (const char* name : {"chromium", "chromium-browser", "google-chrome", "chrome"}) {
      const std::string candidate = dir + "/" + name;
      if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
  }
  return "";
}

struct Image {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;  // width * height * 3
};

uint32_t Be32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (p[1] << 16) | (p[2] << 8) | p[3];
}

// A minimal PNG decoder for what Chromium writes: 8-bit RGB or RGBA, not interlaced.
bool DecodePng(const std::string& bytes, Image* out, std::string* error) {
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  if (bytes.size() < 8 || bytes.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) {
    *error = "not a PNG";
    return false;
  }
  size_t at = 8;
  int depth = 0, color = 0, interlace = 0;
  std::string idat;
  while (at + 12 <= bytes.size()) {
    const uint32_t len = Be32(p + at);
    const std::string type = bytes.substr(at + 4, 4);
    const uint8_t* data = p + at + 8;
    if (at + 12 + len > bytes.size()) break;
    if (type == "IHDR") {
      out->width = static_cast<int>(Be32(data));
      out->height = static_cast<int>(Be32(data + 4));
      depth = data[8];
      color = data[9];
      interlace = data[12];
    } else if (type == "IDAT") {
      idat.append(reinterpret_cast<const char*>(data), len);
    }
    at += 12 + len;
  }
  if (depth != 8 || (color != 2 && color != 6) || interlace != 0) {
    *error = "unsupported PNG layout (want 8-bit RGB/RGBA, not interlaced)";
    return false;
  }
  const int bpp = color == 6 ? 4 : 3;
  const size_t stride = static_cast<size_t>(out->width) * bpp;
  std::vector<uint8_t> raw((stride + 1) * out->height);
  uLongf raw_len = raw.size();
  if (uncompress(raw.data(), &raw_len, reinterpret_cast<const Bytef*>(idat.data()), idat.size()) !=
          Z_OK ||
      raw_len != raw.size()) {
    *error = "PNG data does not inflate to the image size";
    return false;
  }
  std::vector<uint8_t> img(stride * out->height), prev(stride, 0);
  for (int y = 0; y < out->height; ++y) {
    const uint8_t filter = raw[y * (stride + 1)];
    const uint8_t* src = &raw[y * (stride + 1) + 1];
    uint8_t* row = &img[y * stride];
    for (size_t x = 0; x < stride; ++x) {
      const int a = x >= static_cast<size_t>(bpp) ? row[x - bpp] : 0, b = prev[x],
                c = x >= static_cast<size_t>(bpp) ? prev[x - bpp] : 0;
      int pred = 0;
      switch (filter) {
        case 1:
          pred = a;
          break;
        case 2:
          pred = b;
          break;
        case 3:
          pred = (a + b) / 2;
          break;
        case 4: {
          const int pa = std::abs(b - c), pb = std::abs(a - c), pc = std::abs(a + b - 2 * c);
          pred = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
          break;
        }
        default:
          break;
      }
      row[x] = static_cast<uint8_t>(src[x] + pred);
    }
    std::copy(row, row + stride, prev.begin());
  }
  out->rgb.resize(static_cast<size_t>(out->width) * out->height * 3);
  for (size_t i = 0; i < static_cast<size_t>(out->width) * out->height; ++i) {
    for (int k = 0; k < 3; ++k) out->rgb[i * 3 + k] = img[i * bpp + k];
  }
  return true;
}

bool Near(const uint8_t* px, int r, int g, int b) {
  return std::abs(px[0] - r) < 12 && std::abs(px[1] - g) < 12 && std::abs(px[2] - b) < 12;
}

TEST(HtmlScreenshot, ChromiumRendersTheReport) {
  const std::string chromium = FindChromium();
  if (chromium.empty()) {
    GTEST_SKIP() << "chromium is not installed, so the HTML report was not checked in a browser; "
                    "install it with FLASHSCOPE_WITH_HTML_CHECK=1 scripts/install-deps.sh";
  }
  auto report = ReadReportFile(testing::TestdataPath("synthetic_example_report.json"));
  ASSERT_TRUE(report.ok()) << report.status();
  const std::string dir = testing::MakeTempDir();
  const std::string html = dir + "/report.html", png = dir + "/shot.png";
  std::ofstream(html) << RenderReportHtml(*report);
  const std::string cmd = "timeout 120 '" + chromium + "' --headless --no-sandbox --disable-gpu " +
                          "--hide-scrollbars --no-first-run --user-data-dir=" + dir +
                          "/profile --window-size=1200,1600 --screenshot=" + png + " file://" +
                          html + " > " + dir + "/chromium.log 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream log(dir + "/chromium.log");
  std::string log_text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  ASSERT_EQ(rc, 0) << cmd << "\n" << log_text;
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
