// The plan a journal holds (reports/plan.h) and the provenance every case carries
// (reports/provenance.h): JSON both ways and strict, the differences a resume is refused for,
// the report of a journal matched by key, and what show / compare / HTML say of provenance.
#include "reports/plan.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "analysis/compare.h"
#include "common/problem_params.h"
#include "common/tests/expect_has.h"
#include "render/render_html.h"
#include "render/render_terminal.h"
#include "reports/journal.h"
#include "reports/provenance.h"
#include "reports/report_json.h"
#include "reports/tests/sample_reports.h"

namespace flashscope::reports {
namespace {

ProvenanceRecord Plugin(const std::string& version, char hash) {
  return {false, "my-attention", version, "/opt/k/libmy.so", std::string(64, hash)};
}

PlanRecord SamplePlan() {
  PlanRecord p;
  p.suite_path = "suites/smoke.json";
  p.suite_sha256 = std::string(64, 'e');
  p.kernels_filter = "attn.*,my.*";
  p.shard = "1/2";
  p.plugins = {{true, "built-in", "abc123", "", ""}, Plugin("1.0", '1')};
  p.lost_plugins = {{"/x/libcrash.so", "plugin /x/libcrash.so crashed while loading: signal 11"}};
  KernelInfo ours;
  ours.id = "attn.a01_scalar";
  ours.revision = 1;
  ours.title = "Scalar";
  KernelInfo theirs;
  theirs.id = "my.attn_v2";
  theirs.family = Family::kGemm;
  theirs.idempotent = false;
  theirs.tile = {128, 64, 32, 256};
  p.kernels = {{ours, 0}, {theirs, 1}};
  AttentionProblem a;
  a.seq_q = 17, a.seq_k = 40, a.causal = true, a.want_lse = true, a.dtype = DType::kBF16;
  const Problem g = GemmProblem{64, 32, 16, DType::kF16};
  p.cases = {{0, "attn.a01_scalar " + ProblemKey(a), "attn.a01_scalar", a, ""},
             {1, "my.attn_v2 " + ProblemKey(g), "my.attn_v2", g, ""},
             {2, "crash.k " + ProblemKey(a), "crash.k", a, "plugin /x/libcrash.so crashed"}};
  return p;
}

TEST(Plan, JsonRoundTripKeepsEverything) {
  const PlanRecord p = SamplePlan();
  auto back = PlanFromJson(PlanToJson(p));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(PlanDifference(p, *back), "");
  EXPECT_EQ(back->suite_sha256, p.suite_sha256);
  ASSERT_EQ(back->kernels.size(), 2u);
  EXPECT_EQ(back->kernels[1].info.family, Family::kGemm);
  EXPECT_FALSE(back->kernels[1].info.idempotent);
  EXPECT_EQ(back->kernels[1].info.tile.threads, 256);
  EXPECT_EQ(back->kernels[1].plugin, 1);
  EXPECT_EQ(ProblemKey(back->cases[0].problem), ProblemKey(p.cases[0].problem));
  EXPECT_EQ(back->cases[2].error, p.cases[2].error);
  EXPECT_EQ(back->lost_plugins[0].reason, p.lost_plugins[0].reason);
  ASSERT_NE(back->ProvenanceOf("my.attn_v2"), nullptr);
  EXPECT_EQ(*back->ProvenanceOf("my.attn_v2"), p.plugins[1]);
  EXPECT_EQ(back->ProvenanceOf("crash.k"), nullptr);
}

TEST(Plan, ProblemsSurviveTheirParams) {
  AttentionProblem a;
  a.batch = 3, a.heads = 5, a.seq_q = 17, a.seq_k = 4096, a.head_dim = 128;
  a.dtype = DType::kBF16, a.causal = true, a.want_lse = true;
  AttentionProblem fp8 = a;
  fp8.dtype = DType::kE4M3;
  for (const Problem& p : {Problem{a}, Problem{GemmProblem{1000, 17, 333, DType::kF32}},
                           Problem{fp8}, Problem{GemmProblem{64, 64, 64, DType::kE4M3}}}) {
    std::string why;
    auto back = ProblemFromParams(FamilyOf(p), ProblemParams(p), &why);
    ASSERT_TRUE(back.has_value()) << why;
    EXPECT_EQ(ProblemKey(*back), ProblemKey(p));
  }
  EXPECT_EQ(ProblemParams(Problem{fp8}).at("dtype"), "e4m3") << "e4m3 in records and keys";
  EXPECT_NE(ProblemKey(Problem{fp8}).find(",e4m3"), std::string::npos) << ProblemKey(Problem{fp8});
  auto params = ProblemParams(Problem{a});
  params["X"] = "1";
  std::string why;
  EXPECT_FALSE(ProblemFromParams(Family::kAttentionFwd, params, &why).has_value());
  EXPECT_EQ(why, "unexpected keys beside the 8 of attention_fwd");
  params = ProblemParams(Problem{a});
  params.erase("Sk");
  EXPECT_FALSE(ProblemFromParams(Family::kAttentionFwd, params, &why).has_value());
  EXPECT_EQ(why, "missing \"Sk\"");
  params = ProblemParams(Problem{a});
  params["causal"] = "1";
  EXPECT_FALSE(ProblemFromParams(Family::kAttentionFwd, params, &why).has_value());
  EXPECT_EQ(why, "\"causal\": bad value \"1\"");
}

TEST(Plan, ReadingIsStrictAndNamesTheField) {
  nlohmann::json j = PlanToJson(SamplePlan());
  j["cases"][1]["key"] = "my.attn_v2 gemm{M=1}";
  auto bad_key = PlanFromJson(j);
  ASSERT_FALSE(bad_key.ok());
  EXPECT_HAS(bad_key.status().message(), "cases[1].key");
  j = PlanToJson(SamplePlan());
  j["cases"][0]["problem"]["D"] = "-4";
  auto bad_problem = PlanFromJson(j);
  ASSERT_FALSE(bad_problem.ok());
  EXPECT_HAS(bad_problem.status().message(), "cases[0].problem: \"D\": bad value \"-4\"");
  j = PlanToJson(SamplePlan());
  j["kernels"][1]["plugin"] = 7;
  auto bad_plugin = PlanFromJson(j);
  ASSERT_FALSE(bad_plugin.ok());
  EXPECT_HAS(bad_plugin.status().message(), "kernels[1].plugin: no plugin 7");
}

TEST(Plan, DifferencesAreSaidInWords) {
  const PlanRecord before = SamplePlan();
  PlanRecord now = before;
  now.kernels_filter = "attn.*";
  EXPECT_EQ(PlanDifference(before, now),
            "the kernel filter (--kernels) was 'attn.*,my.*', now 'attn.*'");
  now = before;
  now.shard = "";
  EXPECT_EQ(PlanDifference(before, now), "the shard (--shard) was '1/2', now (none)");
  now = before;
  now.suite_sha256 = std::string(64, 'f');
  EXPECT_HAS(PlanDifference(before, now), "changed since the run was planned");
  now = before;
  now.plugins[1] = Plugin("1.1", '2');
  EXPECT_HAS(PlanDifference(before, now),
             "plugin /opt/k/libmy.so changed since the run was planned (my-attention 1.0");
  now = before;
  now.plugins[0].version = "def456";
  EXPECT_HAS(PlanDifference(before, now),
             "the built-in kernels were flashscope abc123, now def456");
  now = before;
  now.cases.pop_back();
  EXPECT_EQ(PlanDifference(before, now), "the plan had 3 cases, now 2");
  now = before;
  std::swap(now.cases[0].key, now.cases[1].key);
  EXPECT_HAS(PlanDifference(before, now), "case 0 was 'attn.a01_scalar");
}

CaseResult Result(const PlannedCaseRecord& c, CaseStatus status) {
  const size_t space = c.key.find(' ');
  return testing::SimpleCase(c.key.substr(0, space), c.key.substr(space + 1), status, 1.0);
}

TEST(Plan, JournalReportFollowsThePlanByKey) {
  const std::string path = testing::MakeTempDir() + "/run.jsonl";
  const PlanRecord plan = SamplePlan();
  PlannedCaseRecord stray = plan.cases[1];
  stray.key = "other.k " + ProblemKey(stray.problem);
  {
    auto w = JournalWriter::Open(path, /*append=*/false);
    ASSERT_TRUE(w.ok());
    SuiteRecord s;
    s.name = "smoke";
    ASSERT_TRUE(w->WriteHeader(s, "flashscope run smoke", "t0", &plan).ok());
    // Written out of order, one under a stale index, and one the plan does not have.
    ASSERT_TRUE(w->CaseFinished(9, Result(plan.cases[1], CaseStatus::kPassed)).ok());
    ASSERT_TRUE(w->CaseStarted(0, plan.cases[0].key).ok());
    ASSERT_TRUE(w->CaseFinished(4, Result(stray, CaseStatus::kPassed)).ok());
  }
  auto j = ReadJournal(path);
  ASSERT_TRUE(j.ok()) << j.status();
  ASSERT_TRUE(j->plan.has_value());
  EXPECT_EQ(j->MissingKeys(), (std::vector<std::string>{plan.cases[0].key, plan.cases[2].key}));
  EXPECT_EQ(j->UnplannedKeys(), std::vector<std::string>{stray.key});
  const Report r = ReportFromJournal(*j);
  ASSERT_EQ(r.cases.size(), 2u) << "the died-in case and the finished one, in plan order";
  EXPECT_EQ(r.cases[0].Key(), plan.cases[0].key);
  EXPECT_EQ(r.cases[0].status, CaseStatus::kError);
  EXPECT_EQ(r.cases[1].Key(), plan.cases[1].key);
}

// Reports written before provenance existed read as before and say nothing of it; the
// ones written since name the source of every case, and the summary names the plugins
// exactly when a case came from one.
TEST(Provenance, CommittedReportsSayWhereKernelsCameFromOnlyWhenTheyKnow) {
  int without = 0, with = 0;
  for (const auto& e : std::filesystem::directory_iterator(FS_REPORTS_RUNS)) {
    if (e.path().extension() != ".json") continue;
    std::ifstream in(e.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto r = ReadReportFile(e.path().string());
    ASSERT_TRUE(r.ok()) << e.path() << ": " << r.status();
    const bool recorded = text.find("\"provenance\"") != std::string::npos;
    for (const auto& c : r->cases) EXPECT_EQ(c.provenance.has_value(), recorded) << e.path();
    const bool from_plugins = !PluginsOf(*r).empty();
    if (!recorded) EXPECT_FALSE(from_plugins) << e.path();
    EXPECT_EQ(RenderSummary(*r, false).find("kernels from") != std::string::npos, from_plugins)
        << e.path();
    ++(recorded ? with : without);
  }
  EXPECT_GT(without, 5);
  EXPECT_GT(with, 0);
}

TEST(Provenance, ShowCompareAndHtmlSayWhereKernelsCameFrom) {
  Report base;
  base.environment = testing::SyntheticEnvironment();
  base.cases = {testing::SimpleCase("attn.a01_scalar", "p1", CaseStatus::kPassed, 1.0),
                testing::SimpleCase("my.attn_v2", "p1", CaseStatus::kPassed, 1.0),
                testing::SimpleCase("my.attn_v2", "p2", CaseStatus::kPassed, 1.0)};
  base.cases[0].provenance = ProvenanceRecord{true, "built-in", "abc123", "", ""};
  base.cases[1].provenance = base.cases[2].provenance = Plugin("1.0", '1');
  const std::string summary = RenderSummary(base, false);
  EXPECT_HAS(summary, "kernels from built-in (flashscope abc123): 1 case\n");
  EXPECT_HAS(summary,
             "kernels from my-attention 1.0 (/opt/k/libmy.so, sha256 111111111111...): "
             "2 cases\n");
  EXPECT_HAS(RenderReportHtml(base), std::string(64, '1'));

  Report next = base;
  next.cases[1].provenance = next.cases[2].provenance = Plugin("1.1", '2');
  const Comparison c = Compare(base, next);
  const std::string text = RenderComparison(c, false);
  EXPECT_HAS(text,
             "kernels from another build:\n  my.attn_v2: my-attention 1.0 (sha256 "
             "111111111111...) -> my-attention 1.1 (sha256 222222222222...)\n");
  EXPECT_EQ(text.find("attn.a01_scalar: built-in"), std::string::npos);
  EXPECT_HAS(RenderComparisonHtml(c, nullptr), "Kernels from another build");
  EXPECT_EQ(ProvenanceChange(base.cases[0], next.cases[0]), "");
}

}  // namespace
}  // namespace flashscope::reports
