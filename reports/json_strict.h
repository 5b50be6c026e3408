// The one strict way flashscope turns text into JSON, for every file type it reads (report,
// journal line, suite, gate policy, plan, ab verdict): nesting depth bounded, syntax errors with
// line, column and reason, and duplicate keys refused and named (nlohmann keeps the last of two
// equal keys silently; a policy with "allowed_slowdown" twice, 0.02 then 100, would pass a 2x
// slowdown). Numbers beyond a double ("1e999") are refused with their place too.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace flashscope::reports::jsonio {

// `path` names the file in every message ("PATH:LINE:COLUMN: ..."); `what` says what the file
// should be ("a flashscope report", "a gate policy (docs/gating.md)") for the syntax error.
absl::StatusOr<nlohmann::json> ParseStrict(absl::string_view text, const std::string& path,
                                           absl::string_view what);

// What the parsed tree of `text` would take in memory, roughly (counting values, strings and
// object members). ParseStrict refuses text whose tree would need more than
// kTreeBytesPerInputByte times the input cap (MaxInputBytes(); no check without a cap).
uint64_t ApproximateTreeBytes(absl::string_view text);
inline constexpr uint64_t kTreeBytesPerInputByte = 4;

// The first key that appears twice in one object of `text` (which must be valid JSON), as
// "LINE:COLUMN: duplicate key \"K\" in OBJECT_PATH (first at LINE:COLUMN)"; "" when none.
std::string FindDuplicateKey(absl::string_view text);

}  // namespace flashscope::reports::jsonio
