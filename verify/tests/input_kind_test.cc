#include "verify/input_kind.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace flashscope::verify {
namespace {

TEST(InputKind, NamesRoundTripAndAreUnique) {
  std::set<std::string> names;
  for (InputKind k : AllInputKinds()) {
    const std::string_view name = InputKindName(k);
    names.insert(std::string(name));
    ASSERT_TRUE(ParseInputKind(name).has_value()) << name;
    EXPECT_EQ(*ParseInputKind(name), k);
    EXPECT_FALSE(InputKindDescription(k).empty());
  }
  EXPECT_EQ(names.size(), 7u);
  EXPECT_EQ(names, (std::set<std::string>{"normal", "uniform", "local_band", "strided",
                                          "global_anchor", "block", "large_logits"}));
}

TEST(InputKind, UnknownNamesAreRejected) {
  EXPECT_FALSE(ParseInputKind("Normal").has_value());
  EXPECT_FALSE(ParseInputKind("").has_value());
  EXPECT_FALSE(ParseInputKind("gaussian").has_value());
}

}  // namespace
}  // namespace flashscope::verify
