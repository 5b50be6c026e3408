// The commands of `flashscope`, each declared with its own flags (cli/args.h) in its own file.
// A command's run function returns the process exit code (0 success, 1 a result the user should
// look at, 2 bad input or usage).
#pragma once

#include <vector>

#include "cli/args.h"

namespace flashscope::cli {

Command ListCommand();       // cmd_list.cc
Command RunCommand();        // cmd_run.cc
Command MergeCommand();      // cmd_merge.cc
Command ShowCommand();       // cmd_reports.cc
Command MetricsCommand();    // cmd_reports.cc
Command CompareCommand();    // cmd_gate.cc
Command GateCommand();       // cmd_gate.cc
Command RenderCommand();     // cmd_gate.cc
Command AbCommand();         // cmd_ab.cc
Command NewPluginCommand();  // cmd_new_plugin.cc
// `flashscope history SUB`: the group's help and its subcommands, named "history add", ...
Command HistoryGroupCommand();    // cmd_history_changes.cc
Command HistoryAddCommand();      // cmd_history.cc
Command HistoryShowCommand();     // cmd_history.cc
Command HistoryChangesCommand();  // cmd_history_changes.cc
Command HistoryBisectCommand();   // cmd_history_changes.cc

// Every command, in the order the help lists them.
std::vector<Command> AllCommands();

}  // namespace flashscope::cli
