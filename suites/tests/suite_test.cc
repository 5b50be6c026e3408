#include "suites/suite.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "common/closest_names.h"

namespace flashscope::suites {
namespace {

std::string Minimal(const std::string& extra) {
  return R"({"name": "t", "kernels": ["attn.*"], "problems": [)"
         R"({"family": "attention_fwd", "axes": {"seq": 17}}])" +
         extra + "}";
}

std::string ErrorOf(const std::string& text) {
  auto s = ParseSuite(text, "x.json");
  EXPECT_FALSE(s.ok()) << text;
  return s.ok() ? "" : std::string(s.status().message());
}

TEST(SuiteTest, PluginsAreRelativeToTheSuiteFileUnlessBare) {
  auto s = ParseSuite(Minimal(R"(, "plugins": ["./libmine.so", "../lib/x.so", "/abs/y.so",
                                               "fs_test_kernels"])"),
                      "suites/mine/suite.json");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->plugins, (std::vector<std::string>{"suites/mine/libmine.so", "suites/lib/x.so",
                                                  "/abs/y.so", "fs_test_kernels"}));
  // A suite file named without a folder (run from its own folder): "./x.so" and "./mod.py" stay
  // paths, to that folder, instead of becoming bare names looked up among installed plugins.
  auto here = ParseSuite(
      Minimal(R"(, "plugins": ["./x.so", "./mod.py", "sub/../y.so", "sub/z.so", "bare"])"),
      "plug.json");
  ASSERT_TRUE(here.ok()) << here.status();
  EXPECT_EQ(here->plugins,
            (std::vector<std::string>{"./x.so", "./mod.py", "./y.so", "sub/z.so", "bare"}));
  EXPECT_NE(ErrorOf(Minimal(R"(, "plugins": "x.so")")).find("suite.plugins: expected a list"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Minimal(R"(, "plugins": [""])")).find("suite.plugins[0]"), std::string::npos);
  auto faults =
      LoadSuiteFile(std::string(FLASHSCOPE_TEST_SOURCE_DIR) + "/suites/testing/faults.json");
  ASSERT_TRUE(faults.ok()) << faults.status();
  EXPECT_EQ(faults->plugins, std::vector<std::string>{"fs_test_kernels"});
}

TEST(SuiteTest, CommittedSuitesParseWithExpectedGrids) {
  auto smoke = LoadSuiteFile(std::string(FLASHSCOPE_TEST_SOURCE_DIR) + "/suites/smoke.json");
  ASSERT_TRUE(smoke.ok()) << smoke.status();
  EXPECT_EQ(smoke->name, "smoke");
  // 2 dtypes x 2 dims x 2 causal x 4 lengths, the same for Sq x Sk, 3 x 2 x 2 x 2 odd gemms and
  // 2 x 2 x 1 x 2 TMA-describable ones, then E4M3 attention: 3 dims x 2 causal x 4 lengths and
  // 3 x 2 x 2 x 2 Sq x Sk.
  EXPECT_EQ(smoke->problems.size(), 32u + 32u + 24u + 8u + 24u + 24u);
  const auto& fp8 = std::get<AttentionProblem>(smoke->problems[96 + 24 + 23]);
  EXPECT_EQ(ProblemKey(fp8), "attention_fwd{B=1,H=2,Sq=1000,Sk=17,D=256,e4m3,causal,lse}");
  const auto& bf16_gemm = std::get<GemmProblem>(smoke->problems[64 + 16]);
  EXPECT_EQ(ProblemKey(bf16_gemm), "gemm{M=1,N=17,K=17,bf16}");
  auto gemm_ladder =
      LoadSuiteFile(std::string(FLASHSCOPE_TEST_SOURCE_DIR) + "/suites/gemm_ladder.json");
  ASSERT_TRUE(gemm_ladder.ok()) << gemm_ladder.status();
  ASSERT_EQ(gemm_ladder->problems.size(), 12u);  // 6 shapes in fp16 and bf16
  EXPECT_EQ(ProblemKey(gemm_ladder->problems[4]), "gemm{M=1024,N=1024,K=1024,bf16}");
  auto ladder = LoadSuiteFile(std::string(FLASHSCOPE_TEST_SOURCE_DIR) + "/suites/ladder.json");
  ASSERT_TRUE(ladder.ok()) << ladder.status();
  ASSERT_EQ(ladder->problems.size(), 25u);
  const auto& seed = std::get<AttentionProblem>(ladder->problems[0]);
  EXPECT_EQ(ProblemKey(seed), "attention_fwd{B=4,H=12,S=2048,D=64,fp16,causal}");
  // tokens = 16384 at S = 512 gives B = 32.
  const auto& first = std::get<AttentionProblem>(ladder->problems[1]);
  EXPECT_EQ(first.batch, 32);
  EXPECT_EQ(first.seq_q, 512);
  EXPECT_EQ(ladder->metrics, "full");
  EXPECT_EQ(ladder->verify.heatmaps, "all");
  EXPECT_EQ(smoke->verify.heatmaps, "failed");
}

// suites/shapes.json is issue 27's target, exactly: per dtype, D 64/128/256 x S 512..8192 x causal
// (16k tokens), D x Sq 128/256/512 x Sk 4096/16384 x causal, and the seven GEMM shapes.
TEST(SuiteTest, ShapesSuiteHoldsIssue27sTargetExactly) {
  auto shapes = LoadSuiteFile(std::string(FLASHSCOPE_TEST_SOURCE_DIR) + "/suites/shapes.json");
  ASSERT_TRUE(shapes.ok()) << shapes.status();
  std::set<std::string> keys;
  for (const Problem& p : shapes->problems) keys.insert(ProblemKey(p));
  EXPECT_EQ(keys.size(), shapes->problems.size()) << "a problem is listed twice";
  EXPECT_EQ(shapes->problems.size(), 2u * (3 * 5 * 2 + 3 * 3 * 2 * 2 + 7));
  for (const char* dtype : {"bf16", "fp16"}) {
    const std::string t = dtype;
    for (const char* g : {"M=4096,N=4096,K=4096", "M=8192,N=8192,K=8192", "M=3000,N=3000,K=3000",
                          "M=5000,N=5000,K=5000", "M=6000,N=6000,K=6000", "M=16384,N=1024,K=4096",
                          "M=8192,N=8192,K=1024"}) {
      EXPECT_TRUE(keys.count("gemm{" + std::string(g) + "," + t + "}")) << g << " " << t;
    }
    EXPECT_TRUE(keys.count("attention_fwd{B=32,H=16,S=512,D=128," + t + ",causal}")) << t;
    EXPECT_TRUE(keys.count("attention_fwd{B=2,H=8,S=8192,D=256," + t + "}")) << t;
    EXPECT_TRUE(keys.count("attention_fwd{B=2,H=32,Sq=128,Sk=16384,D=64," + t + ",causal}")) << t;
    EXPECT_TRUE(keys.count("attention_fwd{B=2,H=8,Sq=512,Sk=4096,D=256," + t + "}")) << t;
  }
}

TEST(SuiteTest, DemoSuiteHoldsTheBugsBesideA10OnTwoCausalProblems) {
  auto demo = LoadSuiteFile(std::string(FLASHSCOPE_TEST_SOURCE_DIR) + "/suites/demo.json");
  ASSERT_TRUE(demo.ok()) << demo.status();
  EXPECT_EQ(demo->name, "demo");
  ASSERT_EQ(demo->kernel_patterns.size(), 7u);
  EXPECT_EQ(demo->kernel_patterns[0], "attn.a10_fa2");
  ASSERT_EQ(demo->problems.size(), 2u);
  EXPECT_EQ(ProblemKey(demo->problems[0]), "attention_fwd{B=2,H=4,S=255,D=64,bf16,causal}");
  EXPECT_EQ(ProblemKey(demo->problems[1]),
            "attention_fwd{B=2,H=4,Sq=255,Sk=16383,D=64,fp16,causal}");
  // Failing cases carry full-resolution maps; a10's passing ones small maps to compare with.
  EXPECT_EQ(demo->verify.heatmaps, "all");
  EXPECT_EQ(demo->metrics, "");
}

TEST(SuiteTest, GridNestsLastAxisFastestAndKeepsDefaults) {
  auto s = ParseSuite(R"({"name": "g", "kernels": ["attn.*"], "problems": [{"family":
      "attention_fwd", "axes": {"dtype": ["fp16", "bf16"], "seq": [1, 17], "causal": true}}]})",
                      "g.json");
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->problems.size(), 4u);
  auto p = [&](int i) { return std::get<AttentionProblem>(s->problems[i]); };
  EXPECT_EQ(p(0).dtype, DType::kF16);
  EXPECT_EQ(p(0).seq_q, 1);
  EXPECT_EQ(p(1).seq_q, 17);
  EXPECT_EQ(p(2).dtype, DType::kBF16);
  EXPECT_TRUE(p(3).causal);
  EXPECT_EQ(p(3).head_dim, 64);
  EXPECT_EQ(s->timing.min_samples, 10);
  EXPECT_EQ(s->verify.reference, "fp32");
}

TEST(SuiteTest, GemmSizeAxis) {
  auto s = ParseSuite(R"({"name": "g", "kernels": ["gemm.*"], "problems": [{"family": "gemm",
      "axes": {"size": [17, 64], "dtype": "fp16"}}]})",
                      "g.json");
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->problems.size(), 2u);
  EXPECT_EQ(ProblemKey(s->problems[1]), "gemm{M=64,N=64,K=64,fp16}");
}

TEST(SuiteTest, MalformedJsonNamesFileAndPosition) {
  std::string e = ErrorOf("{\"name\": \"t\",");
  // Line and column, as every reader of flashscope's files gives them (reports/json_strict.h).
  EXPECT_EQ(e.rfind("x.json:1:14: not valid JSON: syntax error", 0), 0u) << e;
  EXPECT_NE(e.find("expected a suite file"), std::string::npos) << e;
}

TEST(SuiteTest, ErrorsNameThePathAndTheFix) {
  struct Case {
    std::string text;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"[]", "suite: expected a JSON object"},
      {Minimal(R"(, "warmpu": 3)"), "suite: unknown key 'warmpu'"},
      {R"({"kernels": ["a"], "problems": []})", "suite.name: a suite needs a non-empty"},
      {R"({"name": "t", "kernels": [], "problems": []})", "suite.kernels: needs a non-empty"},
      {R"({"name": "t", "kernels": ["a"], "problems": []})", "suite.problems: needs a non-empty"},
      {R"({"name": "t", "kernels": ["a"], "problems": [{"family": "conv", "axes": {}}]})",
       "suite.problems[0].family: unknown family 'conv'"},
      {R"({"name": "t", "kernels": ["a"], "problems": [{"family": "attention_fwd",
          "axes": {"seq": 8, "dtype": ["fp16", "fp6"]}}]})",
       "unknown dtype \"fp6\" (expected one of fp16, bf16, e4m3, fp32)"},
      {R"({"name": "t", "kernels": ["a"], "problems": [{"family": "attention_fwd",
          "axes": {"head_dim": 64}}]})",
       "needs seq, or both seq_q and seq_k"},
      {R"({"name": "t", "kernels": ["a"], "problems": [{"family": "attention_fwd",
          "axes": {"seq": 1000, "tokens": 16384}}]})",
       "tokens 16384 is not a multiple of the sequence length 1000"},
      {R"({"name": "t", "kernels": ["a"], "problems": [{"family": "attention_fwd",
          "axes": {"seq": [0]}}]})",
       "suite.problems[0].axes.seq: expected a positive integer, got 0"},
      {R"({"name": "t", "kernels": ["a"], "problems": [{"family": "attention_fwd",
          "axes": {"seq": 4, "heads": []}}]})",
       "suite.problems[0].axes.heads: an axis needs at least one value"},
      {R"({"name": "t", "kernels": ["a"], "problems": [{"family": "gemm",
          "axes": {"m": 4, "n": 4}}]})",
       "needs size, or all of m, n and k"},
      {R"({"name": "t", "kernels": ["a"], "problems": [{"family": "gemm",
          "axes": {"size": 4, "dtype": "e5m2"}}]})",
       "unknown dtype \"e5m2\" (expected one of fp16, bf16, e4m3, fp32)"},
      {Minimal(R"(, "timing": {"min_samples": 10, "max_samples": 5})"),
       "needs 1 <= min_samples <= max_samples"},
      {Minimal(R"(, "timing": {"warmup": "three"})"),
       "suite.timing.warmup: expected an integer, got string"},
      {Minimal(R"(, "verify": {"reference": "fp16"})"),
       "'fp16' is not a reference precision (expected fp32 or fp64)"},
      {Minimal(R"(, "input": {"kind": 3})"), "suite.input.kind: expected a string"},
      {Minimal(R"(, "verify": {"heatmaps": "some"})"),
       "'some' is not a heatmap policy (expected failed, all or none)"},
      {Minimal(R"(, "verify": {"heatmap_side": 0})"), "heatmap_side: must be between 1 and 256"},
  };
  for (const auto& c : cases) {
    std::string e = ErrorOf(c.text);
    EXPECT_NE(e.find(c.expected), std::string::npos) << "got: " << e << "\nwant: " << c.expected;
    EXPECT_EQ(e.rfind("x.json: ", 0), 0u) << e;
  }
}

TEST(SuiteTest, TrustChecksAreOnUnlessSwitchedOff) {
  auto plain = ParseSuite(Minimal(""), "x.json");
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_TRUE(plain->trust.off.empty());
  auto off = ParseSuite(Minimal(R"(, "trust": {"off": ["work", "streams"]})"), "x.json");
  ASSERT_TRUE(off.ok()) << off.status();
  EXPECT_EQ(off->trust.off, (std::vector<std::string>{"work", "streams"}));
  EXPECT_NE(ErrorOf(Minimal(R"(, "trust": {"off": ["verification"]})"))
                .find("suite.trust.off[0]: unknown check 'verification' (known: plausibility, "
                      "work, timed_outputs, streams)"),
            std::string::npos);
  // Input sets gave way to fresh inputs for every launch: the old key is refused, with the fix.
  EXPECT_NE(ErrorOf(Minimal(R"(, "trust": {"input_sets": 2})"))
                .find("suite.trust.input_sets: no longer read: every launch now reads inputs "
                      "generated fresh on the GPU"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Minimal(R"(, "trust": {"sets": 2})")).find("suite.trust: unknown key 'sets'"),
            std::string::npos);
  auto trust =
      LoadSuiteFile(std::string(FLASHSCOPE_TEST_SOURCE_DIR) + "/suites/testing/trust.json");
  ASSERT_TRUE(trust.ok()) << trust.status();
}

TEST(SuiteTest, ResolveSuitePathListsKnownSuites) {
  const std::string dir = std::string(FLASHSCOPE_TEST_SOURCE_DIR) + "/suites";
  auto ok = ResolveSuitePath("smoke", dir);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(std::filesystem::path(*ok).filename(), "smoke.json");
  auto missing = ResolveSuitePath("smokey", dir);
  ASSERT_FALSE(missing.ok());
  std::string m(missing.status().message());
  EXPECT_NE(m.find("no suite 'smokey'"), std::string::npos) << m;
  EXPECT_NE(m.find("ladder"), std::string::npos) << m;
  EXPECT_NE(m.find("smoke"), std::string::npos) << m;
  auto typo = ResolveSuitePath("laddr", dir);
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.status().message().find("did you mean 'ladder'?"), absl::string_view::npos)
      << typo.status();
  auto unreadable = LoadSuiteFile(dir + "/does-not-exist.json");
  EXPECT_TRUE(absl::IsNotFound(unreadable.status()));
}

TEST(ClosestNamesTest, RanksByEditDistance) {
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("", "abc"), 3u);
  EXPECT_EQ(EditDistance("same", "same"), 0u);
  auto c =
      ClosestNames("attn.a01_scalr", {"gemm.g01_naive", "attn.a01_scalar", "attn.a02_smem"}, 2);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0], "attn.a01_scalar");
}

TEST(ClosestNamesTest, DidYouMeanOnlyWhenClose) {
  EXPECT_EQ(DidYouMean("shwo", {"show", "gate", "run"}), "show");
  EXPECT_EQ(DidYouMean("pol", {"policy", "plugin"}), "policy");  // a unique prefix
  EXPECT_EQ(DidYouMean("zzzzzz", {"show", "gate"}), "");
  EXPECT_EQ(DidYouMean("", {"show"}), "");
}

}  // namespace
}  // namespace flashscope::suites
