// The `--dry_run` command a refusal suggests (no usable GPU): the user's own command with their
// --plugin, --kernels, --shard or --base/--new, so that it plans what the run would have run
// instead of failing to find the kernels. Words are quoted for a POSIX shell where needed.
#pragma once

#include <string>
#include <vector>

namespace flashscope::suites {

// A word as a POSIX shell reads it back: bare when it is plain, else in single quotes.
std::string ShellWord(const std::string& word);

// "flashscope COMMAND SUITE" + each (flag, value) with a non-empty value + " --dry_run".
std::string DryRunCommand(const std::string& command, const std::string& suite_path,
                          const std::vector<std::pair<std::string, std::string>>& flags);

}  // namespace flashscope::suites
