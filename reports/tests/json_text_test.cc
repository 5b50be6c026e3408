// The checks every reader runs on JSON text before parsing it (issue 14, item 3).
#include "reports/json_text.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace flashscope::reports::jsonio {
namespace {

using ::testing::HasSubstr;

TEST(JsonDepth, CountsBracketsOutsideStringsOnly) {
  const std::string at_limit = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  EXPECT_EQ(TooDeepAt(at_limit), absl::string_view::npos);
  const std::string over = "[" + at_limit + "]";
  EXPECT_EQ(TooDeepAt(over), static_cast<size_t>(kMaxJsonDepth));
  // Brackets inside strings, escaped quotes included, are text.
  const std::string in_string =
      "{\"a\": \"" + std::string(1000, '[') + "\\\"" + std::string(1000, '{') + "\"}";
  EXPECT_EQ(TooDeepAt(in_string), absl::string_view::npos);
  std::string objects;
  for (int i = 0; i <= kMaxJsonDepth; ++i) objects += "{\"k\":";
  EXPECT_NE(TooDeepAt(objects), absl::string_view::npos);
}

TEST(JsonDepth, TheErrorNamesTheFileLineAndColumn) {
  const std::string text = "{\n  \"x\": " + std::string(100, '[');
  absl::Status s = CheckJsonDepth(text, "r.json");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("r.json:2:" + std::to_string(8 + kMaxJsonDepth - 1) +
                        ": JSON nested deeper than 64 levels"));
  EXPECT_TRUE(CheckJsonDepth("{\"x\": [1, 2]}", "r.json").ok());
}

TEST(JsonExcerpt, NeverCarriesTheWholeValue) {
  EXPECT_EQ(Excerpt(nlohmann::json::array({1, 2, 3})), "(3 elements)");
  EXPECT_EQ(Excerpt(nlohmann::json::object({{"a", 1}})), "(1 key)");
  EXPECT_EQ(Excerpt(nlohmann::json("fast")), "\"fast\"");
  EXPECT_EQ(Excerpt(nlohmann::json(std::string(1000, 'x'))).size(), 42u);  // 40 and the quotes
  // A cut through a multi-byte character is replaced, not thrown about.
  EXPECT_NO_THROW(Excerpt(nlohmann::json(std::string(36, 'x') + "\xc3\xa9\xc3\xa9\xc3\xa9")));
  EXPECT_EQ(Excerpt(nlohmann::json(2.5)), "2.5");
}

}  // namespace
}  // namespace flashscope::reports::jsonio
