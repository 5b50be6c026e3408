// The plugin host: loads plugins (shared libraries exporting `flashscope_plugin_v1`, or a table
// linked into the program such as our own kernels), checks and validates each, and holds every
// kernel they offer under an id unique across all of them, with one exception: the two sides of
// a `flashscope ab` comparison (Side::kBase and Side::kNew), two builds of the same kernels, may
// each offer the same ids once. Lives in flashscope-worker only: the supervisor never loads
// plugin code, so a plugin that crashes costs a worker, never a run.
//
// Plugins are never unloaded: their kernels may have live CUDA state (modules, scratch memory)
// until the process exits.
#pragma once

#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "flashscope/kernel_abi.h"
#include "plugins/kernel.h"

namespace flashscope::plugins {

class PluginSet {
 public:
  PluginSet() = default;
  PluginSet(const PluginSet&) = delete;
  PluginSet& operator=(const PluginSet&) = delete;

  // Loads the shared library at `path` (or, for a path ending in ".py", the Python module through
  // the Python bridge: SetPythonBridge) (dlopen with RTLD_NOW | RTLD_LOCAL: every undefined
  // symbol is resolved now, and nothing of the plugin leaks into other plugins), calls its entry
  // with this flashscope's ABI version, validates the table and adds its kernels. A file already
  // loaded (the same file under another name included) is not loaded twice. Every error names
  // the file and the fix; nothing is added when the plugin is refused. `side`: loaded as one side
  // of an ab comparison, whose ids may repeat those of the other side (and only those); one file
  // cannot be both sides.
  absl::Status Load(const std::string& path, Side side = Side::kShared);
  // Adds a plugin linked into this program (the built-in kernels), through the same checks.
  absl::Status AddLinked(fs_plugin_entry_fn entry);
  // The Python bridge (libflashscope_python.so) that Load uses for a path ending in ".py": a
  // Python module of kernels (docs/python.md). Empty: such a path is refused, naming the fix.
  void SetPythonBridge(std::string bridge_path) { python_bridge_ = std::move(bridge_path); }

  // Every kernel: plugins in the order added, each plugin's kernels in ladder order.
  const std::vector<const Kernel*>& kernels() const { return kernels_; }
  // The kernel with this id loaded as `side` (kShared: by a plugin that is no side); nullptr when
  // there is none.
  const Kernel* Find(std::string_view id, Side side = Side::kShared) const;
  const std::deque<Provenance>& plugins() const { return plugins_; }

 private:
  absl::Status Add(const fs_plugin* table, Provenance provenance, const std::string& where);
  // The table of a shared library's flashscope_plugin_v1.
  absl::StatusOr<const fs_plugin*> LoadSharedLibrary(const std::string& path,
                                                     const std::string& canonical);
  // The module's table through the bridge's flashscope_python_plugin_v1.
  absl::StatusOr<const fs_plugin*> LoadPythonModule(const std::string& path,
                                                    const std::string& canonical);

  std::deque<Provenance> plugins_;  // deques: kernels keep pointers to their plugin's provenance
  std::deque<Kernel> storage_;
  std::vector<const Kernel*> kernels_;
  // id -> its kernels: one, or one per ab side.
  std::map<std::string, std::vector<const Kernel*>, std::less<>> by_id_;
  std::map<std::string, Side> loaded_files_;  // canonical path -> the side it was loaded as
  std::string python_bridge_;
};

}  // namespace flashscope::plugins
