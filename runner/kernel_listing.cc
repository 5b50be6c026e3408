#include "runner/kernel_listing.h"

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/closest_names.h"
#include "protocol/worker_protocol.h"
#include "reports/text_safety.h"
#include "runner/planner.h"

namespace flashscope::runner {
namespace {

// Titles, reasons, names and paths come from plugins: shown inert.
std::string Safe(absl::string_view s) { return reports::text::TerminalSafe(s); }

// Records the first refusal, to print it as an example, and whether any probe was accepted.
struct Probe {
  const plugins::Kernel& k;
  std::string first_reason;
  bool any_accepted = false;
  bool Accepts(const Problem& p) {
    std::string why = k.Supports(p);
    if (first_reason.empty()) first_reason = why;
    any_accepted |= why.empty();
    return why.empty();
  }
  // Whether the kernel is asked about `t` at all: E4M3 only with FS_KERNEL_ACCEPTS_FP8. The
  // listing skips the rest rather than print DTypeMismatch's refusal for every older kernel.
  bool Offered(DType t) const { return DTypeMismatch(k.info(), t).empty(); }
};

std::string DescribeAttention(Probe& probe) {
  AttentionProblem base;
  base.batch = 1, base.heads = 1, base.seq_q = base.seq_k = 1000, base.head_dim = 64;
  std::vector<std::string> dims, dtypes, seqs;
  for (int d : {32, 64, 96, 128, 256}) {
    AttentionProblem p = base;
    p.head_dim = d;
    for (DType t : kAllDTypes) {
      p.dtype = t;
      if (probe.Offered(t) && probe.Accepts(p)) {
        dims.push_back(std::to_string(d));
        break;
      }
    }
  }
  std::optional<DType> first_dtype;
  for (DType t : kAllDTypes) {
    AttentionProblem p = base;
    p.dtype = t;
    if (probe.Offered(t) && probe.Accepts(p)) {
      dtypes.emplace_back(DTypeName(t));
      if (!first_dtype) first_dtype = t;
    }
  }
  // The length probes ask in a dtype and head dim the kernel takes (an FP8-only rung would
  // refuse every fp16 probe and list no length at all).
  if (first_dtype) base.dtype = *first_dtype;
  if (!dims.empty()) base.head_dim = std::stoi(dims.front());
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
  for (DType t : kAllDTypes) {
    if (probe.Offered(t) && probe.Accepts(GemmProblem{1000, 17, 333, t})) {
      dtypes.emplace_back(DTypeName(t));
    }
  }
  return dtypes.empty() ? "no dtype" : absl::StrJoin(dtypes, ",");
}

std::string DescribePlugin(const plugins::Provenance& p) {
  if (p.builtin) return absl::StrCat("  built-in                 flashscope ", p.version, "\n");
  return absl::StrFormat("  %-24s version %s\n      file %s\n      sha256 %s\n", Safe(p.plugin),
                         p.version.empty() ? "(none given)" : Safe(p.version), Safe(p.path),
                         p.sha256);
}

// The kernels the options select, in the set's order; `unmatched` gets the patterns that select
// none. A test-only kernel needs --all or a pattern that starts with "test." (as in a suite).
std::vector<const plugins::Kernel*> Selected(const plugins::PluginSet& set,
                                             const ListOptions& options,
                                             std::vector<std::string>* unmatched) {
  const std::vector<std::string> patterns =
      absl::StrSplit(options.kernels_filter, ',', absl::SkipEmpty());
  std::vector<bool> pattern_used(patterns.size(), false);
  std::vector<const plugins::Kernel*> out;
  for (const plugins::Kernel* k : set.kernels()) {
    const KernelInfo& i = k->info();
    if (options.plugin_only && k->provenance().builtin) continue;
    bool wanted = patterns.empty() && (!i.test_only || options.all);
    for (size_t p = 0; p < patterns.size(); ++p) {
      const bool test_ok = options.all || patterns[p].rfind("test.", 0) == 0;
      if ((!i.test_only || test_ok) && GlobMatch(patterns[p], i.id)) {
        wanted = true;
        pattern_used[p] = true;
      }
    }
    if (wanted) out.push_back(k);
  }
  std::vector<std::string> ids;
  for (const plugins::Kernel* k : set.kernels()) {
    if (!options.plugin_only || !k->provenance().builtin) ids.push_back(k->info().id);
  }
  for (size_t p = 0; p < patterns.size(); ++p) {
    if (pattern_used[p]) continue;
    unmatched->push_back(absl::StrCat(
        "'", Safe(patterns[p]),
        "' (closest: ", Safe(absl::StrJoin(ClosestNames(patterns[p], ids, 3), ", ")), ")"));
  }
  return out;
}

std::string DescribeKernel(const plugins::Kernel& k, int progress_fd) {
  const KernelInfo& i = k.info();
  const plugins::Provenance& from = k.provenance();
  suites::protocol::Tell(
      progress_fd, {suites::protocol::Event::kPhase, "", "",
                    absl::StrCat("supports() of ", i.id,
                                 from.builtin ? "" : absl::StrCat(" (plugin ", from.path, ")"))});
  Probe probe{k, "", false};
  const std::string support =
      i.family == Family::kAttentionFwd ? DescribeAttention(probe) : DescribeGemm(probe);
  std::string out =
      absl::StrFormat("  %-28s r%-4d sm_%d  tile %dx%dx%d/%dthr  %s%s%s\n", Safe(i.id), i.revision,
                      i.min_sm, i.tile.block_m, i.tile.block_n, i.tile.block_k, i.tile.threads,
                      Safe(i.title), i.test_only ? "  [test-only]" : "",
                      from.builtin ? "" : absl::StrCat("  [", Safe(from.plugin), "]"));
  absl::StrAppend(&out, "      changed: ", Safe(i.changed), "\n      supports: ", support, "\n");
  if (!probe.any_accepted) {
    // Nothing it was asked about would run: a suite of such problems plans cases that all skip.
    absl::StrAppend(&out, "      REFUSED every problem it was asked about, e.g.: ",
                    Safe(probe.first_reason), "\n");
  } else if (!probe.first_reason.empty()) {
    absl::StrAppend(&out, "      e.g. refused: ", Safe(probe.first_reason), "\n");
  }
  return out;
}

}  // namespace

Listing ListKernels(const plugins::PluginSet& set, const ListOptions& options) {
  Listing listing;
  std::string& out = listing.text;
  out = "kernels come from:\n";
  for (const auto& p : set.plugins()) {
    if (!options.plugin_only || !p.builtin) absl::StrAppend(&out, DescribePlugin(p));
  }
  const std::vector<const plugins::Kernel*> kernels = Selected(set, options, &listing.unmatched);
  absl::StrAppend(&out, "\nkernels (id · revision · min arch · tile · what changed)",
                  options.kernels_filter.empty()
                      ? ""
                      : absl::StrCat(", --kernels ", Safe(options.kernels_filter)),
                  options.plugin_only ? ", plugin files only" : "", "\n");
  for (const plugins::Kernel* k : kernels)
    absl::StrAppend(&out, DescribeKernel(*k, options.progress_fd));
  if (kernels.empty()) absl::StrAppend(&out, "  (none)\n");
  return listing;
}

}  // namespace flashscope::runner
