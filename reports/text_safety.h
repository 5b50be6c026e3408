// Report strings come from files anyone can write: a kernel id may hold an escape sequence, a line
// break, a NUL, raw HTML or a spreadsheet formula. Each output format makes them inert in its own
// way; the terminal's way and the UTF-8 walk the others build on are here (XML: XmlEscape in
// render_junit.h, CSV: CsvField in render_csv.h, markdown: MarkdownCell/MarkdownCode in
// render_markdown.h). Every function accepts any bytes, valid UTF-8 or not.
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

// For a terminal: C0 controls, DEL, C1 controls, bidirectional overrides and bytes that are not
// UTF-8 are shown as escapes (\n, \t, \x1b, \u009b, \u202e, \xff), so nothing reaches the
// terminal that it would act on, and nothing is silently dropped (a NUL shows as \x00).
std::string TerminalSafe(absl::string_view s);

// For a message of several lines (a Python traceback, a compiler's error): each line as
// TerminalSafe shows it, the line breaks kept as line breaks (a line of the message cannot end
// another one's escape sequence: each is made inert on its own). Tabs stay escaped.
std::string TerminalSafeLines(absl::string_view s);

}  // namespace flashscope::reports::text
