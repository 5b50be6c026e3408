// Where flashscope's data lives relative to its commands: <prefix>/bin/flashscope reads
// <prefix>/share/flashscope/ (`cmake --install` puts the suites there), and the build tree mirrors
// that layout with a link (cmake/FlashscopeInstall.cmake), so neither a build nor an installed copy
// depends on the folder it was built in. Plugins given by a bare name follow the same rule from
// <prefix>/lib/flashscope/plugins (suites/plugin_paths.h).
#pragma once

#include <filesystem>
#include <string>

namespace flashscope {

// <prefix> for a program at <prefix>/bin/NAME (suites::ThisProgram()); "" when its path is unknown.
inline std::string InstalledPrefix(const std::string& program) {
  if (program.empty()) return "";
  return std::filesystem::path(program).parent_path().parent_path().string();
}

// <prefix>/share/flashscope for a program at <prefix>/bin/NAME; relative "share/flashscope" when
// the program's path is unknown.
inline std::string InstalledDataDir(const std::string& program) {
  return (std::filesystem::path(InstalledPrefix(program)) / "share" / "flashscope").string();
}

}  // namespace flashscope
