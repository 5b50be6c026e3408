#include "viewer/gl_texture.h"

#include <GL/gl.h>

namespace flashscope::viewer {

TextureCache::~TextureCache() { Clear(); }

uint32_t TextureCache::Get(const std::string& key, int width, int height,
                           const std::vector<uint32_t>& rgba, std::string* error) {
  auto it = textures_.find(key);
  if (it != textures_.end()) return it->second;
  if (width <= 0 || height <= 0 || rgba.size() != size_t(width) * size_t(height)) {
    *error = "heatmap image has no pixels";
    return 0;
  }
  while (glGetError() != GL_NO_ERROR) {
  }
  GLuint tex = 0;
  glGenTextures(1, &tex);
  glBindTexture(GL_TEXTURE_2D, tex);
  // Nearest filtering: each cell is a measured value; blending neighbours would invent values.
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE,
               rgba.data());
  GLenum err = glGetError();
  if (err != GL_NO_ERROR || tex == 0) {
    *error = "OpenGL refused a " + std::to_string(width) + "x" + std::to_string(height) +
             " texture (glGetError " + std::to_string(err) +
             "); the heatmap is too large for this GL driver";
    if (tex) glDeleteTextures(1, &tex);
    return 0;
  }
  textures_[key] = tex;
  return tex;
}

void TextureCache::Clear() {
  for (auto& [k, t] : textures_) {
    GLuint id = t;
    glDeleteTextures(1, &id);
  }
  textures_.clear();
}

}  // namespace flashscope::viewer
