// The subjects of `flashscope ab`'s quality experiment (scripts/device/ab-quality.sh,
// docs/gate-quality.md): one source built as several plugins (kernels/CMakeLists.txt:
// libfs_ab_a10_p0, p0b, p1, p2, p5) that offer the SAME ids, each build slower by a known
// percentage: `flashscope ab --base libfs_ab_a10_p0.so --new libfs_ab_a10_p2.so` must see +2 %.
//
// Ids test.ab_a10_1 .. test.ab_a10_5 are five copies of one kernel: attn.a10_fa2 followed, on the
// same stream, by a one-warp spin kernel (spin_delay.h). Five copies make a suite of 10 problems
// give 50 case pairs while inputs and references are made for 10 problems only.
//
// The spin lasts `percent` % of the cold median of (a10 + a zero-length spin), calibrated per copy
// and problem at the first launch (the verification launch, which is not timed). Every build
// launches the same two kernels, so two builds differ by the spin alone: a p % build takes
// (1 + p/100) times the 0 % build's time, and the 0 % builds need no calibration at all.
#pragma once

#include <vector>

#include "kernels/registry.h"

namespace flashscope::kernels {

inline constexpr int kAbFixtureCopies = 5;

std::vector<KernelEntry> AbFixtureKernels(int percent);

}  // namespace flashscope::kernels
