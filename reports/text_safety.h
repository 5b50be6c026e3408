// Report strings come from files anyone can write: a kernel id may hold an escape sequence, a line
// break, a NUL, raw HTML or a spreadsheet formula. Each output format makes them inert in its own
// way, one sanitiser per format: the terminal's (TerminalSafe) and the definitions they share (the
// UTF-8 walk, which characters are unsafe) are here; XML and HTML: XmlEscape in render_junit.h;
// CSV: CsvField in render_csv.h; markdown: MarkdownCell/MarkdownCode in render_markdown.h. Every
// function accepts any bytes, valid UTF-8 or not.
#pragma once

#include <string>

#include "absl/strings/string_view.h"

namespace flashscope::reports::text {

// One step of a strict UTF-8 walk: a well-formed character (no overlong forms, no surrogates,
// nothing past U+10FFFF) of `length` bytes, or, with `valid` false, one byte that starts none.
struct Utf8Step {
  bool valid;
  char32_t code_point;  // the byte itself when not valid
  size_t length;
};
Utf8Step DecodeUtf8(absl::string_view s, size_t at);

inline constexpr char kReplacementCharacter[] = "\xef\xbf\xbd";  // U+FFFD

// The characters no output format passes on as they are (docs/robustness.md, "Strings"): C0
// controls, DEL and C1 controls (a terminal acts on them; a NUL ends a string for many readers),
// and the bidirectional controls that reorder the text around them so that what is shown is not
// what is there: the embeddings and overrides U+202A..U+202E, the isolates U+2066..U+2069, the
// marks U+200E, U+200F and U+061C. Each format's sanitiser treats exactly these, its own way.
bool IsControl(char32_t cp);
bool IsBidiControl(char32_t cp);
inline bool IsUnsafeCharacter(char32_t cp) { return IsControl(cp) || IsBidiControl(cp); }

// Calls `visit(step, bytes)` for each step of the strict UTF-8 walk of `s` (`bytes` is the
// character, or the one byte that starts none). What every sanitiser is built on.
template <typename Visit>
void ForEachStep(absl::string_view s, Visit visit) {
  for (size_t i = 0; i < s.size();) {
    const Utf8Step step = DecodeUtf8(s, i);
    visit(step, s.substr(i, step.length));
    i += step.length;
  }
}

// The terminal's sanitiser: every unsafe character (IsUnsafeCharacter) and every byte that is not
// UTF-8 is shown as an escape (\n, \t, \x1b, \u009b, \u202e, \u061c, \xff), so nothing reaches
// the terminal that it would act on, and nothing is silently dropped (a NUL shows as \x00).
std::string TerminalSafe(absl::string_view s);

// For a message of several lines (a Python traceback, a compiler's error): each line as
// TerminalSafe shows it, the line breaks kept as line breaks (a line of the message cannot end
// another one's escape sequence: each is made inert on its own). Tabs stay escaped.
std::string TerminalSafeLines(absl::string_view s);

}  // namespace flashscope::reports::text
