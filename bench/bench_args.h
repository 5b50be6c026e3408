// flashscope-bench's own flags (Google Benchmark removes its --benchmark_* flags first): the suite,
// a kernel filter, plugins and the suites folder, parsed by the CLI's framework (cli/args.h) so
// that
// `--suite ladder` works like `--suite=ladder` and an unknown flag is an error, not ignored.
#pragma once

#include <string>
#include <vector>

namespace flashscope::bench {

struct BenchArgs {
  std::string suite = "smoke";
  std::string kernels;
  std::string suites_dir;            // "" = the source tree's suites/
  std::vector<std::string> plugins;  // --plugin FILE, repeatable (docs/plugins.md)
  bool help = false;                 // print HelpText() and exit 0
  std::string error;                 // non-empty: print it and exit 2
};

// `words`: what benchmark::Initialize left of argv, without the program name.
BenchArgs ParseBenchArgs(const std::vector<std::string>& words);
std::string BenchHelpText();

}  // namespace flashscope::bench
