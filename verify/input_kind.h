// The kinds of inputs flashscope generates. Normal and uniform exercise the arithmetic; the
// structured kinds give attention heads known patterns (so an error heatmap can be read against
// where the attention mass is); large_logits breaks any softmax that skips the max subtraction.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace flashscope::verify {

enum class InputKind {
  kNormal,
  kUniform,
  kLocalBand,
  kStrided,
  kGlobalAnchor,
  kBlock,
  kLargeLogits
};

// "normal", "uniform", "local_band", "strided", "global_anchor", "block", "large_logits".
std::string_view InputKindName(InputKind k);
std::optional<InputKind> ParseInputKind(std::string_view name);
const std::vector<InputKind>& AllInputKinds();
// One line on what the kind is, for `flashscope list` and reports.
std::string_view InputKindDescription(InputKind k);

// Pattern parameters shared by the generators and the tests that check the patterns.
inline constexpr int kLocalBandWidth = 16;     // keys within about this distance of the query
inline constexpr int kStride = 8;              // every 8th key (counting back from the query)
inline constexpr int kGlobalAnchors = 4;       // the first 4 keys ("attention sinks")
inline constexpr int kBlockSize = 64;          // block-diagonal blocks of 64 positions
inline constexpr double kLargeLogitMin = 1e2;  // per-head logit offset range of large_logits
inline constexpr double kLargeLogitMax = 1e3;

}  // namespace flashscope::verify
