#include "cli/new_plugin.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"

namespace flashscope::cli {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxNameLength = 40;

// The suite: the kernel on problems that exercise its edges (odd sizes, partial tiles, causal
// with Sq != Sk and the log-sum-exp), small enough to run in seconds.
constexpr char kGemmProblems[] = R"T([
    {"family": "gemm", "note": "square, a multiple of every usual tile",
     "axes": {"dtype": ["fp16", "bf16"], "size": [256, 1024]}},
    {"family": "gemm", "note": "odd sizes: partial tiles on every edge",
     "axes": {"dtype": ["fp16", "bf16"], "m": 1000, "n": 17, "k": 333}}
  ])T";
constexpr char kAttentionProblems[] = R"T([
    {"family": "attention_fwd", "note": "whole and partial tiles, causal or not",
     "axes": {"dtype": ["fp16", "bf16"], "head_dim": [64, 128], "causal": [false, true],
              "batch": 2, "heads": 4, "seq": [128, 1000]}},
    {"family": "attention_fwd", "note": "Sq != Sk, bottom-right causal, with the log-sum-exp",
     "axes": {"dtype": "bf16", "head_dim": 64, "causal": true, "lse": true, "batch": 1,
              "heads": 2, "seq_q": 17, "seq_k": 1000}}
  ])T";

std::string Suite(const PluginProject& p) {
  return absl::StrCat(R"T({
  "name": "@NAME@",
  "description": "@ID@ (made by flashscope new-plugin): verified against flashscope's FP32 reference, timed and profiled",
  "plugins": [")T",
                      p.python ? "./@NAME@.py" : "./build/@NAME@.so", R"T("],
  "kernels": ["@NAME@.*"],
  "problems": )T",
                      p.attention ? kAttentionProblems : kGemmProblems, "\n}\n");
}

std::string Readme(const PluginProject& p) {
  const std::string build =
      p.python ? R"T(cmake -S . -B build -DCMAKE_PREFIX_PATH=<flashscope's install prefix>
ctest --test-dir build --output-on-failure     # the kernel table, and c = a @ b on the CPU with torch
flashscope list --plugin ./@NAME@.py --plugin-only
flashscope run suite.json --dry_run            # the plan: needs no GPU)T"
               : R"T(cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=<flashscope's install prefix>
cmake --build build
ctest --test-dir build --output-on-failure     # the kernel table and supports() rules, on the CPU
flashscope list --plugin build/@NAME@.so --plugin-only
flashscope run suite.json --dry_run            # the plan: needs no GPU)T";
  const std::string files =
      p.python
          ? R"T(| `@NAME@.py` | the module: `@ID@`, declared with `@flashscope.kernel(...)`, and its `supports()` |
| `tests/test_@NAME@.py` | its CPU test: the declaration, `supports()`, and the output against float64 where torch is installed |
| `CMakeLists.txt` | finds the installed flashscope (`find_package`), registers the test, installs the module into `flashscope_PLUGIN_DIR` |)T"
          : R"T(| `@NAME@.cu` | the kernel (one CUDA `__global__` function), its `supports()` rules and the table the plugin exports (`flashscope_plugin_v1`) |
| `tests/table_test.cc` | its CPU test: loads the built plugin as flashscope does and checks the table and `supports()` |
| `CMakeLists.txt` | finds the installed flashscope (`find_package`), builds `@NAME@.so` with `flashscope_add_plugin`, registers the test |)T";
  return absl::StrCat(R"T(# @NAME@: a flashscope kernel plugin

Made by `flashscope new-plugin`: one @FAMILY@ kernel, `@ID@`, that is simple and correct, a
suite that loads it, and a test of its table. flashscope verifies it against its FP32 reference
(every output element, on poisoned outputs), times it cold and profiles it with hardware counters
like its own kernels (flashscope's docs/plugins.md says what the ABI asks of a kernel).

## Build, test, plan (no GPU needed)

```sh
)T",
                      build, R"T(
```

## On a GPU

```sh
flashscope run suite.json --out report.json    # verify, time, profile every case
flashscope show report.json
```

## The files

| file | what it is |
|---|---|
)T",
                      files, R"T(
| `suite.json` | the problems the kernel runs on (flashscope's docs/suites.md); its `"plugins"` finds the kernel relative to this folder |

## Make it yours

Change the kernel, keep `supports()` honest (a reason in words for every problem it cannot run:
flashscope skips those cases and says why), and give each new revision its own id
(`@NAME@.@SHORT@_v2`, revision 2) with what it changed, so that reports compare the revisions.
`flashscope ab suite.json --base OLD --new NEW` tells whether a change made it faster.
)T");
}

bool Lower(char c) { return c >= 'a' && c <= 'z'; }
bool Digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

std::string PluginNameProblem(const std::string& name) {
  const std::string want =
      "a plugin name is a lowercase letter, then lowercase letters, digits or '_', at most 40 "
      "characters (it names the plugin, its CMake target, its Python module and its kernel ids), "
      "e.g. my_kernels";
  if (name.empty()) return "no name given: " + want;
  if (name.size() > kMaxNameLength) return "'" + name + "' is too long: " + want;
  if (!Lower(name[0])) return "'" + name + "' does not start with a lowercase letter: " + want;
  for (char c : name) {
    if (!Lower(c) && !Digit(c) && c != '_') {
      return "'" + name + "' holds a character other than a-z, 0-9 and '_': " + want;
    }
  }
  if (name == "test") {
    return "'test' is taken: kernel ids starting with \"test.\" are reserved for flashscope's own "
           "test kernels; choose another name";
  }
  if (name == "flashscope")
    return "'flashscope' is taken (flashscope's own package); choose another";
  return "";
}

std::string KernelId(const PluginProject& p) {
  return p.name + (p.attention ? ".attn_v1" : ".gemm_v1");
}

std::vector<ProjectFile> PluginProjectFiles(const PluginProject& p) {
  std::vector<ProjectFile> files =
      p.python ? PythonProjectTemplates(p.attention) : CudaProjectTemplates(p.attention);
  files.push_back({"suite.json", Suite(p)});
  files.push_back({"README.md", Readme(p)});
  const std::vector<std::string> version = absl::StrSplit(p.flashscope_version, '.');
  const std::string major_minor =
      version.size() >= 2 ? version[0] + "." + version[1] : p.flashscope_version;
  const std::vector<std::pair<std::string, std::string>> fill = {
      {"@NAME@", p.name},
      {"@ID@", KernelId(p)},
      {"@SHORT@", p.attention ? "attn" : "gemm"},
      {"@VERSION@", major_minor},
      {"@FAMILY@", p.attention ? "attention_fwd" : "gemm"},
      {"@ABI_FAMILY@", p.attention ? "ATTENTION_FWD" : "GEMM"}};
  for (ProjectFile& f : files) {
    absl::StrReplaceAll(fill, &f.path);
    absl::StrReplaceAll(fill, &f.text);
  }
  return files;
}

absl::Status WritePluginProject(const std::string& folder, const std::vector<ProjectFile>& files) {
  std::error_code ec;
  if (fs::exists(folder, ec) || fs::is_symlink(folder, ec)) {
    return absl::FailedPreconditionError(
        absl::StrCat(folder,
                     " already exists: new-plugin writes a new folder and overwrites "
                     "nothing (choose another NAME or --dir, or move it away)"));
  }
  fs::create_directories(folder, ec);
  if (ec)
    return absl::PermissionDeniedError(absl::StrCat("cannot create ", folder, ": ", ec.message()));
  for (const ProjectFile& f : files) {
    const fs::path path = fs::path(folder) / f.path;
    fs::create_directories(path.parent_path(), ec);
    std::ofstream out(path, std::ios::binary);
    out << f.text;
    out.close();
    if (ec || !out) {
      const std::string why = ec ? ec.message() : std::strerror(errno != 0 ? errno : EIO);
      fs::remove_all(folder, ec);  // ours: it did not exist before
      return absl::PermissionDeniedError(
          absl::StrCat("cannot write ", path.string(), ": ", why, "; nothing was left behind"));
    }
  }
  return absl::OkStatus();
}

}  // namespace flashscope::cli
