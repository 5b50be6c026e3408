// SHA-256 (FIPS 180-4), for the content hash that identifies a plugin file in every case result:
// two builds of a kernel with the same version string still differ here. Written from the standard
// (no crypto library is a dependency of flashscope); plugins/tests/sha256_test.cc checks it against
// the standard's examples and NIST's test vectors.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace flashscope::plugins {

class Sha256 {
 public:
  Sha256();
  void Update(const void* data, size_t size);
  void Update(std::string_view data) { Update(data.data(), data.size()); }
  // The digest of everything given so far; the object must not be updated afterwards.
  std::array<uint8_t, 32> Finish();

 private:
  void Compress(const uint8_t block[64]);

  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> buffer_{};
  size_t buffered_ = 0;
  uint64_t total_bytes_ = 0;
};

// Lower-case hexadecimal, 64 characters.
std::string Sha256Hex(std::string_view data);
std::string ToHex(const std::array<uint8_t, 32>& digest);
// The file's bytes, read in chunks; an error names the file.
absl::StatusOr<std::string> Sha256OfFile(const std::string& path);

}  // namespace flashscope::plugins
