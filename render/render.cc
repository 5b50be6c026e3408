#include "render/render.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "render/render_csv.h"
#include "render/render_html.h"
#include "render/render_junit.h"
#include "render/render_markdown.h"
#include "render/render_terminal.h"
#include "reports/text_safety.h"

namespace flashscope::reports {

std::optional<Format> ParseFormat(const std::string& name) {
  for (Format f :
       {Format::kTerminal, Format::kMarkdown, Format::kJunit, Format::kCsv, Format::kHtml}) {
    if (name == FormatName(f)) return f;
  }
  return std::nullopt;
}

const char* FormatName(Format f) {
  switch (f) {
    case Format::kTerminal:
      return "terminal";
    case Format::kMarkdown:
      return "markdown";
    case Format::kJunit:
      return "junit";
    case Format::kCsv:
      return "csv";
    case Format::kHtml:
      return "html";
  }
  return "?";
}

std::string RenderReportAs(Format format, const Report& report, bool color) {
  switch (format) {
    case Format::kMarkdown:
      return RenderReportMarkdown(report);
    case Format::kJunit:
      return RenderReportJunit(report);
    case Format::kCsv:
      return RenderReportCsv(report);
    case Format::kHtml:
      return RenderReportHtml(report);
    case Format::kTerminal:
      break;
  }
  return RenderReportTerminal(report, color);
}

std::string RenderComparisonAs(Format format, const Comparison& c, const GateResult* gate,
                               bool color) {
  switch (format) {
    case Format::kMarkdown:
      return RenderComparisonMarkdown(c, gate);
    case Format::kJunit:
      return RenderComparisonJunit(c, gate);
    case Format::kCsv:
      return RenderComparisonCsv(c, gate);
    case Format::kHtml:
      return RenderComparisonHtml(c, gate);
    case Format::kTerminal:
      break;
  }
  std::string text = RenderComparison(c, color);
  if (gate != nullptr) text += "\n" + RenderGateTerminal(*gate, color);
  return text;
}

std::string RenderGateLog(const Comparison& c, const GateResult& gate, bool color) {
  std::string out;
  if (!c.environment_note.empty() && !c.forced) {
    absl::StrAppend(&out, "environment differs: ", text::TerminalSafe(c.environment_note), "\n");
  }
  if (c.on_different_gpus > 0) {
    absl::StrAppend(&out, text::TerminalSafe(c.DifferentGpusNote()), "\n");
  }
  absl::StrAppend(
      &out,
      absl::StrFormat("%d pairs: %d slower, %d faster, %d same, %d ambiguous, %d not timed; %zu "
                      "only in base, %zu only in next\n",
                      static_cast<int>(c.paired.size()), c.CountVerdict(Verdict::kSlower),
                      c.CountVerdict(Verdict::kFaster), c.CountVerdict(Verdict::kSame),
                      c.CountVerdict(Verdict::kAmbiguous), c.CountVerdict(Verdict::kNotTimed),
                      c.only_base.size(), c.only_next.size()),
      RenderGateTerminal(gate, color));
  return out;
}

}  // namespace flashscope::reports
