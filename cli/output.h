// What `flashscope` prints on standard output goes through Print, so that a failed write (a full
// disk behind `> file`, a closed descriptor) is noticed with its cause and becomes an exit code
// instead of a silent success.
#pragma once

#include <string>

#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"

namespace flashscope::cli {

void Print(absl::string_view text);

template <typename... Args>
void PrintF(const absl::FormatSpec<Args...>& format, const Args&... args) {
  Print(absl::StrFormat(format, args...));
}

// "flashscope COMMAND: MESSAGE" on stderr. Messages quote paths and report strings: they are shown
// inert (reports/text_safety.h), never raw, and never cut at a NUL.
void PrintError(absl::string_view command, absl::string_view message);

// Flushes standard output. When anything written to it was lost, says so on stderr (naming
// `who` and the cause) and returns 2 when `rc` was 0; a command that already failed keeps its
// own code (a regression stays 1).
int FinishStandardOutput(const std::string& who, int rc);

}  // namespace flashscope::cli
