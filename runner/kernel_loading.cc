#include "runner/kernel_loading.h"

#include "protocol/worker_process.h"
#include "protocol/worker_protocol.h"
#include "suites/plugin_paths.h"

#if defined(FLASHSCOPE_HAVE_CUDA)
#include "kernels/abi_adapter.h"
#endif

namespace flashscope::runner {

namespace {

// The built-in plugin (with CUDA), and the Python bridge for plugin paths ending in ".py".
absl::Status AddBuiltin(plugins::PluginSet* set) {
  set->SetPythonBridge(suites::PythonBridgePath(suites::ThisProgram()));
#if defined(FLASHSCOPE_HAVE_CUDA)
  return set->AddLinked(&flashscope_builtin_plugin_v1);
#else
  return absl::OkStatus();
#endif
}

// Announced before and after, so that a crash while loading is pinned on this file.
absl::Status LoadAnnounced(const std::string& path, plugins::Side side, int progress_fd,
                           plugins::PluginSet* set) {
  using suites::protocol::Event;
  suites::protocol::Tell(progress_fd, {Event::kLoad, "", "", path});
  if (absl::Status s = set->Load(path, side); !s.ok()) return s;
  suites::protocol::Tell(progress_fd, {Event::kLoaded, "", "", path});
  return absl::OkStatus();
}

}  // namespace

absl::Status LoadKernels(const std::vector<std::string>& plugin_paths, int progress_fd,
                         plugins::PluginSet* set) {
  if (absl::Status s = AddBuiltin(set); !s.ok()) return s;
  for (const std::string& path : plugin_paths) {
    if (absl::Status s = LoadAnnounced(path, plugins::Side::kShared, progress_fd, set); !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

std::vector<RefusedPlugin> LoadKernelsListing(const std::vector<std::string>& plugin_paths,
                                              int progress_fd, plugins::PluginSet* set) {
  std::vector<RefusedPlugin> refused;
  if (absl::Status s = AddBuiltin(set); !s.ok()) refused.push_back({"(built-in)", s.ToString()});
  for (const std::string& path : plugin_paths) {
    if (absl::Status s = LoadAnnounced(path, plugins::Side::kShared, progress_fd, set); !s.ok()) {
      // The progress pipe still says it finished loading: a refusal, not a crash.
      suites::protocol::Tell(progress_fd, {suites::protocol::Event::kLoaded, "", "", path});
      refused.push_back({path, std::string(s.message())});
    }
  }
  return refused;
}

absl::Status LoadAbKernels(const std::string& base, const std::string& next, int progress_fd,
                           plugins::PluginSet* set) {
  if (absl::Status s = AddBuiltin(set); !s.ok()) return s;
  if (absl::Status s = LoadAnnounced(base, plugins::Side::kBase, progress_fd, set); !s.ok()) {
    return s;
  }
  return LoadAnnounced(next, plugins::Side::kNew, progress_fd, set);
}

const plugins::PluginSet& BuiltinKernels() {
  static const plugins::PluginSet* set = [] {
    auto* s = new plugins::PluginSet();
    // The built-in table passes validation by construction (runner_builtin_plugin_test).
    (void)LoadKernels({}, -1, s);
    return s;
  }();
  return *set;
}

}  // namespace flashscope::runner
