// The suggested dry-run command repeats the user's flags, quoted so that a shell reads them back.
#include "supervisor/dry_run_command.h"

#include <gtest/gtest.h>

namespace flashscope::suites {
namespace {

TEST(DryRunCommand, RepeatsTheUsersFlagsQuotedForTheShell) {
  EXPECT_EQ(DryRunCommand("run", "s.json",
                          {{"--kernels", "my.*"}, {"--plugin", "/a/b.so"}, {"--shard", ""}}),
            "flashscope run s.json --kernels 'my.*' --plugin /a/b.so --dry_run");
  EXPECT_EQ(DryRunCommand("ab", "my suite.json", {{"--base", "old.so"}, {"--new", "it's.so"}}),
            "flashscope ab 'my suite.json' --base old.so --new 'it'\\''s.so' --dry_run");
  EXPECT_EQ(ShellWord(""), "''");
  EXPECT_EQ(ShellWord("a$b`c"), "'a$b`c'");
  EXPECT_EQ(ShellWord("2/4"), "2/4");
}

}  // namespace
}  // namespace flashscope::suites
