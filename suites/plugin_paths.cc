#include "suites/plugin_paths.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "absl/strings/match.h"
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

bool HasPluginExtension(const std::string& name) {
  return absl::EndsWith(name, ".so") || absl::EndsWith(name, ".py") ||
         absl::StrContains(name, ".so.");
}

// The file names a bare name may stand for: itself, and for a name without a plugin's extension
// also libNAME.so and NAME.so ("mine" is libmine.so; "mine.py" is never libmine.py.so).
std::vector<std::string> BareNameFiles(const std::string& name) {
  if (HasPluginExtension(name)) return {name};
  return {name, "lib" + name + ".so", name + ".so"};
}

std::string OrList(const std::vector<std::string>& names) {
  if (names.size() == 1) return names[0];
  return absl::StrCat(absl::StrJoin(names.begin(), names.end() - 1, ", "), " or ", names.back());
}

absl::StatusOr<std::string> FindBareName(const std::string& name, const std::string& origin,
                                         const PluginSources& sources) {
  std::vector<std::string> dirs = SplitColons(sources.env_plugin_path);
  if (!sources.installed_dir.empty()) dirs.push_back(sources.installed_dir);
  const std::vector<std::string> files = BareNameFiles(name);
  for (const std::string& dir : dirs) {
    for (const std::string& file : files) {
      const fs::path candidate = fs::path(dir) / file;
      std::error_code ec;
      if (fs::is_regular_file(candidate, ec)) return candidate.string();
    }
  }
  return absl::NotFoundError(absl::StrCat(
      "plugin '", name, "' (", origin, "): no ", OrList(files), " in ",
      dirs.empty() ? "(no folder)" : absl::StrJoin(dirs, ", "),
      " (FLASHSCOPE_PLUGIN_PATH, then the plugin folder beside flashscope-worker); give the "
      "plugin's path instead, or add its folder to FLASHSCOPE_PLUGIN_PATH"));
}

// A folder given as a plugin: say so, and name the plugin files in it.
absl::Status FolderGiven(const std::string& path, const std::string& origin) {
  std::vector<std::string> inside;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(path, ec)) {
    const std::string file = e.path().filename().string();
    if (e.is_regular_file(ec) && HasPluginExtension(file)) inside.push_back(file);
  }
  std::sort(inside.begin(), inside.end());
  if (inside.size() > 5) inside.resize(5);
  return absl::InvalidArgumentError(absl::StrCat(
      "plugin ", path, " (", origin,
      ") is a folder, not a plugin file: give the plugin's .so or "
      ".py itself",
      inside.empty() ? " (this folder holds none directly; a CMake build puts it where its "
                       "CMakeLists.txt says)"
                     : absl::StrCat(", e.g. ", (fs::path(path) / inside[0]).string(),
                                    " (in this folder: ", absl::StrJoin(inside, ", "), ")")));
}

// The file an entry names: a path (it has a '/', or it is a command-line or environment entry
// naming a file in the current folder: `--plugin my.so`), else a bare name looked up. A folder
// of that name here (a plugin's source folder, say) does not hide an installed plugin; only when
// none is found is it named as the folder it is.
absl::StatusOr<std::string> EntryPath(const std::string& entry, const std::string& origin,
                                      bool from_suite, const PluginSources& sources) {
  std::error_code ec;
  if (entry.find('/') == std::string::npos && (from_suite || !fs::is_regular_file(entry, ec))) {
    auto found = FindBareName(entry, origin, sources);
    if (found.ok() || from_suite || !fs::is_directory(entry, ec)) return found;
    return FolderGiven(entry, origin);
  }
  if (fs::is_directory(entry, ec)) return FolderGiven(entry, origin);
  if (!fs::is_regular_file(entry, ec)) {
    return absl::NotFoundError(absl::StrCat("plugin ", entry, " (", origin,
                                            "): no such file (build the plugin first, or fix "
                                            "the path)"));
  }
  return entry;
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
  struct Entry {
    std::string text, origin;
    bool from_suite;
  };
  std::vector<Entry> entries;
  for (const auto& p : sources.suite) entries.push_back({p, "the suite's \"plugins\"", true});
  if (!sources.command_line.empty()) {
    for (const auto& p : sources.command_line) {
      entries.push_back({p, sources.command_line_flag, false});
    }
  } else {
    for (const auto& p : SplitColons(sources.env_plugins)) {
      entries.push_back({p, "FLASHSCOPE_PLUGINS", false});
    }
  }
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const Entry& e : entries) {
    auto path = EntryPath(e.text, e.origin, e.from_suite, sources);
    if (!path.ok()) return path.status();
    std::error_code ec;
    const std::string canonical = fs::canonical(*path, ec).string();
    if (seen.insert(canonical).second) out.push_back(canonical);
  }
  return out;
}

}  // namespace flashscope::suites
