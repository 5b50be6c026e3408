#include "reports/json_text.h"

#include "absl/strings/str_cat.h"

namespace flashscope::reports::jsonio {

size_t TooDeepAt(absl::string_view text) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character, whatever it is, cannot end the string
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return absl::string_view::npos;
}

std::string TooDeepText() {
  return absl::StrCat("JSON nested deeper than ", kMaxJsonDepth,
                      " levels (arrays and objects inside each other); flashscope's files nest "
                      "fewer than 10, so this is not one of them: refused before parsing");
}

std::pair<size_t, size_t> LineColumn(absl::string_view text, size_t offset) {
  size_t line = 1, col = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

std::string Excerpt(const nlohmann::json& v) {
  if (v.is_array()) return absl::StrCat("(", v.size(), v.size() == 1 ? " element)" : " elements)");
  if (v.is_object()) return absl::StrCat("(", v.size(), v.size() == 1 ? " key)" : " keys)");
  constexpr size_t kShown = 40;
  if (v.is_string() && v.get_ref<const std::string&>().size() > kShown) {
    const nlohmann::json cut = v.get_ref<const std::string&>().substr(0, kShown - 3) + "...";
    // A cut may split a UTF-8 sequence: replace it rather than throw.
    return cut.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  return v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

absl::Status CheckJsonDepth(absl::string_view text, const std::string& path) {
  const size_t at = TooDeepAt(text);
  if (at == absl::string_view::npos) return absl::OkStatus();
  auto [line, col] = LineColumn(text, at);
  return absl::InvalidArgumentError(absl::StrCat(path, ":", line, ":", col, ": ", TooDeepText()));
}

}  // namespace flashscope::reports::jsonio
