// Commands whose output comes from flashscope-worker (list's kernels, metrics): the worker is
// started with this process's stdout and stderr, and its death is explained here.
#pragma once

#include <string>
#include <vector>

#include "cli/args.h"
#include "protocol/worker_protocol.h"

namespace flashscope::cli {

// --plugin FILE, repeatable (docs/plugins.md).
Flag PluginFlag();

// The plugin files of --plugin (else FLASHSCOPE_PLUGINS) resolved to paths; an error is printed
// for `command` and *exit_code set to 2.
std::vector<std::string> ResolvedPlugins(const Args& args, const char* command, int* exit_code);

// Runs the worker's `request`; what it prints goes to our stdout. Exit code: 0; 2 for a refused
// plugin or bad input (the worker's message is printed); 1 when the worker crashed, with the
// plugin it was loading or the call it was making. With `crashed_loading`, a crash while loading
// a plugin file is not printed: that file's path and how it died are stored there instead (the
// worker prints nothing before its plugins are loaded, so the caller may run it again without).
struct LoadCrash {
  std::string path;
  std::string reason;
};
int RunWorkerCommand(const char* command, suites::protocol::WorkerRequest request,
                     LoadCrash* crashed_loading = nullptr);

}  // namespace flashscope::cli
