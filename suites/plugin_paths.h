// Which plugin files a run loads, and in what order (docs/plugins.md, "Loading plugins"):
//   1. the suite file's "plugins" (a path is relative to the suite file; suites/suite.h),
//   2. then every `--plugin PATH` of the command line, in order; when there is none, the
//      colon-separated list in the environment variable FLASHSCOPE_PLUGINS instead (the command
//      line overrides the environment, as for any tool's defaults).
// A file named twice loads once. A bare name (no '/') is looked up, as NAME, libNAME.so and
// NAME.so (a name ending in .so or .py: as itself only), in each folder of FLASHSCOPE_PLUGIN_PATH
// (colon-separated), then in the plugin folder beside flashscope-worker:
// <its folder>/../lib/flashscope/plugins (the build's and an install's). A name without '/' on the
// command line or in FLASHSCOPE_PLUGINS that is a file in the current folder is that path
// (`--plugin my.so`), not a bare name. A folder is refused as such, naming the plugin files in it
// (a folder here named like a plugin found by its bare name does not hide that plugin).
// Resolution only looks at the file system: loading happens in flashscope-worker.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace flashscope::suites {

struct PluginSources {
  std::vector<std::string> suite;              // Suite::plugins
  std::vector<std::string> command_line;       // --plugin, in order
  std::string command_line_flag = "--plugin";  // how messages name them (ab: --base, --new)
  std::string env_plugins;                     // $FLASHSCOPE_PLUGINS
  std::string env_plugin_path;                 // $FLASHSCOPE_PLUGIN_PATH
  std::string installed_dir;                   // PluginDirBeside(worker)
};

// The sources as the environment and the command line give them.
PluginSources PluginSourcesFromEnvironment(const std::vector<std::string>& suite_plugins,
                                           const std::vector<std::string>& command_line,
                                           const std::string& worker_exe);

// <folder of worker_exe>/../lib/flashscope/plugins.
std::string PluginDirBeside(const std::string& worker_exe);

// The Python bridge that loads a plugin path ending in ".py" (docs/python.md):
// $FLASHSCOPE_PYTHON_BRIDGE, else libflashscope_python.so in PluginDirBeside(worker_exe).
std::string PythonBridgePath(const std::string& worker_exe);

// Absolute paths of existing files, in load order, without repeats. An error names the entry,
// where it came from, where a bare name was looked for, and what to do.
absl::StatusOr<std::vector<std::string>> ResolvePlugins(const PluginSources& sources);

}  // namespace flashscope::suites
