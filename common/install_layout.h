// Where flashscope's data lives relative to its commands: <prefix>/bin/flashscope reads
// <prefix>/share/flashscope/ (`cmake --install` puts the suites there), and the build tree mirrors
// that layout with a link (cmake/FlashscopeInstall.cmake), so neither a build nor an installed copy
// depends on the folder it was built in. Header-only: the CLI and flashscope-bench both use it.
#pragma once

#include <filesystem>
#include <string>

namespace flashscope {

// <directory of the running executable>/../share/flashscope, or "share/flashscope" when the
// executable cannot be found (no /proc).
inline std::string InstalledDataDir() {
  std::error_code error;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return "share/flashscope";
  return (exe.parent_path().parent_path() / "share" / "flashscope").string();
}

}  // namespace flashscope
