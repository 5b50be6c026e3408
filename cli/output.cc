#include "cli/output.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "reports/text_safety.h"

namespace flashscope::cli {
namespace {

int first_error = 0;  // errno of the first failed write to stdout; 0 while all went well

}  // namespace

void Print(absl::string_view text) {
  if (text.empty()) return;
  errno = 0;
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() && first_error == 0) {
    first_error = errno != 0 ? errno : EIO;
  }
}

void PrintError(absl::string_view command, absl::string_view message) {
  const std::string line = std::string("flashscope ") + std::string(command) + ": " +
                           reports::text::TerminalSafeLines(message) + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
}

int FinishStandardOutput(const std::string& who, int rc) {
  errno = 0;
  if (std::fflush(stdout) != 0 && first_error == 0) first_error = errno != 0 ? errno : EIO;
  if (first_error == 0 && std::ferror(stdout)) first_error = EIO;
  if (first_error == 0) return rc;
  std::fprintf(stderr, "%s: writing to standard output failed: %s; the output is incomplete\n",
               who.c_str(), std::strerror(first_error));
  return rc == 0 ? 2 : rc;
}

}  // namespace flashscope::cli
