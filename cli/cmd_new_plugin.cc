// `flashscope new-plugin NAME`: a minimal plugin project to start from (cli/new_plugin.h).
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "cli/commands.h"
#include "cli/new_plugin.h"
#include "cli/output.h"
#include "common/install_layout.h"
#include "protocol/worker_process.h"

namespace flashscope::cli {
namespace {

namespace fs = std::filesystem;

int NewPlugin(const Args& a) {
  PluginProject p;
  p.name = a.positional()[0];
  if (std::string why = PluginNameProblem(p.name); !why.empty()) {
    PrintError("new-plugin", why);
    return 2;
  }
  if (a.Bool("cuda") && a.Bool("python")) {
    PrintError("new-plugin", "--cuda and --python: choose one (a CUDA plugin is the default)");
    return 2;
  }
  p.attention = a.String("family") == "attention";
  p.python = a.Bool("python");
  p.flashscope_version = FLASHSCOPE_VERSION;
  const std::string parent = a.String("dir").empty() ? "." : a.String("dir");
  const std::string folder = (fs::path(parent) / p.name).lexically_normal().string();
  if (absl::Status s = WritePluginProject(folder, PluginProjectFiles(p)); !s.ok()) {
    PrintError("new-plugin", s.message());
    return 2;
  }
  // The prefix this flashscope runs from, where it is an installed package (find_package reads
  // lib/cmake/flashscope there); a build folder is not one.
  std::string prefix = InstalledPrefix(suites::ThisProgram());
  std::error_code ec;
  if (prefix.empty() || !fs::exists(fs::path(prefix) / "lib/cmake/flashscope", ec)) {
    prefix = "<the prefix flashscope was installed to>";
  }
  const std::string plugin = p.python ? "./" + p.name + ".py" : "build/" + p.name + ".so";
  Print(absl::StrCat(
      "wrote ", folder, "/: a ", p.python ? "Python" : "CUDA", " plugin with one ",
      p.attention ? "attention_fwd" : "gemm", " kernel, ", KernelId(p),
      " (README.md says what each file is)\n\nnext:\n  cd ", folder, "\n",
      p.python ? "  cmake -S . -B build -DCMAKE_PREFIX_PATH=" + prefix + "\n"
               : "  cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=" + prefix +
                     "\n  cmake --build build\n",
      "  ctest --test-dir build --output-on-failure\n  flashscope list --plugin ", plugin,
      " --plugin-only\n  flashscope run suite.json --dry_run     # then, on a GPU, without "
      "--dry_run\n"));
  return 0;
}

}  // namespace

Command NewPluginCommand() {
  Command c("new-plugin", "NAME",
            "write a minimal plugin project to start from: one correct kernel, a suite, a test", 1,
            1, NewPlugin);
  c.details =
      "Writes the folder NAME (under --dir): CMakeLists.txt finding the installed flashscope\n"
      "(find_package), one simple, correct kernel of the family (CUDA, or a Python module with\n"
      "torch), suite.json that loads it, a CPU test of its kernel table and a README.md.\n"
      "Overwrites nothing: an existing folder is refused (exit 2). docs/plugins.md, \"From\n"
      "scratch\", walks through it.";
  c.Add(Flag::String("family", "F", "the kernel's family").Choices({"attention", "gemm"}))
      .Add(Flag::Bool("cuda", "a CUDA plugin built with nvcc (the default)"))
      .Add(Flag::Bool("python", "a Python module (torch) instead of a CUDA plugin"))
      .Add(Flag::String("dir", "D", "the folder to write NAME/ into (default: the current one)"));
  return c;
}

}  // namespace flashscope::cli
