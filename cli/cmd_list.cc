// `flashscope list`: the kernels with what they support (printed by flashscope-worker, which loads
// the plugins), and the suites.
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

int List(const Args& args) {
  // The kernels, with their plugins' provenance, come from a worker: it loads the plugins.
  int code = 0;
  suites::protocol::WorkerRequest request;
  request.command = suites::protocol::Command::kList;
  request.plugins = ResolvedPlugins(args, "list", &code);
  if (code != 0) return code;
  request.all = args.Bool("all");
  code = RunWorkerCommand("list", request);
  const std::string dir = SuitesDir(args);
  PrintF("\nsuites (in %s)\n", Safe(dir));
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
  return code;
}

}  // namespace

Command ListCommand() {
  Command c("list", "", "the kernels (what each supports, what it changed) and the suites", 0, 0,
            List);
  c.Add(Flag::Bool("all", "also the test-only (deliberately faulty) kernels"))
      .Add(PluginFlag())
      .Add(SuitesDirFlag());
  return c;
}

}  // namespace flashscope::cli
