// `flashscope ab` end to end on the CPU, through the built binaries:
//   - with the real flashscope-worker and the small C plugins of plugins/tests: two builds of
//     the same ids are accepted as the two sides (and nowhere else), a side that does not load is
//     "cannot test" (125), bad usage is 2, no GPU is 2;
//   - with the CPU stand-in worker (supervisor/tests/fake_worker_ab.cc, $FLASHSCOPE_WORKER): the
//     verdicts, the exit codes 0 and 1, the --json verdict, and a real `git bisect run` with the
//     recipe script of examples/attention-plugin, which must find the first slow commit and skip
//     the ones that do not build or do not load.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "cli/tests/run_cli.h"
#include "cli/tests/test_plugin_path.h"
#include "common/tests/expect_has.h"
#include "nlohmann/json.hpp"

namespace flashscope::cli::testing {
namespace {

namespace fs = std::filesystem;

using ::flashscope::testing::TestPlugin;

std::vector<std::string> Words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

class CliAb : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = TempDir(); }
  void TearDown() override { fs::remove_all(dir_); }

  // `flashscope ARGS` (words split at spaces) with the real worker, and no GPU.
  CliResult Flashscope(const std::string& args, std::vector<std::string> env = {}) {
    env.insert(env.end(), {"FLASHSCOPE_PLUGINS", "CUDA_VISIBLE_DEVICES="});
    if (std::find_if(env.begin(), env.end(), [](const std::string& e) {
          return e.rfind("FLASHSCOPE_WORKER=", 0) == 0;
        }) == env.end()) {
      env.push_back("FLASHSCOPE_WORKER");
    }
    return RunCli(Words(args), {env});
  }
  // With the CPU stand-in worker.
  CliResult Fake(const std::string& args, std::vector<std::string> env = {}) {
    env.push_back(std::string("FLASHSCOPE_WORKER=") + FLASHSCOPE_FAKE_WORKER);
    return Flashscope(args, env);
  }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  std::string Suite(const std::string& kernels, const std::string& name = "suite.json") {
    WriteText(Path(name),
              R"({"name": "e2e", "kernels": [)" + kernels +
                  R"(], "problems": [{"family": "attention_fwd", "axes": {"seq": [17, 64]}},
                           {"family": "gemm", "axes": {"size": 8, "dtype": "fp16"}}]})");
    return Path(name);
  }
  std::string File(const std::string& name, const std::string& text) {
    WriteText(Path(name), text);
    return Path(name);
  }

  std::string dir_;
};

TEST_F(CliAb, TwoBuildsOfTheSameIdsAreTheTwoSidesAndNothingElse) {
  const std::string suite = Suite(R"("good.*")");
  CliResult r = Flashscope("ab " + suite + " --base " + TestPlugin("good") + " --new " +
                           TestPlugin("dup") + " --dry-run");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_HAS(r.out, "base: test-good 1.2.3");
  EXPECT_HAS(r.out, "new: test-dup 1.2.3");
  EXPECT_HAS(r.out, "file " + TestPlugin("dup"));
  EXPECT_HAS(r.out, "3 cases");
  EXPECT_HAS(r.out, "good.gemm_v1 gemm{M=8,N=8,K=8,fp16}\n");
  // The same two files as plugins of a run: refused, naming both.
  r = Flashscope("run " + suite + " --dry_run --plugin " + TestPlugin("good") + " --plugin " +
                 TestPlugin("dup"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_HAS(r.err, "\"good.attn_v1\" is offered by both plugin " + TestPlugin("good") +
                        " and plugin " + TestPlugin("dup"));
  // Kernels of one side only are planned on that side.
  r = Flashscope("ab " + Suite(R"("good.*", "other.*")", "two.json") + " --base " +
                 TestPlugin("good") + " --new " + TestPlugin("other") + " --dry_run");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_HAS(r.out, "good.attn_v1 attention_fwd{B=1,H=1,S=17,D=64,fp16}  [base side only]");
  EXPECT_HAS(r.out, "other.gemm_v1 gemm{M=8,N=8,K=8,fp16}  [new side only]");
}

TEST_F(CliAb, ASideThatDoesNotLoadCannotBeTested) {
  const std::string base = " --base " + TestPlugin("good");
  const std::string suite = Suite(R"("good.*")");
  CliResult r = Flashscope("ab " + suite + base + " --new " + TestPlugin("abi2") + " --dry_run");
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_HAS(r.err, "cannot test: plugin " + TestPlugin("abi2"));
  EXPECT_HAS(r.err, "ABI version 2");
  r = Flashscope("ab " + suite + base + " --new " + TestPlugin("crash_load_segv") + " --dry_run");
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_HAS(r.err, TestPlugin("crash_load_segv") + " crashed while loading: signal 11");
  r = Flashscope("ab " + suite + base + " --new /nonexistent/libnew.so");
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_HAS(r.err, "/nonexistent/libnew.so (--new): no such file");
  r = Flashscope("ab " + suite + base + " --new " + File("libjunk.so", "junk") + " --dry_run");
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_HAS(r.err, "cannot be loaded");
}

TEST_F(CliAb, UsageAndInputErrorsAreTwo) {
  const std::string suite = Suite(R"("good.*")");
  CliResult r = Flashscope("ab " + suite + " --base " + TestPlugin("good"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_HAS(r.err, "both --base FILE and --new FILE are needed");
  r = Flashscope("ab " + suite + " --base " + TestPlugin("good") + " --new " + TestPlugin("good"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_HAS(r.err, "the same file");
  r = Flashscope("ab " + suite + " --base " + TestPlugin("good") + " --new " + TestPlugin("dup") +
                 " --alpha 2");
  EXPECT_EQ(r.exit_code, 2);
  r = Flashscope("ab " + Suite(R"("nothing.*")", "nothing.json") + " --base " + TestPlugin("good") +
                 " --new " + TestPlugin("dup") + " --dry_run");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_HAS(r.err, "neither --base nor --new offers a kernel");
  r = Flashscope("ab " + suite + " --base " + TestPlugin("good") + " --new " + TestPlugin("dup") +
                 " --out-dir " + Path("o"));
  EXPECT_EQ(r.exit_code, 2) << "no GPU here";
  EXPECT_HAS(r.err, "no usable GPU");
  EXPECT_FALSE(fs::exists(Path("o"))) << "nothing written";
}

TEST_F(CliAb, VerdictsExitCodesAndTheJson) {
  const std::string args = "ab " + Suite(R"("fake.a")") + " --base " + File("libold.so", "old") +
                           " --new " + File("libnew.so", "new") + " --seed 7";
  CliResult pass = Fake(args + " --out-dir " + Path("o1") + " --json " + Path("v1.json"));
  ASSERT_EQ(pass.exit_code, 0) << pass.err;
  EXPECT_HAS(pass.out, "AB PASSED: no regression");
  EXPECT_HAS(pass.out, "base: fakeplugin old");
  EXPECT_HAS(pass.out, "reports: " + Path("o1/base.json") + " " + Path("o1/new.json"));
  EXPECT_HAS(pass.err, "seed 7");
  nlohmann::json v = nlohmann::json::parse(ReadText(Path("v1.json")));
  EXPECT_EQ(v["schema"], "flashscope.ab_verdict");
  EXPECT_EQ(v["exit_code"], 0);
  EXPECT_EQ(v["counts"]["cases"], 3) << "the stand-in plans every kernel on every problem";
  EXPECT_EQ(v["cases"][0]["judged_by"], "test");
  // The reports are reports: show and gate read them.
  CliResult show = Flashscope("show " + Path("o1/new.json"));
  EXPECT_EQ(show.exit_code, 0) << show.err;
  EXPECT_HAS(show.out, "fake.a");
  EXPECT_EQ(
      Flashscope("gate " + Path("o1/base.json") + " " + Path("o1/new.json") + " --force").exit_code,
      0);

  CliResult slow = Fake(args + " --out-dir " + Path("o2") + " --json " + Path("v2.json"),
                        {"FAKE_AB_SLOWDOWN=0.02"});
  EXPECT_EQ(slow.exit_code, 1) << slow.err;
  EXPECT_HAS(slow.out, "AB FAILED: 3 regressions");
  EXPECT_HAS(slow.out, "[slowdown] fake.a attention_fwd");
  v = nlohmann::json::parse(ReadText(Path("v2.json")));
  EXPECT_EQ(v["failures"][0]["rule"], "slowdown");
  EXPECT_EQ(Fake(args + " --out-dir " + Path("o3") + " --allowed_slowdown 0.05",
                 {"FAKE_AB_SLOWDOWN=0.02"})
                .exit_code,
            0);
  CliResult broken = Fake(args + " --out-dir " + Path("o4"),
                          {"FAKE_AB_FAIL_KEY=fake.a attention_fwd{B=1,H=1,S=17,D=64,fp16}"});
  EXPECT_EQ(broken.exit_code, 1);
  EXPECT_HAS(broken.out,
             "[correctness] fake.a attention_fwd{B=1,H=1,S=17,D=64,fp16}: the new "
             "side failed verification");
}

// The recipe of docs/gating.md on a small repository: each commit "builds" its plugin by copying
// plugin.txt (the stand-in worker reads its slowdown from it); commit 2 does not build, commit 3
// builds a plugin that crashes while loading, commit 5 is the first 2 % slower.
TEST_F(CliAb, GitBisectRunFindsTheFirstSlowCommitAndSkipsTheUntestable) {
  const std::string step =
      std::string(FLASHSCOPE_TEST_SOURCE_DIR) + "/examples/attention-plugin/bisect-step.sh";
  Suite(R"("fake.a")");
  std::string script =
      "set -e; git init -q repo; cd repo; git config user.email t@t; "
      "git config user.name t; cp ../suite.json .; ";
  const char* sources[] = {"slowdown=0",   "", "crash at load", "slowdown=0.001", "slowdown=0.02",
                           "slowdown=0.02"};
  for (int i = 0; i < 6; ++i) {
    script += std::string("rm -f plugin.txt; ") +
              (sources[i][0] != '\0' ? std::string("echo '") + sources[i] + "' > plugin.txt; "
                                     : std::string()) +
              "git add -A; git commit -qm c" + std::to_string(i + 1) + " --allow-empty; ";
  }
  script +=
      "git checkout -q HEAD~5; cp plugin.txt ../good.so; git checkout -q -; "
      "git bisect start HEAD HEAD~5 >/dev/null; "
      "BISECT_BUILD='cp plugin.txt plugin.so' BISECT_PLUGIN=plugin.so "
      "BISECT_OUT=../bisect git bisect run " +
      step + " ../good.so suite.json; git bisect log";
  const std::string cmd = "cd '" + dir_ + "' && env -u FLASHSCOPE_PLUGINS FLASHSCOPE_WORKER='" +
                          FLASHSCOPE_FAKE_WORKER + "' PATH='" + FLASHSCOPE_BIN_DIR +
                          "':\"$PATH\" bash -c \"" + script + "\" > out.txt 2>&1";
  const int rc = std::system(cmd.c_str());
  const std::string out = ReadText(Path("out.txt"));
  ASSERT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 0) << out;
  EXPECT_HAS(out, "is the first bad commit");
  EXPECT_HAS(out, "    c5\n");
  EXPECT_HAS(out, "# good: ");
  EXPECT_HAS(out, "c4");  // 0.1 % slower is within the allowance
}

}  // namespace
}  // namespace flashscope::cli::testing
