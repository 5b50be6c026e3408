// `flashscope list`: the suites, then the kernels with what they support (printed by
// flashscope-worker, which loads the plugins), then what could not be listed: last, where it is
// not scrolled away.
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/commands.h"
#include "cli/common_flags.h"
#include "cli/output.h"
#include "cli/worker_command.h"
#include "reports/text_safety.h"
#include "suites/suite.h"

namespace flashscope::cli {

namespace {

// Names and descriptions come from suite files and kernel libraries: shown inert.
std::string Safe(absl::string_view s) { return reports::text::TerminalSafe(s); }

void PrintSuites(const Args& args) {
  const std::string dir = SuitesDir(args);
  PrintF("suites (in %s)\n", Safe(dir));
  for (const auto& path : suites::ListSuiteFiles(dir)) {
    auto suite = suites::LoadSuiteFile(path);
    if (!suite.ok()) {
      PrintF("  %-12s INVALID: %s\n", Safe(std::filesystem::path(path).stem().string()),
             Safe(suite.status().message()));
      continue;
    }
    PrintF("  %-12s %zu problems, kernels %s\n      %s\n", Safe(suite->name),
           suite->problems.size(), Safe(absl::StrJoin(suite->kernel_patterns, ",")),
           Safe(suite->description));
  }
  Print("\n");
}

// The worker's listing; a plugin file that crashes the worker while it loads is set aside (into
// `crashes`) and the listing made again without it: each crash drops one file, so this ends.
int ListKernelsInWorker(suites::protocol::WorkerRequest request, std::vector<LoadCrash>* crashes) {
  while (true) {
    LoadCrash crash;
    const int code = RunWorkerCommand("list", request, &crash);
    if (crash.path.empty()) return code;
    crashes->push_back(crash);
    auto& plugins = request.plugins;
    const size_t before = plugins.size();
    plugins.erase(std::remove(plugins.begin(), plugins.end(), crash.path), plugins.end());
    if (plugins.size() == before) {  // not one of ours to drop: say so and stop
      PrintError("list", absl::StrCat("plugin ", crash.path, " ", crash.reason));
      return 1;
    }
  }
}

int List(const Args& args) {
  int code = 0;
  suites::protocol::WorkerRequest request;
  request.command = suites::protocol::Command::kList;
  request.plugins = ResolvedPlugins(args, "list", &code);
  if (code != 0) return code;
  request.all = args.Bool("all");
  request.kernels_filter = args.String("kernels");
  request.plugin_only = args.Bool("plugin_only");
  // A narrowed listing is about the kernels: the suites would only bury them.
  if (request.kernels_filter.empty() && !request.plugin_only) PrintSuites(args);
  std::vector<LoadCrash> crashes;
  code = ListKernelsInWorker(request, &crashes);
  // A line on stderr too, for whoever reads only that (a script keeping stdout).
  if (code == 2) {
    PrintError("list",
               "not everything could be listed: see the end of the listing (a plugin "
               "refused, or --kernels matching no kernel)");
  }
  if (!crashes.empty()) {
    PrintF("\nplugins that crashed flashscope-worker while loading (%zu; not listed):\n",
           crashes.size());
    for (const LoadCrash& c : crashes) PrintF("  plugin %s %s\n", Safe(c.path), Safe(c.reason));
    PrintError("list", "a plugin crashed flashscope-worker: see the end of the listing");
    code = 1;
  }
  return code;
}

}  // namespace

Command ListCommand() {
  Command c("list", "",
            "the suites, then the kernels (what each supports, what it changed), then any plugin "
            "that could not be listed",
            0, 0, List);
  c.Add(Flag::Bool("all", "also the test-only (deliberately faulty) kernels"))
      .Add(Flag::String("kernels", "GLOB",
                        "only the kernels whose id matches: a comma list of ids or globs, as "
                        "`run --kernels` takes (and no suites)"))
      .Add(Flag::Bool("plugin_only",
                      "only the kernels of plugin files (--plugin, FLASHSCOPE_PLUGINS), not "
                      "flashscope's own (and no suites)"))
      .Add(PluginFlag())
      .Add(SuitesDirFlag());
  return c;
}

}  // namespace flashscope::cli
