// Host side shared by the Hopper attention rungs (a12+): which problems they take, and the TMA
// tensor maps of a launch. Plain C++ (compiled once into fs_kernels, not per rung).
#pragma once

#include <cuda.h>

#include <string>

#include "common/problem.h"
#include "kernels/registry.h"

namespace flashscope::kernels::attn_sm90 {

// "" when the Hopper rungs take the problem (query tiles of `bm` rows), else the reason.
std::string Supports(const AttentionProblem& p, int bm);

// Multiprocessors of the current device (the persistent rung's grid size), read once per device
// and thread; 0 when the runtime cannot say.
int MultiprocessorCount();

struct TensorMaps {
  CUtensorMap q, k, v;
};

// 3-D tensor maps over Q [B·H, Sq, D] and K, V [B·H, Sk, D], 128-byte swizzled, boxes of 64
// columns x `bm` (Q) or `bn` (K, V) rows: a head's rows past its sequence length load as zeros.
// Encoded once per buffers and shape, then reused: a timing loop relaunches on the same buffers,
// and the driver call costs microseconds of host time before each launch. "" or the reason.
std::string MapsFor(const AttentionProblem& p, const AttentionArgs& a, int bm, int bn,
                    TensorMaps* out);

}  // namespace flashscope::kernels::attn_sm90
