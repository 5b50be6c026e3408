#include "cli/worker_command.h"

#include <sys/wait.h>

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "cli/output.h"
#include "protocol/worker_process.h"
#include "suites/plugin_paths.h"

namespace flashscope::cli {

namespace protocol = suites::protocol;

Flag PluginFlag() {
  return Flag::List("plugin", "FILE",
                    "load this plugin's kernels too (overrides FLASHSCOPE_PLUGINS; "
                    "docs/plugins.md)");
}

std::vector<std::string> ResolvedPlugins(const Args& args, const char* command, int* exit_code) {
  auto plugins = suites::ResolvePlugins(suites::PluginSourcesFromEnvironment(
      {}, args.List("plugin"), suites::FindWorker().value_or("")));
  if (!plugins.ok()) {
    PrintError(command, plugins.status().message());
    *exit_code = 2;
    return {};
  }
  return *plugins;
}

int RunWorkerCommand(const char* command, protocol::WorkerRequest request,
                     LoadCrash* crashed_loading) {
  auto worker_exe = suites::FindWorker();
  if (!worker_exe.ok()) {
    PrintError(command, worker_exe.status().message());
    return 2;
  }
  // The worker writes to the same stdout: what we printed goes first.
  if (int rc = FinishStandardOutput(absl::StrCat("flashscope ", command), 0); rc != 0) return rc;
  auto worker = suites::WorkerProcess::Start(*worker_exe, request);
  if (!worker.ok()) {
    PrintError(command, worker.status().message());
    return 2;
  }
  std::string loading, phase;
  protocol::Message m;
  while (worker->Next(3600, &m) == suites::WorkerProcess::Read::kMessage) {
    if (m.event == protocol::Event::kLoad) loading = m.text;
    if (m.event == protocol::Event::kLoaded) loading.clear();
    if (m.event == protocol::Event::kPhase) phase = m.text;
    if (m.event == protocol::Event::kFatal) PrintError(command, m.text);
  }
  const int status = worker->Wait();
  if (suites::DiedOfSignal(status)) {
    const std::string cause = suites::CauseOfDeath(status);
    if (!loading.empty() && crashed_loading != nullptr) {
      *crashed_loading = {loading, absl::StrCat("crashed while loading: ", cause)};
      return 1;
    }
    PrintError(command, loading.empty()
                            ? absl::StrCat("flashscope-worker crashed (", cause, ")",
                                           phase.empty() ? "" : " in ", phase)
                            : absl::StrCat("plugin ", loading, " crashed while loading: ", cause));
    return 1;
  }
  if (!WIFEXITED(status)) return 1;
  return WEXITSTATUS(status) == 0 ? 0 : 2;  // the worker said why
}

}  // namespace flashscope::cli
