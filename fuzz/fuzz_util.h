// Helpers shared by the fuzz targets: the input as a file (for readers that take a path) and a
// loud failure for a broken invariant (libFuzzer reports the abort with the input that caused it).
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/status/status.h"

namespace flashscope::fuzz {

// One file per fuzzing process, rewritten for every input.
inline std::string WriteInputFile(const uint8_t* data, size_t size, const char* suffix) {
  const char* tmp = std::getenv("TMPDIR");
  std::string path = std::string(tmp && *tmp ? tmp : "/tmp") + "/flashscope_fuzz_" +
                     std::to_string(getpid()) + suffix;
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    std::perror(path.c_str());
    std::abort();
  }
  if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  return path;
}

// Every error a reader returns must say something: an empty message is a defect.
inline void CheckErrorIsExplained(const absl::Status& s, const char* what) {
  if (!s.ok() && s.message().empty()) {
    std::fprintf(stderr, "%s returned an error with an empty message\n", what);
    std::abort();
  }
}

[[noreturn]] inline void Broken(const char* invariant, const absl::Status& s) {
  std::fprintf(stderr, "invariant broken: %s: %s\n", invariant, std::string(s.message()).c_str());
  std::abort();
}

}  // namespace flashscope::fuzz
