// Reading back the framebuffer and writing it as a PNG (stb_image_write from Debian's libstb).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace flashscope::viewer {

// RGB bytes of the current GL read buffer, top row first. Empty plus `error` on a GL error.
std::vector<uint8_t> ReadFramebufferRgb(int width, int height, std::string* error);

// Writes 8-bit RGB rows (top first) as a PNG; returns "" or the error naming the path.
std::string WritePng(const std::string& path, int width, int height,
                     const std::vector<uint8_t>& rgb);

}  // namespace flashscope::viewer
