// Where suite files are found: a path, or a name in the suites folder (suite.h).
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/closest_names.h"
#include "suites/suite.h"

namespace flashscope::suites {

std::vector<std::string> ListSuiteFiles(const std::string& suites_dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(suites_dir, ec)) {
    if (e.path().extension() == ".json") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

absl::StatusOr<std::string> ResolveSuitePath(const std::string& name_or_path,
                                             const std::string& suites_dir) {
  namespace fs = std::filesystem;
  if (fs::is_regular_file(name_or_path)) return name_or_path;
  fs::path candidate = fs::path(suites_dir) / (name_or_path + ".json");
  if (fs::is_regular_file(candidate)) return candidate.string();
  std::vector<std::string> names;
  for (const auto& f : ListSuiteFiles(suites_dir)) names.push_back(fs::path(f).stem().string());
  const std::string hint = DidYouMean(name_or_path, names);
  return absl::NotFoundError(
      absl::StrCat("no suite '", name_or_path, "'",
                   hint.empty() ? "" : absl::StrCat(" (did you mean '", hint, "'?)"),
                   ": not a file, and not in ", suites_dir,
                   " (suites there: ", names.empty() ? "none" : absl::StrJoin(names, ", "), ")"));
}

}  // namespace flashscope::suites
