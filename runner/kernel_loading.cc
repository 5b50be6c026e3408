#include "runner/kernel_loading.h"

#include "suites/plugin_paths.h"
#include "suites/worker_process.h"
#include "suites/worker_protocol.h"

#if defined(FLASHSCOPE_HAVE_CUDA)
#include "kernels/abi_adapter.h"
#endif

namespace flashscope::runner {

absl::Status LoadKernels(const std::vector<std::string>& plugin_paths, int progress_fd,
                         plugins::PluginSet* set) {
  using suites::protocol::Event;
#if defined(FLASHSCOPE_HAVE_CUDA)
  if (absl::Status s = set->AddLinked(&flashscope_builtin_plugin_v1); !s.ok()) return s;
#endif
  set->SetPythonBridge(suites::PythonBridgePath(suites::ThisProgram()));
  for (const std::string& path : plugin_paths) {
    suites::protocol::Tell(progress_fd, {Event::kLoad, "", "", path});
    if (absl::Status s = set->Load(path); !s.ok()) return s;
    suites::protocol::Tell(progress_fd, {Event::kLoaded, "", "", path});
  }
  return absl::OkStatus();
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
