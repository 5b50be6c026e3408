// What `flashscope list` shows of the kernels (printed by flashscope-worker, which alone loads
// plugins): where they come from, each kernel's facts, and what it supports, found by asking its
// supports() about probe problems in every element type the ABI has.
#pragma once

#include <string>
#include <vector>

#include "plugins/plugin_set.h"

namespace flashscope::runner {

struct ListOptions {
  bool all = false;            // test-only kernels too
  std::string kernels_filter;  // --kernels: a comma list of ids or globs; "" = every kernel
  bool plugin_only = false;    // only the kernels of plugin files, not flashscope's own
  // Before each kernel's supports() is asked, a phase line naming the kernel and its plugin goes
  // here, so that a crash there is pinned on it.
  int progress_fd = -1;
};

struct Listing {
  std::string text;
  // --kernels patterns that selected no kernel, each with the closest ids: "'x' (closest: a, b)".
  std::vector<std::string> unmatched;
};

Listing ListKernels(const plugins::PluginSet& set, const ListOptions& options);

}  // namespace flashscope::runner
