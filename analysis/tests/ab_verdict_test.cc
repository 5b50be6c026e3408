// flashscope ab's verdicts (analysis/ab_verdict.h): the paired verdict rule, the pairing checks,
// the failure rules (slowdown, correctness in both directions, missing), the JSON and the
// terminal output, and the interleaving record through the report JSON.
#include "analysis/ab_verdict.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "reports/report_json.h"
#include "reports/tests/sample_reports.h"

namespace flashscope::reports {
namespace {

using ::testing::HasSubstr;
using testing::SimpleCase;

constexpr char kProblem[] = "attention_fwd{B=1,H=16,S=4096,D=128,bf16}";

// One side of an interleaved case: samples base·(1 + change)·wiggle, pair i's order from `order`.
CaseResult Side(const std::string& side, const std::vector<double>& samples,
                const std::string& order, CaseStatus status = CaseStatus::kPassed) {
  CaseResult c = SimpleCase("my.attn", kProblem, status, samples.empty() ? 1.0 : samples[0]);
  if (!c.timing) return c;
  c.timing->samples_ms = samples;
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  c.timing->median_ms = sorted[sorted.size() / 2];
  c.timing->interleaved = InterleavingRecord{side, 42, order, 0};
  return c;
}

// `n` pairs: base 1 ms with a small deterministic wiggle, new = base·(1 + change).
struct PairOfSides {
  CaseResult base, next;
};
PairOfSides Interleaved(int n, double change, CaseStatus next_status = CaseStatus::kPassed) {
  std::vector<double> b, x;
  std::string order;
  for (int i = 0; i < n; ++i) {
    const double wiggle = 1 + 0.002 * std::sin(1.7 * i);
    b.push_back(wiggle);
    x.push_back(wiggle * (1 + change) * (1 + 0.0005 * std::cos(2.3 * i)));
    order += i % 3 == 0 ? 'n' : 'b';
  }
  return {Side("base", b, order), Side("new", x, order, next_status)};
}

TEST(AbVerdict, PairedRuleSameSlowerFasterAmbiguous) {
  AbOptions o;
  PairedEvidence e;
  e.pairs = 30;
  e.test.n = 30;
  e.test.p_value = 1e-6;
  e.effect = 0.012, e.ci_low = 0.010, e.ci_high = 0.014;
  e.min_pair_change = 0.008, e.max_pair_change = 0.016;
  std::string why;
  bool by_effect = true;
  EXPECT_EQ(DecidePairedVerdict(e, o, &why, &by_effect), Verdict::kSlower);
  EXPECT_FALSE(by_effect);
  EXPECT_THAT(why, HasSubstr("p 1e-06 < 0.01, +1.20% [+1.00%, +1.40%] >= 0.5%"));
  e.effect = -0.012;
  EXPECT_EQ(DecidePairedVerdict(e, o, &why), Verdict::kFaster);
  e.effect = 0.003;  // significant but too small to matter
  EXPECT_EQ(DecidePairedVerdict(e, o, &why), Verdict::kSame);
  EXPECT_THAT(why, HasSubstr("+0.30%"));
  e.effect = 0.012, e.test.p_value = 0.2;
  EXPECT_EQ(DecidePairedVerdict(e, o, &why), Verdict::kAmbiguous);
  EXPECT_THAT(why, HasSubstr("p 0.2 >= 0.01"));
  e.pairs = 0;
  EXPECT_EQ(DecidePairedVerdict(e, o, &why), Verdict::kNotTimed);
}

TEST(AbVerdict, TooFewPairsAreJudgedByEveryPair) {
  AbOptions o;
  PairedEvidence e;
  e.pairs = e.test.n = 5;  // 2/32 >= 0.01: the test cannot reject
  e.test.p_value = 0.0625;
  e.effect = 0.02, e.ci_low = -INFINITY, e.ci_high = INFINITY;
  e.min_pair_change = 0.015, e.max_pair_change = 0.03;
  std::string why;
  bool by_effect = false;
  EXPECT_EQ(DecidePairedVerdict(e, o, &why, &by_effect), Verdict::kSlower);
  EXPECT_TRUE(by_effect);
  EXPECT_THAT(why, HasSubstr("5 pairs: too few for the test"));
  EXPECT_THAT(why, HasSubstr("every pair slower by >= 0.5%"));
  e.min_pair_change = -0.001;  // one pair disagrees
  EXPECT_EQ(DecidePairedVerdict(e, o, &why), Verdict::kAmbiguous);
  e.effect = 0.001;
  EXPECT_EQ(DecidePairedVerdict(e, o, &why), Verdict::kSame);
}

TEST(AbVerdict, EvidenceFromSamplesIsTheShiftOfTheLogRatios) {
  PairOfSides s = Interleaved(40, 0.02);
  PairedEvidence e = PairedEvidenceOf(s.base.timing->samples_ms, s.next.timing->samples_ms, 0.01);
  EXPECT_EQ(e.pairs, 40);
  EXPECT_NEAR(e.effect, 0.02, 0.001);
  EXPECT_LT(e.ci_low, e.effect);
  EXPECT_GT(e.ci_high, e.effect);
  EXPECT_NEAR(e.test.p_value, SignedRankMinP(40), 1e-15);  // every pair slower
}

TEST(AbVerdict, SlowdownBeyondTheAllowanceFails) {
  PairOfSides slow = Interleaved(30, 0.02);
  PairOfSides same = Interleaved(30, 0.0);
  Report base, next;
  base.cases = {slow.base, same.base};
  base.cases[1].problem_key = "other";
  next.cases = {slow.next, same.next};
  next.cases[1].problem_key = "other";
  AbComparison c = CompareAb(base, next, AbOptions{});
  ASSERT_EQ(c.pairs.size(), 2u);
  EXPECT_TRUE(c.pairs[0].compared);
  EXPECT_EQ(c.pairs[0].verdict, Verdict::kSlower);
  EXPECT_EQ(c.pairs[1].verdict, Verdict::kSame);
  AbResult r = JudgeAb(c);
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_EQ(r.failures[0].rule, "slowdown");
  EXPECT_EQ(r.ExitCode(), 1);
  // A wider allowance lets it pass.
  AbOptions wide;
  wide.allowed_slowdown = 0.05;
  EXPECT_TRUE(JudgeAb(CompareAb(base, next, wide)).passed());
  EXPECT_THAT(AbPairProgressLine(c.pairs[0]), HasSubstr("slower  +2.0"));
  EXPECT_THAT(AbPairProgressLine(c.pairs[0]), HasSubstr("30 pairs"));
}

TEST(AbVerdict, CorrectnessCountsOnlyWhenTheNewSideIsTheOneThatBroke) {
  auto judge = [](CaseStatus b, CaseStatus n) {
    Report base, next;
    base.cases = {SimpleCase("my.attn", kProblem, b, 1.0)};
    next.cases = {SimpleCase("my.attn", kProblem, n, 1.0)};
    return JudgeAb(CompareAb(base, next, AbOptions{}));
  };
  using S = CaseStatus;
  AbResult failed = judge(S::kPassed, S::kFailed);
  ASSERT_EQ(failed.failures.size(), 1u);
  EXPECT_EQ(failed.failures[0].rule, "correctness");
  EXPECT_THAT(failed.failures[0].message, HasSubstr("the new side failed verification"));
  EXPECT_EQ(judge(S::kPassed, S::kError).failures.size(), 1u);
  EXPECT_EQ(judge(S::kPassed, S::kTimeout).failures.size(), 1u);
  EXPECT_EQ(judge(S::kSkipped, S::kError).failures.size(), 1u);  // new crashed, base not run
  EXPECT_THAT(judge(S::kPassed, S::kSkipped).failures[0].message, HasSubstr("skipped where"));
  // The base side broke (the new side passed, or was not run because of it): no regression.
  EXPECT_TRUE(judge(S::kError, S::kPassed).passed());
  EXPECT_TRUE(judge(S::kError, S::kSkipped).passed());
  EXPECT_TRUE(judge(S::kFailed, S::kFailed).passed());
  EXPECT_TRUE(judge(S::kSkipped, S::kSkipped).passed());
}

TEST(AbVerdict, SidesNotTimedTogetherAreNotCompared) {
  PairOfSides s = Interleaved(20, 0.05);
  CaseResult alone = s.next;
  alone.timing->interleaved.reset();
  Report base, next;
  base.cases = {s.base};
  next.cases = {alone};
  AbComparison c = CompareAb(base, next, AbOptions{});
  EXPECT_FALSE(c.pairs[0].compared);
  EXPECT_EQ(c.pairs[0].verdict, Verdict::kNotTimed);
  EXPECT_THAT(c.pairs[0].note, HasSubstr("the new side was timed alone"));
  // Passed on both sides but not compared: not judged, which fails ab (issue 23: never "same").
  AbResult r = JudgeAb(c);
  EXPECT_FALSE(r.passed());
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_EQ(r.failures[0].rule, "not_judged");
  EXPECT_THAT(r.failures[0].message, HasSubstr("not compared: the new side was timed alone"));
  EXPECT_EQ(r.ExitCode(), 1);
  next.cases[0] = s.next;
  next.cases[0].timing->interleaved->order[0] = 'b';  // another session's pairs
  next.cases[0].timing->interleaved->order[1] = 'n';
  EXPECT_THAT(CompareAb(base, next, AbOptions{}).pairs[0].note, HasSubstr("not one set of pairs"));
  CaseResult untimed = s.base;
  untimed.timing.reset();  // the partner faulted before the timing
  base.cases = {untimed};
  EXPECT_THAT(AbPairProgressLine(CompareAb(base, next, AbOptions{}).pairs[0]),
              HasSubstr("not compared: no timing in base"));
}

TEST(AbVerdict, MissingAndNewCasesAndTheJson) {
  PairOfSides s = Interleaved(30, 0.01);
  Report base, next;
  base.cases = {s.base, SimpleCase("my.gone", kProblem, CaseStatus::kPassed, 1.0)};
  next.cases = {s.next, SimpleCase("my.fresh", kProblem, CaseStatus::kPassed, 1.0)};
  next.cases[0].provenance = ProvenanceRecord{false, "mine", "v2", "/x/new.so", "abc"};
  base.cases[0].resources = {ResourceRecord{"k", 96, 0, 0, 0, 128, 0.5}};
  next.cases[0].resources = {ResourceRecord{"k", 128, 0, 0, 0, 128, 0.5}};
  AbComparison c = CompareAb(base, next, AbOptions{});
  AbResult r = JudgeAb(c);
  ASSERT_EQ(r.failures.size(), 2u);
  EXPECT_EQ(r.failures[0].rule, "slowdown");
  EXPECT_EQ(r.failures[1].rule, "missing");
  nlohmann::json j = AbVerdictJson(c, r, "b.json", "n.json");
  EXPECT_EQ(j["schema"], "flashscope.ab_verdict");
  EXPECT_EQ(j["exit_code"], 1);
  EXPECT_EQ(j["new"], "n.json");
  EXPECT_EQ(j["counts"]["slower"], 1);
  EXPECT_EQ(j["counts"]["only_base"], 1);
  EXPECT_EQ(j["counts"]["only_new"], 1);
  EXPECT_EQ(j["only_new"][0], "my.fresh " + std::string(kProblem));
  const auto& k = j["cases"][0];
  EXPECT_EQ(k["verdict"], "slower");
  EXPECT_EQ(k["judged_by"], "test");
  EXPECT_EQ(k["pairs"], 30);
  EXPECT_NEAR(k["effect_pct"].get<double>(), 1.0, 0.1);
  EXPECT_EQ(k["test"], "exact (30 pairs)");
  EXPECT_THAT(k["new_plugin"].get<std::string>(), HasSubstr("mine v2 (/x/new.so"));
  // Why it is slower: what moved between the sides, said to be a correlation.
  EXPECT_THAT(k["explanation"].get<std::string>(), HasSubstr("registers 96 -> 128 (correlation"));
  const std::string text = RenderAbTerminal(c, r, /*color=*/false);
  EXPECT_THAT(text, HasSubstr("\nwhy my.attn"));
  EXPECT_THAT(text, HasSubstr("not collected on both sides; registers 96 -> 128"));
  EXPECT_THAT(text, HasSubstr("AB FAILED: 2 regressions"));
  EXPECT_THAT(text, HasSubstr("[missing] my.gone"));
  EXPECT_THAT(text, HasSubstr("only in new:  my.fresh"));
  EXPECT_THAT(text, HasSubstr("1 cases: 1 slower"));
  EXPECT_THAT(RenderAbTerminal(c, AbResult{}, false), HasSubstr("AB PASSED: no regression"));
}

TEST(AbVerdict, InterleavingRecordSurvivesTheReportJsonAndIsChecked) {
  PairOfSides s = Interleaved(4, 0.0);
  Report r;
  r.cases = {s.next};
  auto back = ReportFromJson(ToJson(r));
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_TRUE(back->cases[0].timing->interleaved);
  EXPECT_EQ(back->cases[0].timing->interleaved->order, s.next.timing->interleaved->order);
  EXPECT_EQ(back->cases[0].timing->interleaved->side, "new");
  nlohmann::json j = ToJson(r);
  j["cases"][0]["timing"]["interleaved"]["order"] = "bnx!";
  EXPECT_THAT(std::string(ReportFromJson(j).status().message()),
              HasSubstr("cases[0].timing.interleaved.order"));
  j["cases"][0]["timing"]["interleaved"]["order"] = "bn";
  EXPECT_THAT(std::string(ReportFromJson(j).status().message()), HasSubstr("2 pairs for 4"));
  j["cases"][0]["timing"]["interleaved"]["order"] = "bnbn";
  j["cases"][0]["timing"]["interleaved"]["side"] = "left";
  EXPECT_THAT(std::string(ReportFromJson(j).status().message()), HasSubstr("\"base\" or \"new\""));
}

}  // namespace
}  // namespace flashscope::reports
