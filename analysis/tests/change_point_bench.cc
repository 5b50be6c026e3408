// flashscope-changepoint-bench: the change-point detector (analysis/change_points.h) measured on
// synthetic histories with known steps (synthetic_series.h): the detection rate of planted steps
// and the false change points per 100 histories, across step size, noise, position and several
// steps per series. Prints the markdown table of docs/history.md.
//   flashscope-changepoint-bench [--trials N] [--seed S]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "analysis/tests/synthetic_series.h"

namespace fr = flashscope::reports;
namespace ft = flashscope::reports::testing;

namespace {

void Row(const char* scenario, const ft::SyntheticHistorySpec& spec, const std::string& steps,
         int trials, uint64_t seed) {
  const ft::DetectionScore s = ft::ScoreDetector(spec, trials, seed);
  char detected[32] = "-";
  if (s.planted) std::snprintf(detected, sizeof detected, "%.1f %%", s.DetectionRate() * 100);
  std::printf("| %s | %s | %.2f %% | %d | %s | %.1f |\n", scenario, steps.c_str(), spec.noise * 100,
              spec.revisions, detected, s.FalsePer100());
}

std::string Describe(const std::vector<ft::PlantedStep>& steps) {
  std::string out;
  for (const ft::PlantedStep& s : steps) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s%+g %% at %d", out.empty() ? "" : ", ", s.size * 100,
                  s.index);
    out += buf;
  }
  return out.empty() ? "none" : out;
}

}  // namespace

int main(int argc, char** argv) {
  int trials = 200;
  uint64_t seed = 26;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--trials") && i + 1 < argc) {
      trials = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--seed") && i + 1 < argc) {
      seed = std::strtoull(argv[++i], nullptr, 10);
    } else {
      std::fprintf(stderr, "usage: %s [--trials N] [--seed S]\n", argv[0]);
      return 2;
    }
  }
  if (trials < 1) {
    std::fprintf(stderr, "--trials must be at least 1\n");
    return 2;
  }
  const fr::ChangePointOptions defaults;
  std::printf("Detector: %s. %d histories per row, seed %llu, 20 samples per revision.\n\n",
              fr::ChangePointMethod(defaults).c_str(), trials,
              static_cast<unsigned long long>(seed));
  std::printf(
      "| scenario | planted steps (size at revision) | noise | revisions | detected | "
      "false change points / 100 histories |\n|---|---|---:|---:|---:|---:|\n");
  ft::SyntheticHistorySpec spec;
  for (double noise : {0.0025, 0.005, 0.01, 0.02}) {
    spec.noise = noise;
    spec.steps = {};
    Row("noise only", spec, "none", trials, seed);
  }
  for (double noise : {0.0025, 0.005, 0.01, 0.02}) {
    for (double size : {0.01, 0.02, 0.03, 0.05, 0.10}) {
      spec.noise = noise;
      spec.steps = {{25, size}};
      Row("step size", spec, Describe(spec.steps), trials, seed);
    }
  }
  spec.noise = 0.005;
  for (int at : {1, 5, 25, 45, 49}) {
    for (double size : {0.03, -0.03}) {
      spec.steps = {{at, size}};
      Row("position", spec, Describe(spec.steps), trials, seed);
    }
  }
  for (double noise : {0.0025, 0.005, 0.01}) {
    spec.noise = noise;
    spec.steps = {{12, 0.03}, {25, -0.03}, {38, 0.05}};
    Row("several steps", spec, Describe(spec.steps), trials, seed);
    spec.steps = {{10, 0.03}, {11, 0.03}, {30, 0.05}, {40, -0.05}};
    Row("several steps", spec, Describe(spec.steps), trials, seed);
  }
  return 0;
}
