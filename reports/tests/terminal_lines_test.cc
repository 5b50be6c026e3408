// TerminalSafeLines: a message of several lines (a Python traceback) keeps its line breaks, and
// every line is as inert as TerminalSafe makes one.
#include <gtest/gtest.h>

#include "reports/text_safety.h"

namespace flashscope::reports::text {
namespace {

TEST(TerminalSafeLines, KeepsLineBreaksAndEscapesTheRest) {
  EXPECT_EQ(TerminalSafeLines("SyntaxError: invalid syntax\n  File \"m.py\", line 3\n    x = (\n"),
            "SyntaxError: invalid syntax\n  File \"m.py\", line 3\n    x = (\n");
  EXPECT_EQ(TerminalSafeLines("a\x1b[31m\nb\r\tc"), "a\\x1b[31m\nb\\r\\tc");
  EXPECT_EQ(TerminalSafeLines("\n"), "\n");
  EXPECT_EQ(TerminalSafeLines(""), "");
  EXPECT_EQ(TerminalSafeLines("\xff\n\xe2\x80\xae"), "\\xff\n\\u202e");
  // One line: the same as TerminalSafe.
  EXPECT_EQ(TerminalSafeLines("plain text"), TerminalSafe("plain text"));
}

}  // namespace
}  // namespace flashscope::reports::text
