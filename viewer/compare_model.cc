#include "viewer/compare_model.h"

#include <algorithm>
#include <cmath>

#include "viewer/results_model.h"

namespace flashscope::viewer {
namespace {

struct ColumnText {
  const char* name;
  const char* help;
};

constexpr ColumnText kColumns[] = {
    {"Kernel", "The kernel's id"},
    {"Problem", "The problem's key"},
    {"Status", "Base status, and the new one when it changed"},
    {"Base ms", "Median time in the base report (the first report given)"},
    {"New ms", "Median time in the new report"},
    {"Delta", "Change of the median, (new - base) / base"},
    {"p",
     "Mann-Whitney U p-value of the raw samples: how likely a difference this large is by "
     "chance"},
    {"Verdict", "faster / slower / same / ambiguous / not timed, as `flashscope gate` decides"},
    {"Gate",
     "The gate's decision on this case: pass, or the rules it failed (hover for why), as "
     "`flashscope gate` prints them"},
    {"Rule",
     "What decided the verdict, with its numbers: the test, or the effect when samples are "
     "few"},
};

static_assert(sizeof kColumns / sizeof kColumns[0] == size_t(CompareColumn::kCount),
              "one name and help text per column");

// Lower sorts first: the pairs that need attention.
int Severity(const reports::PairSummary& p) { return int(p.tone) * 8 + int(p.verdict); }

double Number(const reports::PairSummary& p, CompareColumn c) {
  switch (c) {
    case CompareColumn::kBaseMs:
      return p.base_median.value;
    case CompareColumn::kNextMs:
      return p.next_median.value;
    case CompareColumn::kDelta:
      return p.delta_pct.value;
    case CompareColumn::kPValue:
      return p.p_value.value;
    default:
      return std::nan("");
  }
}

int CompareBy(const reports::PairSummary& a, const reports::PairSummary& b, CompareColumn c) {
  switch (c) {
    case CompareColumn::kKernel:
      return a.kernel_id.compare(b.kernel_id);
    case CompareColumn::kProblem:
      return a.problem_key.compare(b.problem_key);
    case CompareColumn::kStatus:
      return a.StatusText("->").compare(b.StatusText("->"));
    case CompareColumn::kVerdict:
      return Severity(a) - Severity(b);
    case CompareColumn::kRule:
      return a.verdict_reason.compare(b.verdict_reason);
    case CompareColumn::kGate:
      return int(b.gate_failures.size()) - int(a.gate_failures.size());
    default:
      break;
  }
  const double x = Number(a, c), y = Number(b, c);
  return x < y ? -1 : x > y ? 1 : 0;
}

bool IsNumeric(CompareColumn c) {
  return c == CompareColumn::kBaseMs || c == CompareColumn::kNextMs || c == CompareColumn::kDelta ||
         c == CompareColumn::kPValue;
}

}  // namespace

const char* CompareColumnName(CompareColumn c) {
  const int i = int(c);
  return i >= 0 && i < int(CompareColumn::kCount) ? kColumns[i].name : "?";
}

const char* CompareColumnHelp(CompareColumn c) {
  const int i = int(c);
  return i >= 0 && i < int(CompareColumn::kCount) ? kColumns[i].help : "";
}

bool CompareFilter::operator==(const CompareFilter& o) const {
  return text == o.text && std::equal(show_verdict, show_verdict + 5, o.show_verdict) &&
         changes_only == o.changes_only && gate_failures_only == o.gate_failures_only;
}

bool PairMatches(const reports::PairSummary& p, const CompareFilter& f) {
  const int v = int(p.verdict);
  if (v >= 0 && v < 5 && !f.show_verdict[v]) return false;
  if (f.gate_failures_only && p.gate != reports::GateMark::kFail) return false;
  if (f.changes_only && !p.status_changed && p.tone == reports::Tone::kNeutral) return false;
  return WordsMatch(p.key + " " + VerdictName(p.verdict), f.text);
}

std::vector<int> FilterAndSortPairs(const reports::ComparisonSummary& summary,
                                    const CompareFilter& filter,
                                    const std::vector<CompareSortKey>& keys) {
  std::vector<int> idx;
  for (size_t i = 0; i < summary.pairs.size(); ++i) {
    if (PairMatches(summary.pairs[i], filter)) idx.push_back(int(i));
  }
  auto less = [&](int ia, int ib) {
    const reports::PairSummary& a = summary.pairs[size_t(ia)];
    const reports::PairSummary& b = summary.pairs[size_t(ib)];
    for (const CompareSortKey& k : keys) {
      if (IsNumeric(k.column)) {
        const bool ha = !std::isnan(Number(a, k.column)), hb = !std::isnan(Number(b, k.column));
        if (ha != hb) return ha;  // present values first, whatever the direction
      }
      int cmp = CompareBy(a, b, k.column);
      if (k.descending) cmp = -cmp;
      if (cmp != 0) return cmp < 0;
    }
    return false;
  };
  std::stable_sort(idx.begin(), idx.end(), less);
  return idx;
}

const ComparedReports& CompareCache::Get(std::shared_ptr<const reports::Report> base,
                                         uint64_t base_gen,
                                         std::shared_ptr<const reports::Report> next,
                                         uint64_t next_gen, const reports::GatePolicy& policy) {
  if (data_ && base_gen == base_gen_ && next_gen == next_gen_ && policy.source == policy_source_) {
    return *data_;
  }
  // Built in place and never moved: the comparison points into the reports, the summary into the
  // comparison and the gate.
  auto d = std::make_unique<ComparedReports>();
  d->base = std::move(base);
  d->next = std::move(next);
  d->policy = policy;
  d->comparison = reports::Compare(*d->base, *d->next, policy.ToCompareOptions(/*forced=*/true));
  d->gate = reports::ApplyGate(d->comparison, policy);
  d->summary = reports::SummarizeComparison(d->comparison, &d->gate);
  data_ = std::move(d);
  base_gen_ = base_gen;
  next_gen_ = next_gen;
  policy_source_ = policy.source;
  ++rebuilds_;
  return *data_;
}

}  // namespace flashscope::viewer
