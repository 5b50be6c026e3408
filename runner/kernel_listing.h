// What `flashscope list` shows of the kernels (printed by flashscope-worker, which alone loads
// plugins): where they come from, each kernel's facts, and what it supports, found by asking its
// supports() about probe problems.
#pragma once

#include <string>

#include "plugins/plugin_set.h"

namespace flashscope::runner {

// `all`: test-only kernels too. Before each kernel's supports() is asked, a phase line naming the
// kernel and its plugin goes to `progress_fd`, so that a crash there is pinned on it.
std::string ListKernels(const plugins::PluginSet& set, bool all, int progress_fd);

}  // namespace flashscope::runner
