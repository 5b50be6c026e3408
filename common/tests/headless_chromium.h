// Headless Chromium for the tests of HTML pages (the report, the history page): find the browser,
// take a screenshot of a page, and decode the PNG it writes to count pixels of a colour. The
// tests skip, with the install command, when Chromium is absent.
#pragma once

#include <unistd.h>
#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace flashscope::testing {

inline std::string FindChromium() {
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

inline uint32_t Be32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (p[1] << 16) | (p[2] << 8) | p[3];
}

// A minimal PNG decoder for what Chromium writes: 8-bit RGB or RGBA, not interlaced.
inline bool DecodePng(const std::string& bytes, Image* out, std::string* error) {
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

inline bool Near(const uint8_t* px, int r, int g, int b) {
  return std::abs(px[0] - r) < 12 && std::abs(px[1] - g) < 12 && std::abs(px[2] - b) < 12;
}

// Renders `html_path` in headless Chromium at width x height into `png_path`. Returns "" on
// success, else the command and Chromium's log.
inline std::string ChromiumScreenshot(const std::string& chromium, const std::string& html_path,
                                      const std::string& png_path, const std::string& work_dir,
                                      int width, int height) {
  const std::string cmd = "timeout 120 '" + chromium + "' --headless --no-sandbox --disable-gpu " +
                          "--hide-scrollbars --no-first-run --user-data-dir=" + work_dir +
                          "/profile --window-size=" + std::to_string(width) + "," +
                          std::to_string(height) + " --screenshot=" + png_path + " file://" +
                          html_path + " > " + work_dir + "/chromium.log 2>&1";
  if (std::system(cmd.c_str()) == 0) return "";
  std::ifstream log(work_dir + "/chromium.log");
  return cmd + "\n" + std::string(std::istreambuf_iterator<char>(log), {});
}

inline constexpr char kNoChromium[] =
    "chromium is not installed, so the HTML page was not checked in a browser; install it with "
    "FLASHSCOPE_WITH_HTML_CHECK=1 scripts/install-deps.sh";

}  // namespace flashscope::testing
