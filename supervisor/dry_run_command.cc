#include "supervisor/dry_run_command.h"

#include "absl/strings/str_cat.h"

namespace flashscope::suites {

std::string ShellWord(const std::string& word) {
  const bool plain = !word.empty() && word.find_first_not_of(
                                          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789_-./:=,+@%") == std::string::npos;
  if (plain) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string DryRunCommand(const std::string& command, const std::string& suite_path,
                          const std::vector<std::pair<std::string, std::string>>& flags) {
  std::string out = absl::StrCat("flashscope ", command, " ", ShellWord(suite_path));
  for (const auto& [flag, value] : flags) {
    if (!value.empty()) absl::StrAppend(&out, " ", flag, " ", ShellWord(value));
  }
  return out + " --dry_run";
}

}  // namespace flashscope::suites
