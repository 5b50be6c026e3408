// The command-line framework on its own: syntax, values, checks, help and "did you mean".
#include "cli/args.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace flashscope::cli {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

std::vector<Command> Commands() {
  Command a;
  a.name = "alpha";
  a.usage = "IN";
  a.summary = "the first";
  a.min_positional = 1;
  a.max_positional = 1;
  a.Add(Flag::String("out", "FILE", "where"))
      .Add(Flag::String("out_dir", "DIR", "where, a folder"))
      .Add(Flag::Bool("force", "anyway"))
      .Add(Flag::Double("ratio", "R", "a ratio", 0.5).Check(AtLeast(0)))
      .Add(Flag::Int("count", "N", "how many", 3))
      .Add(Flag::List("plugin", "LIB", "a plugin"))
      .Add(Flag::String("tool", "TOOL", "a tool").ImplicitValue("memcheck"))
      .Add(Flag::String("color", "WHEN", "colour")
               .Choices({"auto", "never"})
               .Alias("false", "never"))
      .Add(Flag::String("secret", "X", "plumbing").Hidden());
  Command b;
  b.name = "beta";
  b.summary = "the second";
  b.Add(Flag::String("policy", "FILE", "a policy"));
  return {a, b};
}

ParseOutcome Parse(std::vector<std::string> words, int command = 0) {
  static const std::vector<Command> all = Commands();
  return ParseCommandArgs(all[command], words, all, "flashscope test");
}

TEST(Args, ValuesInEverySyntax) {
  ParseOutcome p = Parse({"--out=a", "in.json", "-force", "--ratio", "0.25", "--count=7",
                          "--plugin", "x.so", "--plugin=y.so", "--tool", "--color=false"});
  ASSERT_EQ(p.kind, ParseOutcome::Kind::kRun) << p.error;
  EXPECT_EQ(p.args.String("out"), "a");
  EXPECT_TRUE(p.args.Bool("force"));
  EXPECT_EQ(p.args.Double("ratio"), 0.25);
  EXPECT_EQ(p.args.Int("count"), 7);
  EXPECT_THAT(p.args.List("plugin"), ElementsAre("x.so", "y.so"));
  EXPECT_EQ(p.args.String("tool"), "memcheck");  // alone: the implicit value
  EXPECT_EQ(p.args.String("color"), "never");    // an alias
  EXPECT_THAT(p.args.positional(), ElementsAre("in.json"));
  EXPECT_TRUE(p.args.Given("out"));
  EXPECT_FALSE(p.args.Given("secret"));
  EXPECT_EQ(p.args.command_line(), "flashscope test");
}

TEST(Args, DashesInANameAreUnderscores) {
  ParseOutcome p = Parse({"in.json", "--out-dir", "d", "--out-dir=e"});
  ASSERT_EQ(p.kind, ParseOutcome::Kind::kRun) << p.error;
  EXPECT_EQ(p.args.String("out_dir"), "e");
  EXPECT_EQ(Parse({"in.json", "--out_dir=a-b"}).args.String("out_dir"), "a-b") << "values stay";
  ParseOutcome no = Parse({"in.json", "--no-force"});
  ASSERT_EQ(no.kind, ParseOutcome::Kind::kRun) << no.error;
  EXPECT_TRUE(no.args.Given("force"));
  EXPECT_FALSE(no.args.Bool("force"));
}

TEST(Args, DefaultsNegationAndTheEndOfFlags) {
  ParseOutcome p = Parse({"--noforce", "--", "--out"});
  ASSERT_EQ(p.kind, ParseOutcome::Kind::kRun) << p.error;
  EXPECT_FALSE(p.args.Bool("force"));
  EXPECT_TRUE(p.args.Given("force"));
  EXPECT_EQ(p.args.Double("ratio"), 0.5);
  EXPECT_EQ(p.args.Int("count"), 3);
  EXPECT_EQ(p.args.String("color"), "auto");
  EXPECT_FALSE(p.args.Given("ratio"));
  EXPECT_THAT(p.args.positional(), ElementsAre("--out"));
  EXPECT_EQ(Parse({"x", "--tool=racecheck"}).args.String("tool"), "racecheck");
}

TEST(Args, ErrorsNameTheFlag) {
  EXPECT_THAT(Parse({"x", "--outt", "f"}).error,
              AllOf(HasSubstr("unknown flag --outt"), HasSubstr("did you mean --out?")));
  EXPECT_THAT(Parse({"x", "--policy", "f"}).error,
              AllOf(HasSubstr("--policy does not apply to `flashscope alpha`"), HasSubstr("beta")));
  EXPECT_THAT(Parse({"x", "--out"}).error, HasSubstr("--out needs a value (FILE)"));
  EXPECT_THAT(Parse({"x", "--ratio", "-1"}).error, HasSubstr("--ratio=-1: must be at least 0"));
  EXPECT_THAT(Parse({"x", "--ratio", "nan"}).error, HasSubstr("--ratio=nan: must be a finite"));
  EXPECT_THAT(Parse({"x", "--ratio", "1e999"}).error, HasSubstr("--ratio=1e999"));
  EXPECT_THAT(Parse({"x", "--count", "2.5"}).error, HasSubstr("--count=2.5: not an integer"));
  EXPECT_THAT(Parse({"x", "--force=maybe"}).error, HasSubstr("--force=maybe: not a boolean"));
  EXPECT_THAT(Parse({"x", "--color", "nevr"}).error, HasSubstr("did you mean never?"));
  EXPECT_THAT(Parse({"x", "y"}).error, HasSubstr("unexpected argument 'y'"));
  EXPECT_THAT(Parse({"x", "--tool", "racecheck"}).error,
              HasSubstr("--tool takes its value after '=': --tool=racecheck"));
  EXPECT_THAT(Parse({"z"}, 1).error, HasSubstr("(flashscope beta takes no arguments)"));
  EXPECT_THAT(Parse({}).error, HasSubstr("missing arguments (usage: flashscope alpha IN)"));
  EXPECT_EQ(Parse({"x", "--secret", "s"}).kind, ParseOutcome::Kind::kRun);  // hidden, declared
  EXPECT_EQ(Parse({"x", "--help"}).kind, ParseOutcome::Kind::kHelp);
  EXPECT_EQ(Parse({"-h"}).kind, ParseOutcome::Kind::kHelp);
}

TEST(Args, HelpListsTheCommandsOwnFlags) {
  const std::string help = Commands()[0].Help();
  EXPECT_THAT(help, AllOf(HasSubstr("usage: flashscope alpha IN [flags]"), HasSubstr("--out FILE"),
                          HasSubstr("--tool[=TOOL]"), HasSubstr("a ratio; default 0.5"),
                          HasSubstr("(auto, never)"), HasSubstr("(repeatable)"),
                          Not(HasSubstr("--secret")), Not(HasSubstr("--policy"))));
}

}  // namespace
}  // namespace flashscope::cli
