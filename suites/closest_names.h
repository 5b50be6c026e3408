// "Did you mean": the known names nearest to a misspelt one, by edit distance.
#pragma once

#include <string>
#include <vector>

namespace flashscope::suites {

size_t EditDistance(const std::string& a, const std::string& b);
std::vector<std::string> ClosestNames(const std::string& name,
                                      const std::vector<std::string>& known, size_t how_many);

}  // namespace flashscope::suites
