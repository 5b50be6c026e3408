// OpenGL textures for heatmaps, cached by a key so that a texture is uploaded once per
// (report version, case, heatmap, value, scale) and not once per frame.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace flashscope::viewer {

class TextureCache {
 public:
  TextureCache() = default;
  TextureCache(const TextureCache&) = delete;
  TextureCache& operator=(const TextureCache&) = delete;
  ~TextureCache();

  // The texture for `key`, uploading `rgba` (width × height, R,G,B,A bytes) when the key is new.
  // Returns 0 and sets `error` when OpenGL refuses the upload.
  uint32_t Get(const std::string& key, int width, int height, const std::vector<uint32_t>& rgba,
               std::string* error);
  bool Has(const std::string& key) const { return textures_.count(key) != 0; }
  // Frees every texture (on reload); needs the GL context to be current.
  void Clear();
  size_t size() const { return textures_.size(); }

 private:
  std::map<std::string, uint32_t> textures_;
};

}  // namespace flashscope::viewer
