// flashscope-audit: the static audit of our kernels' SASS, with no GPU. Runs
// `cuobjdump -sass -res-usage` on the kernels' library (or the flashscope binary), attributes the
// functions to the registry's kernels and applies the policy (audit/audit_policy.h):
//
//   flashscope-audit --input build/kernels/libfs_kernels.a --out audit.json
//   flashscope-audit --sass saved-cuobjdump-output.txt        # audit a saved listing
//
// cuobjdump and nvdisasm are not part of every CUDA install; scripts/install-deps.sh puts PyPI's
// nvidia-cuda-cuobjdump / nvidia-cuda-nvdisasm wheels into a tools folder this program searches.
// Exit: 0 the policy holds, 1 a violation, 2 bad input or no cuobjdump.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "audit/audit_policy.h"
#include "audit/sass_parse.h"
#include "kernels/registry.h"

ABSL_FLAG(std::string, input, "",
          "binary to audit: the kernels' static library (build/kernels/libfs_kernels.a) or the "
          "flashscope executable");
ABSL_FLAG(std::string, sass, "", "audit this saved `cuobjdump -sass -res-usage` output instead");
ABSL_FLAG(std::string, save_sass, "", "also write cuobjdump's output to this file");
ABSL_FLAG(std::string, out, "", "write the JSON audit report here (docs/audit.md)");
ABSL_FLAG(std::string, cuobjdump, "", "cuobjdump to run (default: see FindCuobjdump)");

namespace fs = std::filesystem;
using flashscope::audit::KernelDescriptor;

namespace {

// --cuobjdump, $FLASHSCOPE_CUOBJDUMP, the tools folder of scripts/install-deps.sh
// ($FLASHSCOPE_TOOLS_DIR, default ~/.cache/flashscope/tools), $PATH, /usr/local/cuda/bin.
std::string FindCuobjdump() {
  std::vector<std::string> candidates;
  if (!absl::GetFlag(FLAGS_cuobjdump).empty()) return absl::GetFlag(FLAGS_cuobjdump);
  if (const char* e = std::getenv("FLASHSCOPE_CUOBJDUMP")) candidates.push_back(e);
  std::string tools;
  if (const char* t = std::getenv("FLASHSCOPE_TOOLS_DIR")) {
    tools = t;
  } else if (const char* home = std::getenv("HOME")) {
    tools = absl::StrCat(home, "/.cache/flashscope/tools");
  }
  if (!tools.empty()) candidates.push_back(tools + "/nvidia/cu13/bin/cuobjdump");
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    for (std::string dir; std::getline(ss, dir, ':');) candidates.push_back(dir + "/cuobjdump");
  }
  candidates.push_back("/usr/local/cuda/bin/cuobjdump");
  for (const auto& c : candidates) {
    if (access(c.c_str(), X_OK) == 0) return c;
  }
  return "";
}

// Runs cuobjdump with nvdisasm's folder (beside it, in the wheels' layout) on PATH.
int RunCuobjdump(const std::string& tool, const std::string& input, std::string* text,
                 std::string* version) {
  const std::string dir = fs::path(tool).parent_path().string();
  const std::string env = absl::StrCat("PATH='", dir, "':\"$PATH\" ");
  if (FILE* v = popen((env + "'" + tool + "' --version 2>&1 | tail -n 1").c_str(), "r")) {
    char buf[512];
    while (fgets(buf, sizeof buf, v)) *version += buf;
    pclose(v);
    while (!version->empty() && version->back() == '\n') version->pop_back();
  }
  FILE* p = popen((env + "'" + tool + "' -sass -res-usage '" + input + "' 2>&1").c_str(), "r");
  if (p == nullptr) return -1;
  char buf[1 << 16];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) text->append(buf, n);
  int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::vector<KernelDescriptor> RegistryKernels() {
  std::vector<KernelDescriptor> out;
  for (const auto& e : flashscope::kernels::AllKernels()) {
    out.push_back({e.info.id, std::string(flashscope::FamilyName(e.info.family)), e.info.revision,
                   e.info.is_peer, e.info.test_only, e.info.exact_sm, e.info.required_sass});
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "flashscope-audit --input LIB_OR_BINARY [--out audit.json] | --sass SAVED.txt");
  absl::ParseCommandLine(argc, argv);
  std::string text, input, tool_text;
  if (!absl::GetFlag(FLAGS_sass).empty()) {
    input = absl::GetFlag(FLAGS_sass);
    std::ifstream f(input);
    if (!f) {
      std::fprintf(stderr, "flashscope-audit: cannot read --sass %s\n", input.c_str());
      return 2;
    }
    std::stringstream ss;
    ss << f.rdbuf();
    text = ss.str();
    tool_text = "saved cuobjdump output";
  } else {
    input = absl::GetFlag(FLAGS_input);
    if (input.empty() || !fs::exists(input)) {
      std::fprintf(stderr,
                   "flashscope-audit: give --input (the kernels' library, e.g. "
                   "build/kernels/libfs_kernels.a, or the flashscope binary)%s\n",
                   input.empty() ? "" : (": " + input + " does not exist").c_str());
      return 2;
    }
    const std::string tool = FindCuobjdump();
    if (tool.empty()) {
      std::fprintf(stderr,
                   "flashscope-audit: cuobjdump not found (it is not in every CUDA install). "
                   "Run scripts/install-deps.sh, which installs PyPI's nvidia-cuda-cuobjdump and "
                   "nvidia-cuda-nvdisasm into ~/.cache/flashscope/tools, or pass --cuobjdump\n");
      return 2;
    }
    std::string version;
    int rc = RunCuobjdump(tool, input, &text, &version);
    if (rc != 0) {
      std::fprintf(stderr, "flashscope-audit: %s -sass -res-usage %s failed (exit %d):\n%.2000s\n",
                   tool.c_str(), input.c_str(), rc, text.c_str());
      return 2;
    }
    tool_text = absl::StrCat(tool, " (", version, ")");
    if (!absl::GetFlag(FLAGS_save_sass).empty()) {
      std::ofstream(absl::GetFlag(FLAGS_save_sass)) << text;
    }
  }
  auto functions = flashscope::audit::ParseCuobjdumpSass(text);
  if (!functions.ok()) {
    std::fprintf(stderr, "flashscope-audit: %s: %s\n", input.c_str(),
                 std::string(functions.status().message()).c_str());
    return 2;
  }
  auto audits = flashscope::audit::AuditKernels(RegistryKernels(), *functions);
  auto json = flashscope::audit::AuditToJson(audits, input, tool_text);
  std::printf("static audit of %s: %zu device functions\n%s", input.c_str(), functions->size(),
              flashscope::audit::RenderAuditTable(audits).c_str());
  for (const auto& v : json["violations"])
    std::printf("VIOLATION %s\n", v.get<std::string>().c_str());
  if (!absl::GetFlag(FLAGS_out).empty()) {
    std::ofstream out(absl::GetFlag(FLAGS_out));
    out << json.dump(2) << "\n";
    if (!out) {
      std::fprintf(stderr, "flashscope-audit: cannot write %s\n", absl::GetFlag(FLAGS_out).c_str());
      return 2;
    }
    std::printf("audit report: %s\n", absl::GetFlag(FLAGS_out).c_str());
  }
  const bool passed = json["passed"].get<bool>();
  std::printf("audit: %s (%zu violation(s))\n", passed ? "passed" : "FAILED",
              json["violations"].size());
  return passed ? 0 : 1;
}
