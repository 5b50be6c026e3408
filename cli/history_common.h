// What the `flashscope history` commands share (cmd_history.cc, cmd_history_changes.cc): opening
// the database named by --db, the gate policy of --policy, the series of --kernels/--problems.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/gate.h"
#include "cli/args.h"
#include "history/changes.h"
#include "history/store.h"

namespace flashscope::cli {

Flag DbFlag();
Flag PolicyFlag();
Flag SeriesKernelsFlag();
Flag SeriesProblemsFlag();

// Prints the error ("flashscope history CMD: ...") and returns 2, the exit code of bad input.
int HistoryFail(const std::string& command, const std::string& message);

// Opens --db; on failure prints why and returns nullopt (exit 2).
std::optional<history::HistoryStore> OpenHistory(const std::string& command, const Args& a);

// --policy FILE or the gate's defaults; nullopt after printing why the file was refused.
std::optional<reports::GatePolicy> HistoryPolicy(const std::string& command, const Args& a);

// The series of --kernels/--problems with their change points; nullopt after printing why not.
std::optional<std::vector<history::SeriesChanges>> LoadChanges(const std::string& command,
                                                               const Args& a,
                                                               history::HistoryStore& store,
                                                               const reports::GatePolicy& policy,
                                                               bool explain);

}  // namespace flashscope::cli
