// "Did you mean": the known names nearest to a misspelt one, by edit distance.
#pragma once

#include <string>
#include <vector>

namespace flashscope::suites {

size_t EditDistance(const std::string& a, const std::string& b);
std::vector<std::string> ClosestNames(const std::string& name,
                                      const std::vector<std::string>& known, size_t how_many);
// The one known name `name` is most likely a typo of: a unique completion of a prefix, else the
// closest by edit distance when it is close enough (1 edit for up to 3 characters, 2 up to 8,
// then 3); "" when none is.
std::string DidYouMean(const std::string& name, const std::vector<std::string>& known);

}  // namespace flashscope::suites
