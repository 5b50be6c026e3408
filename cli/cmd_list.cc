// `flashscope list`: the kernels with what they support, and the suites.
#include <cstdio>
#include <filesystem>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/commands.h"
#include "cli/common_flags.h"
#include "cli/output.h"
#include "reports/text_safety.h"
#include "suites/suite.h"

#if defined(FLASHSCOPE_HAVE_CUDA)
#include "kernels/registry.h"
#endif

namespace flashscope::cli {

namespace {

// Names and descriptions come from suite files and kernel libraries: shown inert.
std::string Safe(absl::string_view s) { return reports::text::TerminalSafe(s); }

#if defined(FLASHSCOPE_HAVE_CUDA)
// What a kernel supports, found by asking its constraints about probe problems along one axis
// at a time (the reasons themselves are printed for the first refusal).
std::string DescribeSupport(const kernels::KernelEntry& e) {
  std::vector<std::string> parts;
  std::string first_reason;
  auto note = [&](const std::string& why) {
    if (first_reason.empty() && !why.empty()) first_reason = why;
  };
  if (e.info.family == Family::kAttentionFwd) {
    AttentionProblem base;
    base.batch = 1, base.heads = 1, base.seq_q = base.seq_k = 1000, base.head_dim = 64;
    std::vector<std::string> dims, dtypes, seqs;
    for (int d : {32, 64, 96, 128, 256}) {
      AttentionProblem p = base;
      p.head_dim = d;
      for (DType t : {DType::kF16, DType::kBF16}) {
        p.dtype = t;
        std::string why = e.Supports(p);
        note(why);
        if (why.empty()) {
          dims.push_back(std::to_string(d));
          break;
        }
      }
    }
    for (DType t : {DType::kF16, DType::kBF16, DType::kF32}) {
      AttentionProblem p = base;
      p.dtype = t;
      std::string why = e.Supports(p);
      note(why);
      if (why.empty()) dtypes.emplace_back(DTypeName(t));
    }
    for (int s : {1, 17, 2047, 16384}) {
      AttentionProblem p = base;
      p.seq_q = p.seq_k = s;
      std::string why = e.Supports(p);
      note(why);
      if (why.empty()) seqs.push_back(std::to_string(s));
    }
    AttentionProblem uneven = base;
    uneven.seq_q = 17, uneven.seq_k = 1000, uneven.causal = true, uneven.want_lse = true;
    std::string why_uneven = e.Supports(uneven);
    note(why_uneven);
    parts.push_back("D " + (dims.empty() ? "none" : absl::StrJoin(dims, ",")));
    parts.push_back(dtypes.empty() ? "no dtype" : absl::StrJoin(dtypes, ","));
    parts.push_back("S tried 1,17,2047,16384: " +
                    (seqs.size() == 4 ? "all" : absl::StrJoin(seqs, ",")));
    parts.push_back(why_uneven.empty() ? "Sq!=Sk causal+lse ok" : "Sq!=Sk causal+lse no");
  } else {
    std::vector<std::string> dtypes;
    for (DType t : {DType::kF32, DType::kF16}) {
      GemmProblem g{1000, 17, 333, t};
      std::string why = e.Supports(g);
      note(why);
      if (why.empty()) dtypes.emplace_back(DTypeName(t));
    }
    parts.push_back(dtypes.empty() ? "no dtype" : absl::StrJoin(dtypes, ","));
  }
  std::string out = absl::StrJoin(parts, "; ");
  if (!first_reason.empty()) absl::StrAppend(&out, "\n      e.g. refused: ", first_reason);
  return out;
}
#endif

int List(const Args& args) {
#if defined(FLASHSCOPE_HAVE_CUDA)
  PrintF("kernels (id · revision · min arch · tile · what changed)\n");
  for (const auto& e : kernels::AllKernels(args.Bool("all"))) {
    const auto& i = e.info;
    PrintF("  %-28s r%-4d sm_%d  tile %dx%dx%d/%dthr  %s%s\n", Safe(i.id), i.revision, i.min_sm,
           i.tile.block_m, i.tile.block_n, i.tile.block_k, i.tile.threads, Safe(i.title),
           i.test_only ? "  [test-only]" : "");
    PrintF("      changed: %s\n      supports: %s\n", Safe(i.changed), Safe(DescribeSupport(e)));
  }
#else
  PrintF(
      "kernels: this flashscope was built without CUDA (FLASHSCOPE_CUDA=OFF or no nvcc);\n"
      "         rebuild with the CUDA toolkit to list and run kernels.\n");
#endif
  const std::string dir = SuitesDir(args);
  PrintF("\nsuites (in %s)\n", Safe(dir));
  for (const auto& path : suites::ListSuiteFiles(dir)) {
    auto suite = suites::LoadSuiteFile(path);
    if (!suite.ok()) {
      PrintF("  %-12s INVALID: %s\n", Safe(std::filesystem::path(path).stem().string()),
             Safe(suite.status().message()));
      continue;
    }
    PrintF("  %-12s %zu problems, kernels %s\n      %s\n", Safe(suite->name),
           suite->problems.size(), Safe(absl::StrJoin(suite->kernel_patterns, ",")),
           Safe(suite->description));
  }
  return 0;
}

}  // namespace

Command ListCommand() {
  Command c("list", "", "the kernels (what each supports, what it changed) and the suites", 0, 0,
            List);
  c.Add(Flag::Bool("all", "also the test-only (deliberately faulty) kernels")).Add(SuitesDirFlag());
  return c;
}

}  // namespace flashscope::cli
