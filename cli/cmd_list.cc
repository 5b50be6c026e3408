// `flashscope list` and `flashscope metrics`: the kernels (with what they support) and the
// hardware-metric catalogue come from flashscope-worker, the process that loads plugins and knows
// CUDA; the suites are read here.
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "suites/plugin_paths.h"
#include "suites/suite.h"
#include "suites/worker_process.h"

namespace flashscope::cli {

std::string SuitesDir() {
  std::string flag = absl::GetFlag(FLAGS_suites_dir);
  if (!flag.empty()) return flag;
  if (std::filesystem::is_directory("suites")) return "suites";
  return std::string(FLASHSCOPE_SOURCE_DIR) + "/suites";
}

namespace {

namespace protocol = suites::protocol;

// Runs a worker command whose output is the worker's stdout. A worker that dies is explained
// (the plugin it was loading, or the kernel whose supports() it was asking); exit codes: 0, 2
// for a refused plugin or bad input, 1 for a crash.
int RunWorkerCommand(const char* command, protocol::WorkerRequest request) {
  auto worker_exe = suites::FindWorker();
  if (!worker_exe.ok()) {
    std::fprintf(stderr, "flashscope %s: %s\n", command,
                 std::string(worker_exe.status().message()).c_str());
    return 2;
  }
  std::fflush(stdout);
  auto worker = suites::WorkerProcess::Start(*worker_exe, request);
  if (!worker.ok()) {
    std::fprintf(stderr, "flashscope %s: %s\n", command,
                 std::string(worker.status().message()).c_str());
    return 2;
  }
  std::string loading, phase;
  protocol::Message m;
  while (worker->Next(3600, &m) == suites::WorkerProcess::Read::kMessage) {
    if (m.event == protocol::Event::kLoad) loading = m.text;
    if (m.event == protocol::Event::kLoaded) loading.clear();
    if (m.event == protocol::Event::kPhase) phase = m.text;
    if (m.event == protocol::Event::kFatal) {
      std::fprintf(stderr, "flashscope %s: %s\n", command, m.text.c_str());
    }
  }
  const int status = worker->Wait();
  if (suites::DiedOfSignal(status)) {
    const std::string cause = suites::CauseOfDeath(status);
    if (!loading.empty()) {
      std::fprintf(stderr, "flashscope %s: plugin %s crashed while loading: %s\n", command,
                   loading.c_str(), cause.c_str());
    } else {
      std::fprintf(stderr, "flashscope %s: flashscope-worker crashed (%s)%s%s\n", command,
                   cause.c_str(), phase.empty() ? "" : " in ", phase.c_str());
    }
    return 1;
  }
  if (!WIFEXITED(status)) return 1;
  return WEXITSTATUS(status) == 0 ? 0 : 2;  // the worker printed why
}

std::vector<std::string> PluginsOrExit(int* code) {
  auto plugins = suites::ResolvePlugins(
      suites::PluginSourcesFromEnvironment({}, PluginFlags(), suites::FindWorker().value_or("")));
  if (!plugins.ok()) {
    std::fprintf(stderr, "flashscope list: %s\n", std::string(plugins.status().message()).c_str());
    *code = 2;
    return {};
  }
  return *plugins;
}

}  // namespace

int CmdList(const std::vector<std::string>& args) {
  if (!args.empty()) {
    std::fprintf(stderr, "usage: flashscope list [--all] [--plugin FILE]...\n");
    return 2;
  }
  int code = 0;
  protocol::WorkerRequest request;
  request.command = protocol::Command::kList;
  request.plugins = PluginsOrExit(&code);
  if (code != 0) return code;
  request.all = absl::GetFlag(FLAGS_all);
  code = RunWorkerCommand("list", request);
  const std::string dir = SuitesDir();
  std::printf("\nsuites (in %s)\n", dir.c_str());
  for (const auto& path : suites::ListSuiteFiles(dir)) {
    auto suite = suites::LoadSuiteFile(path);
    if (!suite.ok()) {
      std::printf("  %-12s INVALID: %s\n", std::filesystem::path(path).stem().c_str(),
                  std::string(suite.status().message()).c_str());
      continue;
    }
    std::printf("  %-12s %zu problems, kernels %s\n      %s\n", suite->name.c_str(),
                suite->problems.size(), absl::StrJoin(suite->kernel_patterns, ",").c_str(),
                suite->description.c_str());
  }
  return code;
}

int CmdMetrics(const std::vector<std::string>& args) {
  if (!args.empty()) {
    std::fprintf(stderr, "usage: flashscope metrics [--cc 90]\n");
    return 2;
  }
  protocol::WorkerRequest request;
  request.command = protocol::Command::kMetrics;
  request.cc = absl::GetFlag(FLAGS_cc);
  return RunWorkerCommand("metrics", request);
}

}  // namespace flashscope::cli
