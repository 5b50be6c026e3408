// Report strings come from files anyone can write (issue 14, item 5): every string field of a
// report holds escape sequences, line breaks, NUL, C1 controls, a bidi override, formula
// prefixes, raw HTML, backticks, characters XML forbids and bytes that are not UTF-8; every
// output format must carry them inertly.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "analysis/compare.h"
#include "analysis/gate.h"
#include "render/render_csv.h"
#include "render/render_html.h"
#include "render/render_junit.h"
#include "render/render_markdown.h"
#include "render/render_terminal.h"
#include "reports/tests/sample_reports.h"
#include "reports/text_safety.h"

namespace flashscope::reports {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::string kHostile =
    std::string(
        "=cmd|' /C calc'!A0 \x1b[2J\x1b[H\rGATE PASSED\n\t\x07 \xc2\x9b"
        "31m \xe2\x80\xae <img src=x onerror=alert(1)> `tick` | ") +
    std::string(1, '\0') +
    "nul \xef\xbf\xbe \xef\xbf\xbf \xed\xa0\x80 \xff @all ![x](http://e/x.png)";

Report HostileReport() {
  Report r;
  r.complete = true;
  r.environment = testing::SyntheticEnvironment();
  Environment& e = r.environment;
  e.gpu_name = e.driver_version = e.cuda_runtime_version = e.git_revision = e.host = kHostile;
  e.started_at = kHostile;
  r.suite.name = r.suite.description = kHostile;
  CaseResult ok = testing::SimpleCase("-" + kHostile, "+" + kHostile, CaseStatus::kPassed, 1.0);
  CaseResult bad = testing::SimpleCase("@" + kHostile, kHostile, CaseStatus::kFailed, 2.0);
  bad.verification->rule = kHostile;
  CaseResult err = testing::SimpleCase(kHostile, "p", CaseStatus::kError, 0);
  err.reason = kHostile;
  r.cases = {ok, bad, err};
  return r;
}

// Every escape character must start one of the renderer's own colour codes.
void ExpectOnlyOurEscapes(const std::string& out, bool color) {
  static const std::regex ours("\x1b\\[(0|1|2|31|1;31|32|33|35)m");
  std::string rest = std::regex_replace(out, ours, "");
  if (!color) EXPECT_EQ(out, rest);
  for (unsigned char c : rest) {
    EXPECT_TRUE(c >= 0x20 || c == '\n') << "control byte " << int(c) << " in:\n" << out;
    if (c < 0x20 && c != '\n') return;
    EXPECT_NE(c, 0x7f);
  }
  EXPECT_EQ(rest.find("\xc2\x9b"), std::string::npos) << "a C1 CSI reached the terminal";
  EXPECT_EQ(rest.find("\xe2\x80\xae"), std::string::npos) << "a bidi override reached it";
  // A line break inside a string must not start a line of its own.
  for (absl::string_view line : absl::StrSplit(rest, '\n')) {
    EXPECT_FALSE(absl::StartsWith(line, "GATE PASSED")) << out;
  }
}

TEST(HostileStrings, TerminalShowsThemEscaped) {
  const Report r = HostileReport();
  for (bool color : {false, true}) {
    ExpectOnlyOurEscapes(RenderSummary(r, color) + RenderCaseTable(r, color), color);
    Report next = r;
    next.cases[0].timing->median_ms = 3.0;
    Comparison c = Compare(r, next, {0.01, 0.02, true});
    ExpectOnlyOurEscapes(RenderComparison(c, color), color);
    GatePolicy p;
    p.source = kHostile;
    ExpectOnlyOurEscapes(RenderGateTerminal(ApplyGate(c, p), color), color);
  }
  // Visible, not dropped: the escape shows as text.
  EXPECT_THAT(RenderCaseTable(r, false), HasSubstr("\\x1b[2J"));
  EXPECT_THAT(RenderCaseTable(r, false), HasSubstr("\\x00nul"));
}

// XML 1.0's Char production, on strictly decoded UTF-8.
bool IsXmlDocumentText(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    unsigned char c = s[i];
    char32_t cp;
    int n;
    if (c < 0x80)
      cp = c, n = 1;
    else if ((c >> 5) == 6)
      cp = c & 0x1f, n = 2;
    else if ((c >> 4) == 14)
      cp = c & 0x0f, n = 3;
    else if ((c >> 3) == 30)
      cp = c & 0x07, n = 4;
    else
      return false;
    if (i + n > s.size()) return false;
    for (int k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 2) return false;
      cp = (cp << 6) | (s[i + k] & 0x3f);
    }
    const bool ok = cp == 0x9 || cp == 0xa || cp == 0xd || (cp >= 0x20 && cp <= 0xd7ff) ||
                    (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);
    if (!ok) return false;
    i += n;
  }
  return true;
}

TEST(HostileStrings, JunitAndHtmlHoldOnlyCharactersXmlAllows) {
  const Report r = HostileReport();
  Comparison c = Compare(r, r);
  GateResult g = ApplyGate(c, GatePolicy{});
  for (const std::string& x : {RenderReportJunit(r), RenderComparisonJunit(c, &g),
                               RenderReportHtml(r), RenderComparisonHtml(c, &g)}) {
    EXPECT_TRUE(IsXmlDocumentText(x));
    EXPECT_THAT(x, Not(HasSubstr("<img src=x")));
    EXPECT_THAT(x, HasSubstr("&lt;img src=x"));
  }
  EXPECT_EQ(XmlEscape("a\xef\xbf\xbe\x01z"), "a\xef\xbf\xbd\xef\xbf\xbdz");  // U+FFFD, visible
}

TEST(HostileStrings, CsvCellsAreNeverFormulas) {
  const Report r = HostileReport();
  for (const std::string& csv : {RenderReportCsv(r), RenderComparisonCsv(Compare(r, r), nullptr)}) {
    EXPECT_EQ(csv.find('\0'), std::string::npos);
    // Every cell starts right after a separator: none may start a formula.
    for (const char* start : {",=", ",+", ",@", ",\"=", ",\"+", ",\"@", ",\"-="}) {
      EXPECT_EQ(csv.find(start), std::string::npos) << start;
    }
  }
  EXPECT_EQ(CsvField("=1+2"), "'=1+2");
  EXPECT_EQ(CsvField("-2+3"), "'-2+3");
  EXPECT_EQ(CsvField("@SUM(A1)"), "'@SUM(A1)");
  EXPECT_EQ(CsvField("-1.5"), "-1.5");  // a number stays a number
  EXPECT_EQ(CsvField("-inf"), "-inf");
  EXPECT_EQ(CsvField(std::string("a\0b", 3)),
            "a\xef\xbf\xbd"
            "b");
}

TEST(HostileStrings, MarkdownPassesNoHtmlLinksOrMentions) {
  const Report r = HostileReport();
  Comparison c = Compare(r, r);
  GateResult g = ApplyGate(c, GatePolicy{});
  // Inside inline code, HTML, links and mentions are inert text; outside it, none may be live.
  static const std::regex code_span(R"((`+)[^\n]*?\1)");
  for (const std::string& md : {RenderReportMarkdown(r), RenderComparisonMarkdown(c, &g)}) {
    const std::string prose = std::regex_replace(md, code_span, "CODE");
    EXPECT_THAT(prose, Not(HasSubstr("<img"))) << prose.substr(0, 400);
    EXPECT_THAT(prose, Not(HasSubstr("![x]"))) << prose.substr(0, 400);
    EXPECT_THAT(prose, Not(HasSubstr(" @all"))) << prose.substr(0, 400);
    EXPECT_EQ(md.find('\0'), std::string::npos);
    EXPECT_EQ(md.find('\x1b'), std::string::npos);
    // Each table row keeps its columns: a '|' of a string never splits a cell.
    for (const std::string& line : std::vector<std::string>(absl::StrSplit(md, '\n'))) {
      if (!absl::StartsWith(line, "| ")) continue;
      std::regex unescaped_pipe(R"((^|[^\\])\|)");
      auto n = std::distance(std::sregex_iterator(line.begin(), line.end(), unescaped_pipe),
                             std::sregex_iterator());
      EXPECT_EQ(n, 10) << line;
    }
  }
  // Inline code takes a fence longer than any backtick run inside.
  EXPECT_EQ(MarkdownCode("a`b"), "``a`b``");
  EXPECT_EQ(MarkdownCode("`x"), "`` `x ``");
  EXPECT_EQ(MarkdownCell("<b>&"), "&lt;b&gt;&amp;");
}

// The hostile corpus every format is tested with: one piece per class of character that must
// not pass raw (text::IsUnsafeCharacter) and of byte sequence that is not UTF-8.
const std::vector<std::string>& HostilePieces() {
  static const std::vector<std::string> pieces = {std::string(1, '\0'),
                                                  "\x01",
                                                  "\x07",
                                                  "\x08",
                                                  "\x1b[2J",
                                                  "\x7f",  // C0, DEL
                                                  "\xc2\x80",
                                                  "\xc2\x85",
                                                  "\xc2\x9b"
                                                  "31m",
                                                  "\xc2\x9f",  // C1 (NEL, CSI)
                                                  "\xe2\x80\xaa",
                                                  "\xe2\x80\xab",
                                                  "\xe2\x80\xac",
                                                  "\xe2\x80\xad",  // LRE RLE PDF LRO
                                                  "\xe2\x80\xae",
                                                  "\xe2\x81\xa6",
                                                  "\xe2\x81\xa7",
                                                  "\xe2\x81\xa8",  // RLO LRI RLI FSI
                                                  "\xe2\x81\xa9",
                                                  "\xe2\x80\x8e",
                                                  "\xe2\x80\x8f",
                                                  "\xd8\x9c",  // PDI LRM RLM ALM
                                                  "\xff",
                                                  "\xc0\x80",
                                                  "\xed\xa0\x80",
                                                  "\xe2\x80",
                                                  "\xf5\x80\x80\x80"};  // not UTF-8
  return pieces;
}

// Every string field a renderer may show, set to `s`.
Report ReportWithEveryString(const std::string& s) {
  Report r = HostileReport();
  Environment& e = r.environment;
  e.gpu_name = e.driver_version = e.cuda_runtime_version = e.git_revision = e.host = s;
  e.started_at = e.finished_at = e.flashscope_version = e.command_line = s;
  r.suite.name = r.suite.description = r.suite.path = r.suite.kernels_filter = s;
  for (size_t i = 0; i < r.cases.size(); ++i) {
    CaseResult& c = r.cases[i];
    c.kernel_id = absl::StrCat("k", i, s);  // keys stay distinct
    c.problem_key = s;
    c.kernel_title = c.kernel_changed = c.family = c.input_kind = s;
    c.params = {{s, s}};
    if (c.status != CaseStatus::kPassed) c.reason = s;
    if (c.timing) c.timing->stop_reason = s;
    if (c.verification) c.verification->rule = c.verification->reference = s;
  }
  return r;
}

// The first character of `out` (strictly decoded) that is unsafe and not one of `allowed`, or a
// byte that is not UTF-8, with where it is; "" when there is none.
std::string FirstUnsafe(const std::string& out, const std::u32string& allowed) {
  std::string found;
  text::ForEachStep(out, [&](const text::Utf8Step& step, absl::string_view) {
    if (!found.empty()) return;
    const bool bad = !step.valid || (text::IsUnsafeCharacter(step.code_point) &&
                                     allowed.find(step.code_point) == std::u32string::npos);
    if (bad) found = absl::StrCat(step.valid ? "U+" : "byte ", absl::Hex(step.code_point));
  });
  return found;
}

TEST(HostileStrings, NoFormatPassesAnyUnsafeCharacterOrBadByte) {
  for (const std::string& piece : HostilePieces()) {
    const Report r = ReportWithEveryString("a" + piece + "z");
    Report next = r;
    next.cases[0].timing->median_ms = 3.0;
    const Comparison c = Compare(r, next, {0.01, 0.02, true});
    GatePolicy p;
    p.source = "a" + piece + "z";
    const GateResult g = ApplyGate(c, p);
    const std::string escaped = text::TerminalSafe(piece);
    struct Output {
      const char* format;
      std::string text;
      std::u32string allowed;  // the format's own line structure
    };
    const std::vector<Output> outputs = {
        {"terminal",
         RenderSummary(r, false) + RenderCaseTable(r, false) + RenderComparison(c, false) +
             RenderGateTerminal(g, false),
         U"\n"},
        {"markdown", RenderReportMarkdown(r) + RenderComparisonMarkdown(c, &g), U"\n"},
        {"junit", RenderReportJunit(r) + RenderComparisonJunit(c, &g), U"\n"},
        {"html", RenderReportHtml(r) + RenderComparisonHtml(c, &g), U"\n"},
        {"csv", RenderReportCsv(r) + RenderComparisonCsv(c, &g), U"\r\n"}};
    for (const Output& o : outputs) {
      EXPECT_EQ(FirstUnsafe(o.text, o.allowed), "") << o.format << " passes " << escaped;
      // Shown, not dropped: the terminal as an escape, the others as U+FFFD.
      EXPECT_THAT(o.text, HasSubstr(std::string(o.format) == "terminal"
                                        ? "a" + escaped + "z"
                                        : std::string("a") + text::kReplacementCharacter))
          << o.format << " " << escaped;
    }
  }
}

TEST(HostileStrings, EachSanitiserReplacesEveryPieceAlone) {
  for (const std::string& piece : HostilePieces()) {
    const std::string s = "a" + piece + "z";
    for (const std::string& out : {XmlEscape(s), CsvField(s), MarkdownCell(s), MarkdownCode(s)}) {
      EXPECT_EQ(FirstUnsafe(out, U""), "") << text::TerminalSafe(piece) << " -> " << out;
      EXPECT_THAT(out, HasSubstr(text::kReplacementCharacter)) << text::TerminalSafe(piece);
    }
    EXPECT_EQ(FirstUnsafe(text::TerminalSafe(s), U""), "") << text::TerminalSafe(piece);
  }
}

}  // namespace
}  // namespace flashscope::reports
