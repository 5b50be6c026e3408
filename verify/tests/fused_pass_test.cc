// The threaded statistics pass with its heatmaps (ComputeErrorStats with a HeatmapAccumulator)
// against the straightforward computation written out element by element on one thread: the
// statistics, heatmaps and lse statistics must be exactly equal (bit for bit, doubles compared
// with ==), on outputs with NaN, Inf, never-written elements and huge errors, in every dtype, at
// sizes of several chunks that are not multiples of the chunk size (chunk edges mid-row), and
// a few NaN and Inf elements in the reference itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "verify/error_stats.h"
#include "verify/half_convert.h"
#include "verify/heatmap.h"
#include "verify/parallel_chunks.h"
#include "verify/tests/synthetic_outputs.h"

namespace flashscope::verify {
namespace {

// |out - ref| of element i as a heatmap holds it, from the generic per-element readers.
float StraightError(const void* out, DType t, const float* ref, int64_t i) {
  if (IsPoisoned(out, t, i)) return std::numeric_limits<float>::max();
  const double err = std::fabs(static_cast<double>(LoadAsFloat(out, t, i)) - ref[i]);
  return std::isfinite(err) && err < std::numeric_limits<float>::max()
             ? static_cast<float>(err)
             : std::numeric_limits<float>::max();
}

// Statistics as error_stats.h defines them: sums in element order within each chunk of
// ChunkCount(n, kStatsChunkElements), chunk sums added in chunk order.
ErrorStats StraightStats(const void* out, DType t, const float* ref, int64_t n, Tolerance tol) {
  const int chunks = ChunkCount(n, kStatsChunkElements);
  ErrorStats s;
  s.elements = n;
  int64_t finite = 0, first_never = -1, first_nonfinite = -1, argmax = -1;
  double sum_abs = 0, sum_sq = 0, sum_ref_sq = 0;
  for (int c = 0; c < chunks; ++c) {
    double chunk_abs = 0, chunk_sq = 0, chunk_ref_sq = 0;
    for (int64_t i = ChunkBegin(n, chunks, c); i < ChunkBegin(n, chunks, c + 1); ++i) {
      if (IsPoisoned(out, t, i)) {
        ++s.never_written;
        if (first_never < 0) first_never = i;
        continue;
      }
      const double o = LoadAsFloat(out, t, i), r = ref[i];
      if (!std::isfinite(o)) {
        ++(std::isnan(o) ? s.nan : s.inf);
        ++s.bad;
        if (first_nonfinite < 0) first_nonfinite = i;
        continue;
      }
      const double err = std::fabs(o - r);
      ++finite;
      chunk_abs += err;
      chunk_sq += err * err;
      chunk_ref_sq += r * r;
      if (argmax < 0 || err > s.max_abs) s.max_abs = err, argmax = i;
      const double denom = std::fmax(std::fabs(r), tol.atol);
      if (denom > 0) s.max_rel = std::fmax(s.max_rel, err / denom);
      if (err > tol.atol + tol.rtol * std::fabs(r)) ++s.bad;
    }
    sum_abs += chunk_abs;
    sum_sq += chunk_sq;
    sum_ref_sq += chunk_ref_sq;
  }
  if (finite > 0) {
    s.mean_abs = sum_abs / finite;
    const double rmse = std::sqrt(sum_sq / finite), ref_rms = std::sqrt(sum_ref_sq / finite);
    s.nrmse = ref_rms > 0 ? rmse / ref_rms : rmse;
  }
  s.worst_index =
      first_never >= 0 ? first_never : (first_nonfinite >= 0 ? first_nonfinite : argmax);
  return s;
}

// One map written out: element i's source cell (row, col) from `source`, binned with BinEdges;
// per-chunk sums in element order, added in chunk order (heatmap.h).
template <typename Source>
Heatmap StraightMap(const std::vector<float>& err, int64_t src_rows, int64_t src_cols,
                    int64_t max_rows, int64_t max_cols, Source source) {
  const std::vector<int64_t> re = BinEdges(src_rows, max_rows), ce = BinEdges(src_cols, max_cols);
  auto bin = [](const std::vector<int64_t>& edges, int64_t x) {
    return static_cast<int64_t>(std::upper_bound(edges.begin(), edges.end(), x) - edges.begin()) -
           1;
  };
  Heatmap h;
  h.src_rows = src_rows;
  h.src_cols = src_cols;
  h.rows = static_cast<int>(re.size() - 1);
  h.cols = static_cast<int>(ce.size() - 1);
  const size_t cells = static_cast<size_t>(h.rows) * h.cols;
  h.max.assign(cells, 0.f);
  std::vector<double> sum(cells, 0.0);
  std::vector<int64_t> count(cells, 0);
  const int64_t n = static_cast<int64_t>(err.size());
  const int chunks = ChunkCount(n, kStatsChunkElements);
  for (int c = 0; c < chunks; ++c) {
    std::vector<double> chunk_sum(cells, 0.0);
    for (int64_t i = ChunkBegin(n, chunks, c); i < ChunkBegin(n, chunks, c + 1); ++i) {
      int64_t r = 0, col = 0;
      source(i, &r, &col);
      const size_t cell = static_cast<size_t>(bin(re, r) * h.cols + bin(ce, col));
      h.max[cell] = std::max(h.max[cell], err[i]);
      chunk_sum[cell] += err[i];
      ++count[cell];
    }
    for (size_t k = 0; k < cells; ++k) sum[k] += chunk_sum[k];
  }
  h.mean.resize(cells);
  for (size_t k = 0; k < cells; ++k) {
    h.mean[k] = count[k] > 0 ? static_cast<float>(sum[k] / count[k]) : 0.f;
  }
  return h;
}

std::vector<float> StraightErrors(const testing::SyntheticOutputs& d) {
  std::vector<float> e(d.reference.size());
  for (size_t i = 0; i < e.size(); ++i) {
    e[i] = StraightError(d.output_data(), d.dtype, d.reference.data(), static_cast<int64_t>(i));
  }
  return e;
}

std::vector<Heatmap> StraightAttentionMaps(const AttentionProblem& p, const std::vector<float>& e,
                                           int block_m, int side) {
  const int64_t sq = p.seq_q, d = p.head_dim, bh = p.batch * p.heads;
  const int64_t profile_cols = std::min<int64_t>(1024, 4 * int64_t{side});
  std::vector<Heatmap> maps;
  maps.push_back(StraightMap(e, sq, d, side, side, [&](int64_t i, int64_t* r, int64_t* c) {
    *r = (i / d) % sq, *c = i % d;
  }));
  maps.push_back(StraightMap(e, 1, sq, 1, profile_cols, [&](int64_t i, int64_t* r, int64_t* c) {
    *r = 0, *c = (i / d) % sq;
  }));
  maps.push_back(StraightMap(
      e, std::min<int64_t>(block_m, sq), d, side, side,
      [&](int64_t i, int64_t* r, int64_t* c) { *r = (i / d) % sq % block_m, *c = i % d; }));
  maps.push_back(StraightMap(e, bh, sq, side, side, [&](int64_t i, int64_t* r, int64_t* c) {
    *r = i / d / sq, *c = (i / d) % sq;
  }));
  return maps;
}

// Bit for bit: a NaN (a NaN in the reference makes the means NaN) equals the same NaN.
uint64_t Bits(double x) {
  uint64_t b;
  std::memcpy(&b, &x, sizeof(b));
  return b;
}

void ExpectSameStats(const ErrorStats& a, const ErrorStats& b) {
  EXPECT_EQ(a.elements, b.elements);
  EXPECT_EQ(Bits(a.max_abs), Bits(b.max_abs)) << a.max_abs << " " << b.max_abs;
  EXPECT_EQ(Bits(a.mean_abs), Bits(b.mean_abs)) << a.mean_abs << " " << b.mean_abs;
  EXPECT_EQ(Bits(a.nrmse), Bits(b.nrmse)) << a.nrmse << " " << b.nrmse;
  EXPECT_EQ(Bits(a.max_rel), Bits(b.max_rel)) << a.max_rel << " " << b.max_rel;
  EXPECT_EQ(a.bad, b.bad);
  EXPECT_EQ(a.nan, b.nan);
  EXPECT_EQ(a.inf, b.inf);
  EXPECT_EQ(a.never_written, b.never_written);
  EXPECT_EQ(a.worst_index, b.worst_index);
}

void ExpectSameMaps(const std::vector<Heatmap>& got, const std::vector<Heatmap>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t m = 0; m < got.size(); ++m) {
    SCOPED_TRACE(got[m].kind);
    EXPECT_EQ(got[m].src_rows, want[m].src_rows);
    EXPECT_EQ(got[m].src_cols, want[m].src_cols);
    EXPECT_EQ(got[m].rows, want[m].rows);
    EXPECT_EQ(got[m].cols, want[m].cols);
    EXPECT_EQ(got[m].max, want[m].max);
    EXPECT_EQ(got[m].mean, want[m].mean);
  }
}

constexpr testing::Planted kPlanted{/*nan=*/5,           /*inf=*/4,
                                    /*never_written=*/7, /*huge_error=*/3,
                                    /*reference_nan=*/2, /*reference_inf=*/2};

TEST(FusedPass, AttentionStatsAndHeatmapsEqualTheStraightforwardComputation) {
  // 3.36 M elements: three chunks whose edges fall inside rows; the tile (96) does not divide Sq.
  const AttentionProblem p = AttentionShape(1, 7, 2999, 2999, 160);
  for (DType t : {DType::kBF16, DType::kF16, DType::kF32}) {
    SCOPED_TRACE(DTypeName(t));
    const testing::SyntheticOutputs d =
        testing::MakeSyntheticOutputs(p.QElements(), 0, t, 11 + static_cast<int>(t), kPlanted);
    ASSERT_GE(ChunkCount(p.QElements(), kStatsChunkElements), 3);
    const Tolerance tol{1e-3, 1e-3};
    const std::vector<float> e = StraightErrors(d);
    for (int side : {16, 256}) {
      HeatmapAccumulator maps = HeatmapAccumulator::ForAttention(p, 96, side);
      const ErrorStats s =
          ComputeErrorStats(d.output_data(), t, d.reference.data(), p.QElements(), tol, &maps);
      ExpectSameStats(s, StraightStats(d.output_data(), t, d.reference.data(), p.QElements(), tol));
      EXPECT_GT(s.never_written, 0);
      EXPECT_GT(s.nan + s.inf, 0);
      // Without heatmaps: the same statistics.
      ExpectSameStats(ComputeErrorStats(d.output_data(), t, d.reference.data(), p.QElements(), tol),
                      s);
      ExpectSameMaps(maps.Finish(), StraightAttentionMaps(p, e, 96, side));
    }
  }
}

TEST(FusedPass, GemmStatsAndHeatmapsEqualTheStraightforwardComputation) {
  GemmProblem p;
  p.m = 1999;
  p.n = 1531;
  p.k = 1;
  const int64_t n = p.m * p.n;
  const testing::SyntheticOutputs d = testing::MakeSyntheticOutputs(n, 0, DType::kF32, 5, kPlanted);
  const Tolerance tol{1e-4, 1e-4};
  HeatmapAccumulator maps = HeatmapAccumulator::ForGemm(p, 128, 96, 64);
  const ErrorStats s =
      ComputeErrorStats(d.output_data(), DType::kF32, d.reference.data(), n, tol, &maps);
  ExpectSameStats(s, StraightStats(d.output_data(), DType::kF32, d.reference.data(), n, tol));
  const std::vector<float> e = StraightErrors(d);
  std::vector<Heatmap> want;
  want.push_back(StraightMap(
      e, p.m, p.n, 64, 64, [&](int64_t i, int64_t* r, int64_t* c) { *r = i / p.n, *c = i % p.n; }));
  want.push_back(StraightMap(e, 128, 96, 64, 64, [&](int64_t i, int64_t* r, int64_t* c) {
    *r = i / p.n % 128, *c = i % p.n % 96;
  }));
  ExpectSameMaps(maps.Finish(), want);
}

TEST(FusedPass, OneChunkEqualsTheMapsOfAnErrorArray) {
  // Below two chunks the pass runs on the calling thread: the maps equal those built from the
  // errors themselves (AttentionHeatmaps), and the cells' kinds and axes are the same.
  const AttentionProblem p = AttentionShape(2, 3, 333, 333, 64);
  const testing::SyntheticOutputs d =
      testing::MakeSyntheticOutputs(p.QElements(), 0, DType::kF16, 3, kPlanted);
  ASSERT_EQ(ChunkCount(p.QElements(), kStatsChunkElements), 1);
  HeatmapAccumulator maps = HeatmapAccumulator::ForAttention(p, 64, 32);
  ComputeErrorStats(d.output_data(), DType::kF16, d.reference.data(), p.QElements(), {0, 0}, &maps);
  const std::vector<Heatmap> fused = maps.Finish();
  const std::vector<float> e = StraightErrors(d);
  const std::vector<Heatmap> from_errors = AttentionHeatmaps(p, e.data(), 64, 32);
  ExpectSameMaps(fused, from_errors);
  for (size_t m = 0; m < fused.size(); ++m) {
    EXPECT_EQ(fused[m].kind, from_errors[m].kind);
    EXPECT_EQ(fused[m].row_axis, from_errors[m].row_axis);
  }
}

TEST(FusedPass, LseStatsEqualTheStraightforwardComputation) {
  const int64_t n = 300007;
  const testing::SyntheticOutputs d = testing::MakeSyntheticOutputs(0, n, DType::kF32, 9, kPlanted);
  const Tolerance tol{1e-6, 1e-6};
  const LseStats s = ComputeLseStats(d.lse.data(), d.reference_lse.data(), n, tol);
  LseStats want;
  want.elements = n;
  int64_t first_bad = -1, argmax = -1;
  for (int64_t i = 0; i < n; ++i) {
    const double l = d.lse[i], r = d.reference_lse[i];
    if (IsPoisoned(d.lse.data(), DType::kF32, i)) {
      ++want.never_written;
    } else if (std::isinf(l) && l == r) {
      continue;
    } else if (!std::isfinite(l) || !std::isfinite(r)) {
      ++want.mismatched, ++want.bad;
    } else {
      const double err = std::fabs(l - r);
      if (argmax < 0 || err > want.max_abs) want.max_abs = err, argmax = i;
      if (err > tol.atol + tol.rtol * std::fabs(r)) ++want.bad;
      continue;
    }
    if (first_bad < 0) first_bad = i;
  }
  want.worst_index = first_bad >= 0 ? first_bad : argmax;
  EXPECT_GT(s.never_written, 0);
  EXPECT_GT(s.mismatched, 0);
  EXPECT_EQ(s.max_abs, want.max_abs);
  EXPECT_EQ(s.bad, want.bad);
  EXPECT_EQ(s.mismatched, want.mismatched);
  EXPECT_EQ(s.never_written, want.never_written);
  EXPECT_EQ(s.worst_index, want.worst_index);
}

}  // namespace
}  // namespace flashscope::verify
