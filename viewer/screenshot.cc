#include "viewer/screenshot.h"

#include <GL/gl.h>
#include <stb_image_write.h>

#include <cerrno>
#include <cstring>

namespace flashscope::viewer {

std::vector<uint8_t> ReadFramebufferRgb(int width, int height, std::string* error) {
  std::vector<uint8_t> bottom_up(size_t(width) * size_t(height) * 3);
  while (glGetError() != GL_NO_ERROR) {
  }
  glFinish();
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, bottom_up.data());
  if (GLenum e = glGetError(); e != GL_NO_ERROR) {
    *error = "glReadPixels failed with GL error " + std::to_string(e);
    return {};
  }
  // OpenGL's rows start at the bottom; PNG's at the top.
  std::vector<uint8_t> top_down(bottom_up.size());
  size_t stride = size_t(width) * 3;
  for (int y = 0; y < height; ++y) {
    std::memcpy(&top_down[size_t(y) * stride], &bottom_up[size_t(height - 1 - y) * stride], stride);
  }
  return top_down;
}

std::string WritePng(const std::string& path, int width, int height,
                     const std::vector<uint8_t>& rgb) {
  if (rgb.size() != size_t(width) * size_t(height) * 3) return "screenshot buffer has no pixels";
  errno = 0;
  if (!stbi_write_png(path.c_str(), width, height, 3, rgb.data(), width * 3)) {
    return "cannot write PNG " + path + (errno ? std::string(": ") + std::strerror(errno) : "") +
           " (does the directory exist and is it writable?)";
  }
  return "";
}

}  // namespace flashscope::viewer
