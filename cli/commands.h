// The subcommands of `flashscope`; each returns the process exit code
// (0 success, 1 a result the user should look at, 2 bad input or usage).
#pragma once

#include <string>
#include <vector>

namespace flashscope::cli {

// The folder holding suite files: --suites_dir, else ./suites, else the source tree's.
std::string SuitesDir();

int CmdList(const std::vector<std::string>& args);
int CmdRun(const std::vector<std::string>& args, const std::string& command_line);  // cmd_run.cc
int CmdShow(const std::vector<std::string>& args);
int CmdMerge(const std::vector<std::string>& args);
int CmdCompare(const std::vector<std::string>& args);  // cmd_gate.cc
int CmdGate(const std::vector<std::string>& args);     // cmd_gate.cc
int CmdRender(const std::vector<std::string>& args);   // cmd_gate.cc
int CmdMetrics(const std::vector<std::string>& args);  // cmd_list.cc

// `--plugin FILE` may be given many times (run, list): main() takes every occurrence out of argv
// before the other flags are parsed (cmd_run.cc).
void TakePluginFlags(int* argc, char** argv);
const std::vector<std::string>& PluginFlags();

}  // namespace flashscope::cli
