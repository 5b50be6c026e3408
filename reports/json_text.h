// Checks of JSON text before it is parsed, shared by every reader of flashscope's files (reports,
// journals, gate policies, suites): the nesting depth, and the line and column of an offset.
//
// Why a depth limit: parsing itself is iterative, but printing, copying and comparing a JSON value
// recurse once per level, so a file of a few kilobytes nested thousands deep (an array where a
// string belongs, printed in the error message) overflowed the stack. flashscope's own files nest
// fewer than 10 levels.
#pragma once

#include <cstddef>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace flashscope::reports::jsonio {

inline constexpr int kMaxJsonDepth = 64;

// The byte offset of the bracket that opens nesting level kMaxJsonDepth + 1 (brackets inside
// strings do not count), or absl::string_view::npos when the text nests no deeper.
size_t TooDeepAt(absl::string_view text);

// "JSON nested deeper than 64 levels ...": the wording of the refusal, for callers that say where.
std::string TooDeepText();

// 1-based line and column of byte `offset` in `text`.
std::pair<size_t, size_t> LineColumn(absl::string_view text, size_t offset);

// A short excerpt of a bad value for an error message: a scalar as JSON (a long string cut at 40
// characters), an array or object by its size alone ("(3 elements)"), never the whole value.
std::string Excerpt(const nlohmann::json& v);

// OK, or InvalidArgument "PATH:LINE:COLUMN: " + TooDeepText().
absl::Status CheckJsonDepth(absl::string_view text, const std::string& path);

}  // namespace flashscope::reports::jsonio
