#include "suites/plugin_paths.h"

#include <cstdlib>
#include <filesystem>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace flashscope::suites {
namespace {

namespace fs = std::filesystem;

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

std::vector<std::string> SplitColons(const std::string& list) {
  return absl::StrSplit(list, ':', absl::SkipEmpty());
}

absl::StatusOr<std::string> FindBareName(const std::string& name, const std::string& origin,
                                         const PluginSources& sources) {
  std::vector<std::string> dirs = SplitColons(sources.env_plugin_path);
  if (!sources.installed_dir.empty()) dirs.push_back(sources.installed_dir);
  for (const std::string& dir : dirs) {
    for (const std::string& file : {name, "lib" + name + ".so", name + ".so"}) {
      const fs::path candidate = fs::path(dir) / file;
      std::error_code ec;
      if (fs::is_regular_file(candidate, ec)) return candidate.string();
    }
  }
  return absl::NotFoundError(absl::StrCat(
      "plugin '", name, "' (", origin, "): no ", name, ", lib", name, ".so or ", name, ".so in ",
      dirs.empty() ? "(no folder)" : absl::StrJoin(dirs, ", "),
      " (FLASHSCOPE_PLUGIN_PATH, then the plugin folder beside flashscope-worker); give the "
      "plugin's path instead, or add its folder to FLASHSCOPE_PLUGIN_PATH"));
}

}  // namespace

std::string PluginDirBeside(const std::string& worker_exe) {
  if (worker_exe.empty()) return "";
  return (fs::path(worker_exe).parent_path() / ".." / "lib" / "flashscope" / "plugins")
      .lexically_normal()
      .string();
}

std::string PythonBridgePath(const std::string& worker_exe) {
  const std::string bridge = Env("FLASHSCOPE_PYTHON_BRIDGE");
  if (!bridge.empty() || worker_exe.empty()) return bridge;
  return (fs::path(PluginDirBeside(worker_exe)) / "libflashscope_python.so").string();
}

PluginSources PluginSourcesFromEnvironment(const std::vector<std::string>& suite_plugins,
                                           const std::vector<std::string>& command_line,
                                           const std::string& worker_exe) {
  PluginSources s;
  s.suite = suite_plugins;
  s.command_line = command_line;
  s.env_plugins = Env("FLASHSCOPE_PLUGINS");
  s.env_plugin_path = Env("FLASHSCOPE_PLUGIN_PATH");
  s.installed_dir = PluginDirBeside(worker_exe);
  return s;
}

absl::StatusOr<std::vector<std::string>> ResolvePlugins(const PluginSources& sources) {
  std::vector<std::pair<std::string, std::string>> entries;  // entry, where it came from
  for (const auto& p : sources.suite) entries.emplace_back(p, "the suite's \"plugins\"");
  if (!sources.command_line.empty()) {
    for (const auto& p : sources.command_line) entries.emplace_back(p, sources.command_line_flag);
  } else {
    for (const auto& p : SplitColons(sources.env_plugins)) {
      entries.emplace_back(p, "FLASHSCOPE_PLUGINS");
    }
  }
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& [entry, origin] : entries) {
    std::string path = entry;
    if (entry.find('/') == std::string::npos) {
      auto found = FindBareName(entry, origin, sources);
      if (!found.ok()) return found.status();
      path = *found;
    }
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) {
      return absl::NotFoundError(absl::StrCat("plugin ", path, " (", origin,
                                              "): no such file (build the plugin first, or fix "
                                              "the path)"));
    }
    const std::string canonical = fs::canonical(path, ec).string();
    if (seen.insert(canonical).second) out.push_back(canonical);
  }
  return out;
}

}  // namespace flashscope::suites
