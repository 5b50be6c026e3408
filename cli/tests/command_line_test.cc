// The command line end to end (issue 14, item 7): per-command flags and help, exit codes for
// unknown or misplaced flags, "did you mean", --version, colour control, validated numbers and
// the `show` filter. Runs the built binary.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include "cli/tests/run_cli.h"

namespace flashscope::cli::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kExample =
    std::string(FLASHSCOPE_TEST_SOURCE_DIR) + "/reports/testdata/synthetic_example_report.json";

TEST(CommandLine, UnknownFlagExits2NamingItAndTheClosestOne) {
  CliResult r = RunCli({"gate", kExample, kExample, "--jsn", "x.json"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--jsn"));
  EXPECT_THAT(r.err, HasSubstr("did you mean --json"));
  CliResult far = RunCli({"show", kExample, "--zzzzzzzz"});
  EXPECT_EQ(far.exit_code, 2);
  EXPECT_THAT(far.err, AllOf(HasSubstr("--zzzzzzzz"), Not(HasSubstr("did you mean"))));
}

TEST(CommandLine, FlagOfAnotherCommandIsRefused) {
  CliResult r = RunCli({"show", kExample, "--policy", "p.json"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_THAT(r.err,
              AllOf(HasSubstr("--policy"), HasSubstr("does not apply to"), HasSubstr("gate")));
  EXPECT_EQ(RunCli({"list", "--policy", "p.json"}).exit_code, 2);  // list has --kernels now
  EXPECT_EQ(RunCli({"metrics", "--force"}).exit_code, 2);
}

TEST(CommandLine, HelpOfEachCommandIsItsOwnAndExits0) {
  for (const char* h : {"--help", "-h", "help"}) {
    CliResult r = RunCli({h});
    EXPECT_EQ(r.exit_code, 0) << h << r.err;
    EXPECT_THAT(r.out, AllOf(HasSubstr("usage"), HasSubstr("gate"), HasSubstr("compare")));
  }
  CliResult gate = RunCli({"gate", "--help"});
  EXPECT_EQ(gate.exit_code, 0);
  EXPECT_THAT(gate.out, AllOf(HasSubstr("flashscope gate BASE NEW"), HasSubstr("--policy"),
                              Not(HasSubstr("--kernels")), Not(HasSubstr("--resume"))));
  CliResult show = RunCli({"show", "-h"});
  EXPECT_EQ(show.exit_code, 0);
  EXPECT_THAT(show.out, AllOf(HasSubstr("--status"), Not(HasSubstr("--policy"))));
  CliResult help_run = RunCli({"help", "run"});
  EXPECT_EQ(help_run.exit_code, 0);
  EXPECT_THAT(help_run.out, AllOf(HasSubstr("--resume"), HasSubstr("--kernels")));
  EXPECT_EQ(RunCli({}).exit_code, 2);  // no command: usage on stderr, exit 2
}

TEST(CommandLine, UnknownCommandSuggestsTheClosest) {
  CliResult r = RunCli({"shwo", kExample});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, AllOf(HasSubstr("unknown command 'shwo'"), HasSubstr("did you mean 'show'")));
}

TEST(CommandLine, VersionNamesTheReleaseAndTheRevision) {
  CliResult r = RunCli({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, AllOf(HasSubstr("flashscope "), HasSubstr("0.1.0"), HasSubstr("git ")));
}

TEST(CommandLine, ColourFollowsNoColorTermAndTheFlag) {
  const std::vector<std::string> show = {"show", kExample};
  CliOptions tty;
  tty.stdout_on_tty = true;
  EXPECT_THAT(RunCli(show, tty).out, HasSubstr("\033["));
  CliOptions no_color = tty;
  no_color.env = {"NO_COLOR=1"};
  EXPECT_THAT(RunCli(show, no_color).out, Not(HasSubstr("\033[")));
  CliOptions dumb = tty;
  dumb.env = {"TERM=dumb"};
  EXPECT_THAT(RunCli(show, dumb).out, Not(HasSubstr("\033[")));
  // Forced on for a CI log (not a terminal), even with NO_COLOR; forced off on a terminal.
  CliOptions ci;
  ci.env = {"NO_COLOR=1"};
  EXPECT_THAT(RunCli({"show", kExample, "--color=always"}, ci).out, HasSubstr("\033["));
  EXPECT_THAT(RunCli({"show", kExample}, ci).out, Not(HasSubstr("\033[")));
  EXPECT_THAT(RunCli({"show", kExample, "--color=never"}, tty).out, Not(HasSubstr("\033[")));
  EXPECT_THAT(RunCli({"show", kExample, "--color=false"}, tty).out, Not(HasSubstr("\033[")));
  CliResult bad = RunCli({"show", kExample, "--color=sometimes"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--color"));
}

TEST(CommandLine, NumericFlagsAreValidatedLikeThePolicy) {
  for (const std::vector<std::string>& bad :
       std::vector<std::vector<std::string>>{{"--alpha", "5"},
                                             {"--alpha=nan"},
                                             {"--alpha", "0"},
                                             {"--alpha", "abc"},
                                             {"--min_effect", "1e9"},
                                             {"--min_effect=nan"},
                                             {"--min_effect", "-0.5"},
                                             {"--min_effect", "inf"}}) {
    std::vector<std::string> args = {"compare", kExample, kExample};
    args.insert(args.end(), bad.begin(), bad.end());
    CliResult r = RunCli(args);
    EXPECT_EQ(r.exit_code, 2) << bad[0] << " " << (bad.size() > 1 ? bad[1] : "");
    EXPECT_THAT(r.err, HasSubstr(bad[0].substr(0, bad[0].find('='))));
  }
  EXPECT_EQ(RunCli({"metrics", "--cc", "ninety"}).exit_code, 2);
  EXPECT_EQ(
      RunCli({"compare", kExample, kExample, "--alpha", "0.05", "--min_effect=0.1"}).exit_code, 0);
}

TEST(CommandLine, ShowFiltersByStatusAndKernel) {
  CliResult failed = RunCli({"show", kExample, "--status", "failed,error"});
  EXPECT_EQ(failed.exit_code, 0) << failed.err;
  EXPECT_THAT(failed.out, AllOf(HasSubstr("gemm.g01_naive"), HasSubstr("attn.a01_scalar"),
                                Not(HasSubstr("attn.a02_smem_tiled"))));
  CliResult kernels = RunCli({"show", kExample, "--kernels", "attn.a0[2-9]*"});
  EXPECT_EQ(kernels.exit_code, 0);
  EXPECT_THAT(kernels.out, AllOf(HasSubstr("attn.a02_smem_tiled"), Not(HasSubstr("gemm.g01"))));
  CliResult bad = RunCli({"show", kExample, "--status", "faild"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("did you mean failed"));
}

TEST(CommandLine, FormerSpellingsKeepWorking) {
  // What scripts/test.sh and the device scripts pass today.
  const std::string dir = TempDir();
  CliResult gate =
      RunCli({"gate", kExample, kExample, "--json", dir + "/v.json", "--color=false", "--policy",
              std::string(FLASHSCOPE_TEST_SOURCE_DIR) + "/results/baselines/policy.json"});
  EXPECT_NE(gate.exit_code, 2) << gate.err;
  EXPECT_EQ(RunCli({"render", kExample, "--format=csv", "--out", dir + "/r.csv"}).exit_code, 0);
  EXPECT_EQ(RunCli({"render", kExample, "-format", "markdown"}).exit_code, 0);
  EXPECT_EQ(RunCli({"compare", kExample, kExample, "--noforce"}).exit_code, 0);
}

// Issue 14, item 6: output that never arrived is a failure, not a success.
TEST(CommandLine, AFailedWriteToStandardOutputIsAnError) {
  CliOptions full;
  full.stdout_path = "/dev/full";
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"render", kExample, "--format", "csv"},
                                             {"render", kExample, "--format", "html"},
                                             {"show", kExample},
                                             {"compare", kExample, kExample},
                                             {"metrics"},
                                             {"--help"}}) {
    CliResult r = RunCli(args, full);
    EXPECT_EQ(r.exit_code, 2) << args[0] << " " << r.err;
    EXPECT_THAT(r.err, AllOf(HasSubstr("standard output"), HasSubstr("No space left on device")))
        << args[0];
  }
}

// Issue 14, item 4: an output path that is a symlink, a FIFO or a device is refused, untouched.
TEST(CommandLine, OutputTargetsThatAreNotRegularFilesAreRefused) {
  const std::string dir = TempDir();
  WriteText(dir + "/real.md", "keep");
  ASSERT_EQ(::symlink("real.md", (dir + "/link.md").c_str()), 0);
  CliResult r = RunCli({"render", kExample, "--format", "markdown", "--out", dir + "/link.md"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("link.md: is a symbolic link, not a regular file"));
  ASSERT_EQ(::mkfifo((dir + "/fifo").c_str(), 0644), 0);
  CliResult fifo = RunCli({"gate", kExample, kExample, "--json", dir + "/fifo"});
  EXPECT_EQ(fifo.exit_code, 2);
  EXPECT_THAT(fifo.err, HasSubstr("fifo: is a FIFO"));
  struct stat st;
  ASSERT_EQ(::lstat((dir + "/fifo").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

}  // namespace
}  // namespace flashscope::cli::testing
