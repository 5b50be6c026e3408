// The phases every case path shares (runner/case_phases.h): their order, that the first phase
// that ends a case ends it, the suite's tolerance and how a failed workspace ends a case.
#include "runner/case_phases.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace flashscope::runner {
namespace {

// Records the phases it is asked for; `ends_in` names the phase that ends the case.
class Recorder : public CasePhases {
 public:
  explicit Recorder(std::string ends_in) : ends_in_(std::move(ends_in)) {}
  bool Supports() override { return Step("supports"); }
  bool Inputs() override { return Step("inputs"); }
  bool Prepare() override { return Step("prepare"); }
  bool Verify() override { return Step("verify"); }
  bool Measure() override { return Step("measure"); }
  void Complete() override { Step("complete"); }
  std::vector<std::string> seen;

 private:
  bool Step(const std::string& name) {
    seen.push_back(name);
    return name != ends_in_;
  }
  std::string ends_in_;
};

TEST(CasePhases, RunInOrderUntilOneEndsTheCase) {
  Recorder all("");
  EXPECT_TRUE(RunCasePhases(all));
  EXPECT_EQ(all.seen, (std::vector<std::string>{"supports", "inputs", "prepare", "verify",
                                                "measure", "complete"}));
  Recorder skipped("supports");
  EXPECT_FALSE(RunCasePhases(skipped));
  EXPECT_EQ(skipped.seen, (std::vector<std::string>{"supports"}));
  Recorder failed_launch("verify");
  EXPECT_FALSE(RunCasePhases(failed_launch));
  EXPECT_EQ(failed_launch.seen.back(), "verify");
  Recorder timing_error("measure");
  EXPECT_FALSE(RunCasePhases(timing_error));
  EXPECT_EQ(timing_error.seen.size(), 5u) << "no verdict after a failed measurement";
}

TEST(CasePhases, ToleranceIsTheDefaultWithTheSuitesOverrides) {
  const Problem p = AttentionShape(1, 1, 64, 64, 64, DType::kF16);
  suites::VerifySpec spec;
  const verify::TolerancePolicy d = verify::DefaultTolerance(Family::kAttentionFwd, DType::kF16);
  EXPECT_DOUBLE_EQ(ToleranceFor(p, spec).atol, d.atol);
  spec.rtol = 0.5;
  const verify::TolerancePolicy t = ToleranceFor(p, spec);
  EXPECT_DOUBLE_EQ(t.rtol, 0.5);
  EXPECT_DOUBLE_EQ(t.atol, d.atol) << "only what the suite sets changes";
}

TEST(CasePhases, AWorkspaceTooLargeIsSkippedAnyOtherFailureIsAnError) {
  const Ending big = InputsEnding(absl::ResourceExhaustedError("needs 90 GiB, 80 free"));
  EXPECT_EQ(big.status, reports::CaseStatus::kSkipped);
  EXPECT_EQ(big.reason, "needs 90 GiB, 80 free");
  const Ending bad = InputsEnding(absl::InternalError("cudaMalloc: out of memory"));
  EXPECT_EQ(bad.status, reports::CaseStatus::kError);
  EXPECT_EQ(bad.reason, "inputs/reference: cudaMalloc: out of memory");
}

}  // namespace
}  // namespace flashscope::runner
