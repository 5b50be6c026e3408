#include "verify/input_kind.h"

namespace flashscope::verify {

std::string_view InputKindName(InputKind k) {
  switch (k) {
    case InputKind::kNormal:
      return "normal";
    case InputKind::kUniform:
      return "uniform";
    case InputKind::kLocalBand:
      return "local_band";
    case InputKind::kStrided:
      return "strided";
    case InputKind::kGlobalAnchor:
      return "global_anchor";
    case InputKind::kBlock:
      return "block";
    case InputKind::kLargeLogits:
      return "large_logits";
  }
  return "?";
}

std::optional<InputKind> ParseInputKind(std::string_view name) {
  for (InputKind k : AllInputKinds()) {
    if (InputKindName(k) == name) return k;
  }
  return std::nullopt;
}

const std::vector<InputKind>& AllInputKinds() {
  static const std::vector<InputKind> kinds = {
      InputKind::kNormal,       InputKind::kUniform, InputKind::kLocalBand,  InputKind::kStrided,
      InputKind::kGlobalAnchor, InputKind::kBlock,   InputKind::kLargeLogits};
  return kinds;
}

std::string_view InputKindDescription(InputKind k) {
  switch (k) {
    case InputKind::kNormal:
      return "every element N(0,1)";
    case InputKind::kUniform:
      return "every element U(-1,1)";
    case InputKind::kLocalBand:
      return "attention: each query attends to keys within ~16 positions of it; gemm: A banded";
    case InputKind::kStrided:
      return "attention: each query attends to every 8th key counting back from it; gemm: A has "
             "every 8th column";
    case InputKind::kGlobalAnchor:
      return "attention: every query attends to the first 4 keys; gemm: A's first 4 columns x10";
    case InputKind::kBlock:
      return "attention: block-diagonal, queries attend to keys of their 64-position block; gemm: "
             "A block-diagonal";
    case InputKind::kLargeLogits:
      return "attention: logits offset by 1e2..1e3 per head (a softmax without max subtraction "
             "overflows); gemm: elements N(0,1) x 30";
  }
  return "?";
}

}  // namespace flashscope::verify
