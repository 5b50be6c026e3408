#include "bench/bench_args.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cli/args.h"

namespace flashscope::bench {
namespace {

cli::Command BenchCommand() {
  cli::Command c;
  c.program = "flashscope-bench";
  c.summary =
      "a suite's cases as Google Benchmark benchmarks (its --benchmark_* flags apply too; "
      "docs/bench.md)";
  c.Add(cli::Flag::String("suite", "SUITE", "suite name in suites/ or a path (default smoke)"))
      .Add(cli::Flag::String("kernels", "GLOB", "comma list of kernel ids or globs"))
      .Add(cli::Flag::String("suites_dir", "DIR", "where suite files live"))
      .Add(cli::Flag::List("plugin", "FILE",
                           "a plugin whose kernels the suite may name (repeatable; "
                           "docs/plugins.md)"));
  return c;
}

}  // namespace

BenchArgs ParseBenchArgs(const std::vector<std::string>& words) {
  const cli::Command command = BenchCommand();
  cli::ParseOutcome p = cli::ParseCommandArgs(command, words, {command}, "");
  BenchArgs out;
  if (p.kind == cli::ParseOutcome::Kind::kHelp) {
    out.help = true;
    return out;
  }
  if (p.kind == cli::ParseOutcome::Kind::kError) {
    out.error = p.error;
    // Google Benchmark removed the flags it knows: a --benchmark_ flag left over is misspelt.
    if (absl::StrContains(p.error, "flag --benchmark_")) {
      absl::StrAppend(&out.error, " (not a Google Benchmark flag either: --help lists them)");
    }
    return out;
  }
  if (p.args.Given("suite")) out.suite = p.args.String("suite");
  out.kernels = p.args.String("kernels");
  out.suites_dir = p.args.String("suites_dir");
  out.plugins = p.args.List("plugin");
  return out;
}

std::string BenchHelpText() { return BenchCommand().Help(); }

}  // namespace flashscope::bench
