// Checks of what a plugin's entry function returned, before flashscope uses any of it. Every
// failure is one message that names the plugin (`where`), the entry and field, and the fix.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "flashscope/kernel_abi.h"

namespace flashscope::plugins {

// The plugin table and its kernels, each read up to the struct_size the plugin declares (fields
// a plugin built against an older header lacks read as zero).
struct ValidatedTable {
  fs_plugin plugin{};
  std::vector<fs_kernel> kernels;
};

// `table` as returned by the entry function (NULL included). `where` names the plugin in every
// message, e.g. "plugin /x/libfoo.so".
absl::StatusOr<ValidatedTable> ValidateTable(const fs_plugin* table, const std::string& where);

// Kernel ids: non-empty, at most 128 of letters, digits and "._-" (they are file names of dumps,
// keys of reports, words of globs). Empty when `id` is fine, else why not.
std::string BadIdReason(const char* id);

}  // namespace flashscope::plugins
