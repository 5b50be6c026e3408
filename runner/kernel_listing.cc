#include "runner/kernel_listing.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "reports/text_safety.h"
#include "protocol/worker_protocol.h"

namespace flashscope::runner {
namespace {

// Titles, reasons, names and paths come from plugins: shown inert.
std::string Safe(absl::string_view s) { return reports::text::TerminalSafe(s); }

// Records the first refusal, to print it as an example.
struct Probe {
  const plugins::Kernel& k;
  std::string first_reason;
  bool Accepts(const Problem& p) {
    std::string why = k.Supports(p);
    if (first_reason.empty()) first_reason = why;
    return why.empty();
  }
};

std::string DescribeAttention(Probe& probe) {
  AttentionProblem base;
  base.batch = 1, base.heads = 1, base.seq_q = base.seq_k = 1000, base.head_dim = 64;
  std::vector<std::string> dims, dtypes, seqs;
  for (int d : {32, 64, 96, 128, 256}) {
    AttentionProblem p = base;
    p.head_dim = d;
    for (DType t : {DType::kF16, DType::kBF16}) {
      p.dtype = t;
      if (probe.Accepts(p)) {
        dims.push_back(std::to_string(d));
        break;
      }
    }
  }
  for (DType t : {DType::kF16, DType::kBF16, DType::kF32}) {
    AttentionProblem p = base;
    p.dtype = t;
    if (probe.Accepts(p)) dtypes.emplace_back(DTypeName(t));
  }
  for (int s : {1, 17, 2047, 16384}) {
    AttentionProblem p = base;
    p.seq_q = p.seq_k = s;
    if (probe.Accepts(p)) seqs.push_back(std::to_string(s));
  }
  AttentionProblem uneven = base;
  uneven.seq_q = 17, uneven.seq_k = 1000, uneven.causal = true, uneven.want_lse = true;
  const bool uneven_ok = probe.Accepts(uneven);
  return absl::StrCat(
      "D ", dims.empty() ? "none" : absl::StrJoin(dims, ","), "; ",
      dtypes.empty() ? "no dtype" : absl::StrJoin(dtypes, ","),
      "; S tried 1,17,2047,16384: ", seqs.size() == 4 ? "all" : absl::StrJoin(seqs, ","),
      uneven_ok ? "; Sq!=Sk causal+lse ok" : "; Sq!=Sk causal+lse no");
}

std::string DescribeGemm(Probe& probe) {
  std::vector<std::string> dtypes;
  for (DType t : {DType::kF32, DType::kF16}) {
    if (probe.Accepts(GemmProblem{1000, 17, 333, t})) dtypes.emplace_back(DTypeName(t));
  }
  return dtypes.empty() ? "no dtype" : absl::StrJoin(dtypes, ",");
}

std::string DescribePlugin(const plugins::Provenance& p) {
  if (p.builtin) return absl::StrCat("  built-in                 flashscope ", p.version, "\n");
  return absl::StrFormat("  %-24s version %s\n      file %s\n      sha256 %s\n", Safe(p.name),
                         p.version.empty() ? "(none given)" : Safe(p.version), Safe(p.path),
                         p.sha256);
}

}  // namespace

std::string ListKernels(const plugins::PluginSet& set, bool all, int progress_fd) {
  std::string out = "kernels come from:\n";
  for (const auto& p : set.plugins()) absl::StrAppend(&out, DescribePlugin(p));
  absl::StrAppend(&out, "\nkernels (id · revision · min arch · tile · what changed)\n");
  for (const plugins::Kernel* k : set.kernels()) {
    const KernelInfo& i = k->info();
    if (i.test_only && !all) continue;
    const plugins::Provenance& from = k->provenance();
    suites::protocol::Tell(
        progress_fd, {suites::protocol::Event::kPhase, "", "",
                      absl::StrCat("supports() of ", i.id,
                                   from.builtin ? "" : absl::StrCat(" (plugin ", from.path, ")"))});
    Probe probe{*k, ""};
    const std::string support =
        i.family == Family::kAttentionFwd ? DescribeAttention(probe) : DescribeGemm(probe);
    absl::StrAppendFormat(&out, "  %-28s r%-4d sm_%d  tile %dx%dx%d/%dthr  %s%s%s\n", Safe(i.id),
                          i.revision, i.min_sm, i.tile.block_m, i.tile.block_n, i.tile.block_k,
                          i.tile.threads, Safe(i.title), i.test_only ? "  [test-only]" : "",
                          from.builtin ? "" : absl::StrCat("  [", Safe(from.name), "]"));
    absl::StrAppend(&out, "      changed: ", Safe(i.changed), "\n      supports: ", support, "\n");
    if (!probe.first_reason.empty()) {
      absl::StrAppend(&out, "      e.g. refused: ", Safe(probe.first_reason), "\n");
    }
  }
  return out;
}

}  // namespace flashscope::runner
