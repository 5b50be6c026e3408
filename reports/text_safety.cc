#include "reports/text_safety.h"

#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace flashscope::reports::text {

Utf8Step DecodeUtf8(absl::string_view s, size_t at) {
  const unsigned char c = static_cast<unsigned char>(s[at]);
  const Utf8Step bad{false, c, 1};
  if (c < 0x80) return {true, c, 1};
  size_t n;
  char32_t cp;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2, cp = c & 0x1f;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3, cp = c & 0x0f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4, cp = c & 0x07;
  } else {
    return bad;  // a continuation byte, an overlong lead (c0, c1) or past U+10FFFF (f5..ff)
  }
  if (at + n > s.size()) return bad;
  for (size_t k = 1; k < n; ++k) {
    const unsigned char cc = static_cast<unsigned char>(s[at + k]);
    if ((cc & 0xc0) != 0x80) return bad;
    cp = (cp << 6) | (cc & 0x3f);
  }
  const char32_t min_for_length[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < min_for_length[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return bad;
  return {true, cp, n};
}

bool IsControl(char32_t cp) { return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f); }

bool IsBidiControl(char32_t cp) {
  return (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200e ||
         cp == 0x200f || cp == 0x061c;
}

std::string TerminalSafe(absl::string_view s) {
  std::string out;
  out.reserve(s.size());
  ForEachStep(s, [&](const Utf8Step& step, absl::string_view bytes) {
    if (!step.valid) {
      absl::StrAppendFormat(&out, "\\x%02x", static_cast<unsigned>(step.code_point));
    } else if (!IsUnsafeCharacter(step.code_point)) {
      out.append(bytes.data(), bytes.size());
    } else if (step.code_point == '\n') {
      out += "\\n";
    } else if (step.code_point == '\t') {
      out += "\\t";
    } else if (step.code_point == '\r') {
      out += "\\r";
    } else if (step.code_point < 0x80) {
      absl::StrAppendFormat(&out, "\\x%02x", static_cast<unsigned>(step.code_point));
    } else {
      absl::StrAppendFormat(&out, "\\u%04x", static_cast<unsigned>(step.code_point));
    }
  });
  return out;
}

std::string TerminalSafeLines(absl::string_view s) {
  std::string out;
  bool first = true;
  for (absl::string_view line : absl::StrSplit(s, '\n')) {
    if (!first) out += '\n';
    out += TerminalSafe(line);
    first = false;
  }
  return out;
}

}  // namespace flashscope::reports::text
