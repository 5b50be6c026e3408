// Synthetic histories with known steps, for the change-point detector's tests and its benchmark
// (change_point_bench.cc, the table in docs/history.md). A history of `revisions` revisions: each
// revision's true level is 1 ms times (1 + step) for every step at or before it; its run is off
// by a run-to-run factor (1 + N(0, noise)) and takes `samples` samples, each (1 + N(0, noise)) of
// that. So `noise` is both the run-to-run and the sample-to-sample relative spread.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "analysis/change_points.h"

namespace flashscope::reports::testing {

struct PlantedStep {
  int index = 0;    // first revision at the new level
  double size = 0;  // relative: +0.03 = 3 % slower
};

struct SyntheticHistorySpec {
  int revisions = 50;
  int samples = 20;
  double noise = 0.005;
  std::vector<PlantedStep> steps;
};

std::vector<RevisionSamples> MakeSyntheticHistory(const SyntheticHistorySpec& spec,
                                                  std::mt19937_64& rng);

struct DetectionScore {
  int planted = 0, detected = 0;         // detected: a change point at the planted index, same sign
  int histories = 0, false_changes = 0;  // change points at no planted index
  double DetectionRate() const { return planted ? static_cast<double>(detected) / planted : 0; }
  double FalsePer100() const { return histories ? 100.0 * false_changes / histories : 0; }
};

// Runs FindChangePoints on `trials` histories of `spec` and scores it.
DetectionScore ScoreDetector(const SyntheticHistorySpec& spec, int trials, uint64_t seed,
                             const ChangePointOptions& options = {});

}  // namespace flashscope::reports::testing
