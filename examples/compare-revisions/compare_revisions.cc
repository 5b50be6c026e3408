// compare-revisions REPORT BASE_KERNEL NEW_KERNEL: two kernels of one report compared problem by
// problem with flashscope's own statistics (Mann-Whitney U on the raw samples, a verdict per
// problem), e.g. `compare-revisions run.json example.attn_v1 example.attn_v2`.
// `flashscope compare` pairs cases by kernel id and problem, so it compares two runs of one
// kernel; here each side keeps one kernel's cases under a common id, so the problems pair up.
#include <cstdio>
#include <string>

#include "analysis/compare.h"
#include "render/render.h"
#include "reports/report_json.h"

namespace {

// The cases of `kernel_id`, renamed to `common_id` so that both sides pair up by problem.
flashscope::reports::Report CasesOf(const flashscope::reports::Report& report,
                                    const std::string& kernel_id, const std::string& common_id) {
  flashscope::reports::Report side = report;
  side.cases.clear();
  for (const auto& c : report.cases) {
    if (c.kernel_id != kernel_id) continue;
    side.cases.push_back(c);
    side.cases.back().kernel_id = common_id;
  }
  return side;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: compare-revisions REPORT BASE_KERNEL NEW_KERNEL\n");
    return 2;
  }
  auto report = flashscope::reports::ReadReportFile(argv[1]);
  if (!report.ok()) {
    std::fprintf(stderr, "compare-revisions: %s\n", std::string(report.status().message()).c_str());
    return 2;
  }
  const std::string common_id = std::string(argv[2]) + "->" + argv[3];
  const auto base = CasesOf(*report, argv[2], common_id);
  const auto next = CasesOf(*report, argv[3], common_id);
  for (const auto* side : {&base, &next}) {
    if (side->cases.empty()) {
      std::fprintf(stderr, "compare-revisions: no case of kernel '%s' in %s\n",
                   argv[side == &base ? 2 : 3], argv[1]);
      return 2;
    }
  }
  const auto comparison = flashscope::reports::Compare(base, next);
  std::printf("%s", flashscope::reports::RenderComparisonAs(flashscope::reports::Format::kTerminal,
                                                            comparison,
                                                            /*gate=*/nullptr, /*color=*/false)
                        .c_str());
  return 0;
}
