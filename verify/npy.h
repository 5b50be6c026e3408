// Minimal .npy (format version 1.0) writer and reader for float32 C-order arrays: full-resolution
// outputs, references and inputs of a failing case, loadable with numpy.load().
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace flashscope::verify {

// Writes `data` (product(shape) floats, C order) to `path` as '<f4'. A shape of {} is a scalar.
absl::Status WriteNpy(const std::string& path, const float* data,
                      const std::vector<int64_t>& shape);

struct NpyArray {
  std::vector<int64_t> shape;
  std::vector<float> data;
};

// Reads what WriteNpy writes (and numpy's own float32 C-order v1.0 files); anything else is an
// InvalidArgument error naming the path and what was found.
absl::StatusOr<NpyArray> ReadNpy(const std::string& path);

}  // namespace flashscope::verify
