// The kernels a flashscope-worker offers: the built-in plugin (our ladder and peers, linked in;
// absent from a build without CUDA) and the plugin files it is given, each announced on the
// progress pipe before and after it loads so that a crash inside a plugin's loading is pinned on
// that file (protocol/worker_protocol.h).
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "plugins/plugin_set.h"

namespace flashscope::runner {

absl::Status LoadKernels(const std::vector<std::string>& plugin_paths, int progress_fd,
                         plugins::PluginSet* set);

// A plugin file that was refused (not a plugin, a wrong ABI, bad fields, clashing ids, a Python
// module that cannot be imported), and why.
struct RefusedPlugin {
  std::string path;
  std::string reason;
};

// LoadKernels for `flashscope list`: a refused file is set aside, with its reason, and the others
// still load, so that the listing shows what it can and says what it could not.
std::vector<RefusedPlugin> LoadKernelsListing(const std::vector<std::string>& plugin_paths,
                                              int progress_fd, plugins::PluginSet* set);

// The built-in plugin and the two sides of a `flashscope ab` comparison (plugins::Side::kBase and
// kNew, whose kernels may share ids), each side announced like a plugin file.
absl::Status LoadAbKernels(const std::string& base, const std::string& next, int progress_fd,
                           plugins::PluginSet* set);

// The built-in kernels alone, loaded once per process (tools that run our own kernels by id).
const plugins::PluginSet& BuiltinKernels();

}  // namespace flashscope::runner
