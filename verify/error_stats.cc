#include "verify/error_stats.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "verify/half_convert.h"
#include "verify/parallel_chunks.h"

namespace flashscope::verify {

bool IsPoisoned(const void* data, DType t, int64_t i) {
  const size_t bytes = DTypeBytes(t);
  const auto* p = static_cast<const unsigned char*>(data) + bytes * i;
  for (size_t b = 0; b < bytes; ++b) {
    if (p[b] != kPoisonByte) return false;
  }
  return true;
}

ErrorStats StatsFromCheck(const OutputCheckCounts& counts, int64_t elements) {
  ErrorStats s;
  s.elements = elements;
  float max_abs = 0;
  static_assert(sizeof(max_abs) == sizeof(counts.max_abs_bits));
  std::memcpy(&max_abs, &counts.max_abs_bits, sizeof(max_abs));
  s.max_abs = max_abs;
  s.bad = static_cast<int64_t>(counts.bad);
  s.never_written = static_cast<int64_t>(counts.never_written);
  s.nan = static_cast<int64_t>(counts.nonfinite);  // NaN and Inf together
  return s;
}

namespace {

// One chunk's share of ComputeErrorStats, combined in chunk order: the counts and maxima of the
// result as they stand (`stats`), and what its means and worst index are made from at the end.
struct PartialStats {
  ErrorStats stats;
  int64_t finite = 0;
  int64_t first_never = -1, first_nonfinite = -1, argmax = -1;
  double sum_abs = 0, sum_sq = 0, sum_ref_sq = 0;
};

// The output's elements of one dtype, read without a per-element switch on the dtype. An element
// is never written when every byte still holds kPoisonByte (IsPoisoned).
template <typename Bits, float (*ToFloat)(Bits)>
struct Elements {
  static constexpr Bits kPoison =
      static_cast<Bits>(static_cast<Bits>(~Bits{0}) / 0xFF * kPoisonByte);
  const Bits* bits;
  bool Poisoned(int64_t i) const { return bits[i] == kPoison; }
  float Load(int64_t i) const { return ToFloat(bits[i]); }
};
using F32Elements = Elements<uint32_t, FloatFromBits>;
using F16Elements = Elements<uint16_t, HalfBitsToFloat>;
using Bf16Elements = Elements<uint16_t, Bf16BitsToFloat>;
// No kernel writes E4M3 outputs (an E4M3 attention's O is BF16), but the statistics of any array
// of the four types read the same way.
using E4M3Elements = Elements<uint8_t, E4M3BitsToFloat>;

// std::fmax's result, inline: GCC calls libm's fmax for it, twice an element, which cost the pass
// a third of its time. Equal to fmax for every pair but the sign of a zero when both are zero,
// which never reaches a statistic (the ratios are >= +0; a zero denominator is left out).
inline double MaxOfNumbers(double x, double y) {
  if (x >= y) return x;
  if (x < y) return y;
  return std::isnan(y) ? x : y;  // one of them is NaN: the other
}

// The statistics pass without heatmaps.
struct NoHeatmaps {
  void Add(float) {}
};

template <typename Out, typename Heatmaps>
PartialStats StatsOfRange(Out out, const float* ref, int64_t begin, int64_t end, Tolerance tol,
                          Heatmaps& heatmaps) {
  PartialStats s;
  // The running sums and maxima of finite elements in locals: in PartialStats (which the
  // heatmaps' double* cells may alias, for all the compiler knows) every element would store
  // and reload them.
  double sum_abs = 0, sum_sq = 0, sum_ref_sq = 0, max_abs = 0, max_rel = 0;
  int64_t finite = 0, bad = 0, argmax = -1;
  for (int64_t i = begin; i < end; ++i) {
    if (out.Poisoned(i)) {
      ++s.stats.never_written;
      if (s.first_never < 0) s.first_never = i;
      heatmaps.Add(kSaturatedError);
      continue;
    }
    const double o = out.Load(i);
    const double r = ref[i];
    if (!std::isfinite(o)) {
      if (std::isnan(o)) {
        ++s.stats.nan;
      } else {
        ++s.stats.inf;
      }
      ++bad;
      if (s.first_nonfinite < 0) s.first_nonfinite = i;
      heatmaps.Add(kSaturatedError);
      continue;
    }
    const double err = std::fabs(o - r);
    heatmaps.Add(SaturatedError(err));
    ++finite;
    sum_abs += err;
    sum_sq += err * err;
    sum_ref_sq += r * r;
    if (argmax < 0 || err > max_abs) {
      max_abs = err;
      argmax = i;
    }
    const double denom = MaxOfNumbers(std::fabs(r), tol.atol);
    if (denom > 0) max_rel = MaxOfNumbers(max_rel, err / denom);
    if (err > tol.atol + tol.rtol * std::fabs(r)) ++bad;
  }
  s.sum_abs = sum_abs;
  s.sum_sq = sum_sq;
  s.sum_ref_sq = sum_ref_sq;
  s.stats.max_abs = max_abs;
  s.stats.max_rel = max_rel;
  s.finite = finite;
  s.stats.bad = bad;
  s.argmax = argmax;
  return s;
}

template <typename Heatmaps>
PartialStats StatsOfRange(const void* out_raw, DType out_dtype, const float* ref, int64_t begin,
                          int64_t end, Tolerance tol, Heatmaps& heatmaps) {
  switch (out_dtype) {
    case DType::kF32:
      return StatsOfRange(F32Elements{static_cast<const uint32_t*>(out_raw)}, ref, begin, end, tol,
                          heatmaps);
    case DType::kF16:
      return StatsOfRange(F16Elements{static_cast<const uint16_t*>(out_raw)}, ref, begin, end, tol,
                          heatmaps);
    case DType::kBF16:
      return StatsOfRange(Bf16Elements{static_cast<const uint16_t*>(out_raw)}, ref, begin, end, tol,
                          heatmaps);
    case DType::kE4M3:
      return StatsOfRange(E4M3Elements{static_cast<const uint8_t*>(out_raw)}, ref, begin, end, tol,
                          heatmaps);
  }
  return {};
}

// `b` covers elements after `a`'s: firsts and the first maximum stay the earliest.
void Combine(PartialStats* a, const PartialStats& b) {
  a->stats.never_written += b.stats.never_written;
  a->stats.nan += b.stats.nan;
  a->stats.inf += b.stats.inf;
  a->stats.bad += b.stats.bad;
  a->finite += b.finite;
  if (a->first_never < 0) a->first_never = b.first_never;
  if (a->first_nonfinite < 0) a->first_nonfinite = b.first_nonfinite;
  if (b.argmax >= 0 && (a->argmax < 0 || b.stats.max_abs > a->stats.max_abs)) {
    a->stats.max_abs = b.stats.max_abs;
    a->argmax = b.argmax;
  }
  a->sum_abs += b.sum_abs;
  a->sum_sq += b.sum_sq;
  a->sum_ref_sq += b.sum_ref_sq;
  a->stats.max_rel = std::fmax(a->stats.max_rel, b.stats.max_rel);
}

}  // namespace

ErrorStats ComputeErrorStats(const void* out_raw, DType out_dtype, const float* ref, int64_t n,
                             Tolerance tol, HeatmapAccumulator* heatmaps) {
  if (heatmaps != nullptr && heatmaps->elements() != n) {
    std::fprintf(stderr,
                 "ComputeErrorStats: heatmaps laid out for %lld elements, output has %lld\n",
                 static_cast<long long>(heatmaps->elements()), static_cast<long long>(n));
    std::abort();
  }
  const int chunks = ChunkCount(n, kStatsChunkElements);
  std::vector<PartialStats> parts(static_cast<size_t>(chunks));
  if (heatmaps != nullptr) heatmaps->Begin(chunks);
  ForEachChunk(n, kStatsChunkElements, [&](int c, int64_t begin, int64_t end) {
    if (heatmaps != nullptr) {
      HeatmapAccumulator::Cursor cursor = heatmaps->Start(c, begin);
      parts[c] = StatsOfRange(out_raw, out_dtype, ref, begin, end, tol, cursor);
    } else {
      NoHeatmaps none;
      parts[c] = StatsOfRange(out_raw, out_dtype, ref, begin, end, tol, none);
    }
  });
  PartialStats all;
  for (const PartialStats& p : parts) Combine(&all, p);
  ErrorStats s = all.stats;
  s.elements = n;
  if (all.finite > 0) {
    s.mean_abs = all.sum_abs / all.finite;
    const double rmse = std::sqrt(all.sum_sq / all.finite);
    const double ref_rms = std::sqrt(all.sum_ref_sq / all.finite);
    s.nrmse = ref_rms > 0 ? rmse / ref_rms : rmse;
  }
  s.worst_index = all.first_never >= 0
                      ? all.first_never
                      : (all.first_nonfinite >= 0 ? all.first_nonfinite : all.argmax);
  return s;
}

LseStats ComputeLseStats(const float* lse, const float* ref, int64_t n, Tolerance tol) {
  LseStats s;
  s.elements = n;
  int64_t first_bad = -1, argmax = -1;
  for (int64_t i = 0; i < n; ++i) {
    if (IsPoisoned(lse, DType::kF32, i)) {
      ++s.never_written;
      if (first_bad < 0) first_bad = i;
      continue;
    }
    const double l = lse[i], r = ref[i];
    if (!std::isfinite(l) || !std::isfinite(r)) {
      // Equal infinities agree (the -inf of a row that sees no key); anything else does not.
      if (!(std::isinf(l) && l == r)) {
        ++s.mismatched;
        ++s.bad;
        if (first_bad < 0) first_bad = i;
      }
      continue;
    }
    const double err = std::fabs(l - r);
    if (argmax < 0 || err > s.max_abs) {
      s.max_abs = err;
      argmax = i;
    }
    if (err > tol.atol + tol.rtol * std::fabs(r)) ++s.bad;
  }
  s.worst_index = first_bad >= 0 ? first_bad : argmax;
  return s;
}

}  // namespace flashscope::verify
