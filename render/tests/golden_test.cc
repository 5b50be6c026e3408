// Golden outputs of every printer on the committed reports (results/runs/, the committed baseline
// and reports/testdata/): what `flashscope render`, `compare` and `gate` print for them, kept in
// render/tests/golden/. Every rendering of every report keeps a digest (size, lines, FNV-1a 64),
// so that any change in it fails here; small reports also keep their whole rendering, so that a
// change shows as a diff in review. HTML pages are kept whole for two goldens only, a report's
// (with heatmaps) and a gated comparison's: every page shares one frame and stylesheet, and the
// others' pages are held by their digests. The goldens were made by the printers before they became
// renderers of the summary model (analysis/summary.h); a deliberate change is made visible by
//   FLASHSCOPE_UPDATE_GOLDEN=1 ctest -R render_golden_test
// and reviewed in the diff of render/tests/golden/.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "analysis/compare.h"
#include "analysis/gate.h"
#include "render/render.h"
#include "reports/report_json.h"
#include "reports/tests/sample_reports.h"

namespace flashscope::reports {
namespace {

const std::string kRoot = FLASHSCOPE_TEST_SOURCE_DIR;
const std::string kGoldenDir = kRoot + "/render/tests/golden/";

bool Updating() {
  const char* v = std::getenv("FLASHSCOPE_UPDATE_GOLDEN");
  return v != nullptr && std::string(v) == "1";
}

std::string ReadText(const std::string& path, bool* found) {
  std::ifstream in(path, std::ios::binary);
  *found = static_cast<bool>(in);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  ASSERT_TRUE(static_cast<bool>(out)) << "cannot write " << path;
}

uint64_t Fnv1a64(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string Digest(const std::string& text) {
  size_t lines = 0;
  for (char c : text) lines += c == '\n';
  return absl::StrFormat("%zu bytes, %zu lines, fnv1a64 %016x", text.size(), lines, Fnv1a64(text));
}

// Where two texts first differ, as "line N: expected ... / actual ...".
std::string FirstDifference(const std::string& want, const std::string& got) {
  std::vector<std::string> a = absl::StrSplit(want, '\n');
  std::vector<std::string> b = absl::StrSplit(got, '\n');
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    const std::string x = i < a.size() ? a[i] : "(end)";
    const std::string y = i < b.size() ? b[i] : "(end)";
    if (x != y) return absl::StrCat("line ", i + 1, ":\n  golden: ", x, "\n  now:    ", y);
  }
  return "same lines";
}

// One golden: a report, or a pair compared (and gated when `gate`), rendered in every format.
struct Golden {
  std::string name;
  std::vector<std::string> files;  // one report, or base and next
  bool gate = false;
  std::string policy;       // gate policy file, "" for the built-in defaults
  bool whole = true;        // keep whole renderings, else digests
  bool whole_html = false;  // with `whole`: keep the HTML page whole too
};

void PrintTo(const Golden& g, std::ostream* os) { *os << g.name; }

std::vector<Golden> Goldens() {
  const std::string r = "results/runs/";
  return {
      {"synthetic_example",
       {"reports/testdata/synthetic_example_report.json"},
       false,
       "",
       true,
       /*whole_html=*/true},
      {"faults_014618", {r + "20261122-014618-faults.json"}},
      {"faults_023615", {r + "20261122-023615-faults.json"}},
      {"faults_sanitize", {r + "20261122-023638-faults-sanitize-memcheck.json"}},
      {"torch_sdpa_025836", {r + "20261122-025836-torch-sdpa.json"}},
      {"gemm_ladder_001931", {r + "20261123-001931-gemm_ladder.json"}},
      {"gemm_ladder_082208", {r + "20261124-082208-gemm_ladder.json"}},
      {"torch_sdpa_015930", {r + "20261122-015930-torch-sdpa.json"}, false, "", false},
      {"smoke_014959", {r + "20261122-014959-smoke.json"}, false, "", false},
      {"smoke_023603", {r + "20261122-023603-smoke.json"}, false, "", false},
      {"ladder_015019", {r + "20261122-015019-ladder.json"}, false, "", false},
      {"ladder_231352", {r + "20261122-231352-ladder.json"}, false, "", false},
      {"ladder_a10_a11", {r + "20261122-025602-ladder-a10-a11.json"}, false, "", false},
      {"compare_faults", {r + "20261122-014618-faults.json", r + "20261122-023615-faults.json"}},
      {"gate_faults",
       {r + "20261122-014618-faults.json", r + "20261122-023615-faults.json"},
       true,
       "",
       true,
       /*whole_html=*/true},
      {"gate_torch_sdpa",
       {r + "20261122-015930-torch-sdpa.json", r + "20261122-025836-torch-sdpa.json"},
       true},
      {"gate_gemm_ladder",
       {r + "20261123-001931-gemm_ladder.json", r + "20261124-082208-gemm_ladder.json"},
       true},
      {"compare_smoke",
       {r + "20261122-014959-smoke.json", r + "20261122-023603-smoke.json"},
       false,
       "",
       false},
      {"gate_ladder",
       {r + "20261122-015019-ladder.json", r + "20261122-231352-ladder.json"},
       true,
       "",
       false},
      {"gate_ladder_baseline",
       {"results/baselines/nvidia-h200/ladder.json", r + "20261122-231352-ladder.json"},
       true,
       "results/baselines/policy.json",
       false},
  };
}

Report Load(const std::string& path) {
  absl::StatusOr<Report> r = ReadReportFile(reports::testing::CommittedReport(kRoot + "/" + path));
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *std::move(r) : Report{};
}

// format -> rendering, as the CLI prints them.
std::vector<std::pair<std::string, std::string>> Render(const Golden& g) {
  std::vector<std::pair<std::string, std::string>> out;
  if (g.files.size() == 1) {
    const Report report = Load(g.files[0]);
    for (const char* f : {"terminal", "markdown", "junit", "csv", "html"}) {
      out.emplace_back(f, RenderReportAs(*ParseFormat(f), report, /*color=*/false));
    }
    out.emplace_back("terminal-color", RenderReportAs(Format::kTerminal, report, true));
    return out;
  }
  const Report base = Load(g.files[0]);
  const Report next = Load(g.files[1]);
  GatePolicy policy;
  if (!g.policy.empty()) {
    absl::StatusOr<GatePolicy> p = ReadGatePolicyFile(kRoot + "/" + g.policy);
    EXPECT_TRUE(p.ok()) << p.status();
    if (p.ok()) policy = *p;
  }
  const Comparison c = Compare(base, next, policy.ToCompareOptions(false));
  const GateResult gate = ApplyGate(c, policy);
  const GateResult* judged = g.gate ? &gate : nullptr;
  for (const char* f : {"terminal", "markdown", "junit", "csv", "html"}) {
    out.emplace_back(f, RenderComparisonAs(*ParseFormat(f), c, judged, /*color=*/false));
  }
  out.emplace_back("terminal-color", RenderComparisonAs(Format::kTerminal, c, judged, true));
  if (g.gate) {
    out.emplace_back("gate-log", RenderGateLog(c, gate, false));
    out.emplace_back("gate-json",
                     GateVerdictJson(c, gate, policy, g.files[0], g.files[1]).dump(2) + "\n");
  }
  return out;
}

class GoldenTest : public ::testing::TestWithParam<Golden> {};

// Renderings name the files they read by the path they were given, which starts with the
// checkout's own folder: it is taken out so that a golden holds in every checkout (CI's clone too).
std::string WithoutCheckoutPath(const std::string& text) {
  return absl::StrReplaceAll(text, {{kRoot + "/", ""}});
}

// The stylesheet is one constant shared by every page: a whole HTML golden keeps the page without
// it (the digest holds it), so that a change of style shows once, in render_html.cc's diff.
std::string WithoutStylesheet(const std::string& html) {
  const size_t begin = html.find("<style>");
  const size_t end = html.find("</style>");
  if (begin == std::string::npos || end == std::string::npos || end < begin) return html;
  return absl::StrCat(html.substr(0, begin), "<style>/* held by the digest */", html.substr(end));
}

TEST_P(GoldenTest, RendersAsCommitted) {
  const Golden& g = GetParam();
  std::string digests;
  for (const auto& [format, rendered] : Render(g)) {
    const std::string text = WithoutCheckoutPath(rendered);
    const std::string file = absl::StrCat(g.name, ".", format);
    digests += absl::StrCat(format, ": ", Digest(text), "\n");
    if (!g.whole || (format == "html" && !g.whole_html)) continue;
    const std::string kept = format == "html" ? WithoutStylesheet(text) : text;
    if (Updating()) {
      WriteText(kGoldenDir + file, kept);
      continue;
    }
    bool found = false;
    const std::string want = ReadText(kGoldenDir + file, &found);
    ASSERT_TRUE(found) << "no golden " << kGoldenDir << file
                       << " (FLASHSCOPE_UPDATE_GOLDEN=1 makes it)";
    EXPECT_TRUE(want == kept) << file << " differs from its golden at "
                              << FirstDifference(want, kept);
  }
  const std::string digest_file = kGoldenDir + g.name + ".digests";
  if (Updating()) {
    WriteText(digest_file, digests);
    return;
  }
  bool found = false;
  const std::string want = ReadText(digest_file, &found);
  ASSERT_TRUE(found) << "no golden " << digest_file << " (FLASHSCOPE_UPDATE_GOLDEN=1 makes it)";
  EXPECT_EQ(want, digests) << g.name << ": a rendering changed";
}

INSTANTIATE_TEST_SUITE_P(CommittedReports, GoldenTest, ::testing::ValuesIn(Goldens()),
                         [](const ::testing::TestParamInfo<Golden>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace flashscope::reports
