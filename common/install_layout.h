// Where flashscope's data lives relative to its commands: <prefix>/bin/flashscope reads
// <prefix>/share/flashscope/ (`cmake --install` puts the suites there), and the build tree mirrors
// that layout with a link (cmake/FlashscopeInstall.cmake), so neither a build nor an installed copy
// depends on the folder it was built in. Plugins given by a bare name follow the same rule from
// <prefix>/lib/flashscope/plugins (suites/plugin_paths.h).
#pragma once

#include <filesystem>
#include <string>

namespace flashscope {

// <prefix>/share/flashscope for a program at <prefix>/bin/NAME (suites::ThisProgram()); relative
// "share/flashscope" when the program's path is unknown.
inline std::string InstalledDataDir(const std::string& program) {
  if (program.empty()) return "share/flashscope";
  const std::filesystem::path prefix = std::filesystem::path(program).parent_path().parent_path();
  return (prefix / "share" / "flashscope").string();
}

}  // namespace flashscope
