// The host side of the TMA + warp-specialised GEMM rungs (g06, g07): tensor maps, the persistent
// grid's size and the launch of one instantiation. Included by g06_tma_ws.cu and
// g07_split_tail.cu (and the tuning harness kernels/perf/gemm_sweep.cu through g06's file).
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <mutex>
#include <optional>
#include <string>

#include "common/problem.h"
#include "kernels/hopper/g06_tma_ws_kernel.cuh"
#include "kernels/hopper/gemm_split_tail.h"
#include "kernels/hopper/tensor_map.h"
#include "kernels/registry.h"

namespace flashscope::kernels::g06 {

using hopper::EncodeTensorMap;
using hopper::MatrixTensor;

constexpr int kDefaultGroupM = 8;  // cluster-tile rows per scheduling group (g06::Schedule)

inline int SmCount() {
  static const int sms = [] {
    int dev = 0, n = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || n < 1) {
      cudaGetLastError();  // no GPU here (a CPU-only test): plan for an H100/H200
      return 132;
    }
    return n;
  }();
  return sms;
}

inline int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Tiles of `bm` rows (g06-g08: 128; g09: 192) x `bn` columns.
inline int64_t Tiles(const GemmProblem& p, int bn, int bm = kBM) {
  return CeilDiv(p.m, bm) * CeilDiv(p.n, bn);
}

// CTAs per cluster on the TMA path with tiles `bn` wide. Clusters pay where there are several
// waves of tiles (+1 % at 4096^3); on one wave or less their start-up and final cluster barrier
// cost more than sharing B saves (-3 % at 2048^3, -10 % at 1024^3 in the g06 v2 sweep).
inline int ClusterSize(const GemmProblem& p, int bn, int bm = kBM) {
  return p.m > bm && Tiles(p, bn, bm) >= 2 * SmCount() ? 2 : 1;
}

// Rounds of the persistent grid with tiles `bn` wide: its cluster tiles (kCluster tile rows x one
// tile column) dealt over the clusters resident at once, one CTA per SM (g06::Schedule).
inline int64_t Waves(const GemmProblem& p, int bn, int bm = kBM) {
  const int cluster = ClusterSize(p, bn, bm);
  const int64_t units = CeilDiv(CeilDiv(p.m, bm), cluster) * CeilDiv(p.n, bn);
  return CeilDiv(units, SmCount() / cluster);
}

// How much longer a 128 x bn tile takes per FLOP than a 128 x 256 one: 1 + kNarrowTileCost x the
// extra operand bytes per FLOP it reads ((128 + bn) / (128 bn) against 256's; 128 x 64: 2x). The
// slope is measured: 128 x 64 tiles at 8192^3 (g06 v2, 63 nearly full waves) reached 451 / 452
// TFLOPS (fp16 / bf16) where 128 x 256 (16 waves) reached 750 / 782 (v3), 1.69-1.76x the time per
// FLOP (docs/perf-notes.md, g06 "tile width by predicted wave time"). At L2-resident sizes it
// overprices narrow tiles (128 x 128 at 2048^3: 1.02 measured, 1.24 here), which errs towards
// the wide tile.
constexpr double kNarrowTileCost = 0.72;
inline double TileCostPerColumn(int bn, int bm = kBM) {
  const double bytes_per_flop = double(bm + bn) / (double(bm) * bn);
  const double widest = double(kBM + 256) / (double(kBM) * 256);
  return 1.0 + kNarrowTileCost * (bytes_per_flop / widest - 1.0);
}

// The predicted time of the problem with tiles `bn` wide, in units of a 128 x 1 column's time:
// rounds x width x cost per column (every round takes a whole tile's time, full or not).
// A tile of bm rows counts bm / 128 columns of that time per column.
inline double PredictedTime(const GemmProblem& p, int bn, int bm = kBM) {
  return double(Waves(p, bn, bm)) * (double(bm) / kBM) * bn * TileCostPerColumn(bn, bm);
}

// The tile width with the least predicted time (PredictedTime: rounds of the persistent grid x
// width x the narrower tile's cost per FLOP), but 128x256 while it is within kKeepWidest of the
// best: the prediction prices only whole rounds and operand bytes, and 256 is the measured one on
// the sizes that fill their rounds (4096^3, 8192^3: 0.96-1.0x cuBLAS). At 3000^3 128x192 tiles
// fill 3 rounds 97 % (192 cluster tiles on 66 clusters) where 128x256 filled the third 18 %.
// (Rounds alone picked 128x64 at 8192^3 for a 1 % better last round and lost 40 %, g06 v2.)
// g06's rule, and g08's (whose clusters along N make the same number of cluster tiles wherever
// the tile-row and tile-column counts are even).
constexpr double kKeepWidest = 0.03;
constexpr int kWidths[] = {256, 192, 128, 64};

inline int PredictedBestWidth(const GemmProblem& p) {
  int best = 256;
  for (int bn : kWidths) {
    if (PredictedTime(p, bn) < PredictedTime(p, best)) best = bn;
  }
  return PredictedTime(p, 256) <= (1 + kKeepWidest) * PredictedTime(p, best) ? 256 : best;
}

struct Maps {
  CUtensorMap a{}, b{};
};

// The tensor maps of A (M rows of K, `lda` elements apart; boxes of `bm` rows, g08's `share_a`:
// half of them, each CTA of a cluster loading one half) and B (K rows of N, `ldb` apart; boxes of
// 64 k-rows x 64 n). Empty on success, else why not. The runner's operands are packed (lda = K,
// ldb = N, MapsFor); kernels/perf/gemm_sweep.cu's pitch study pads them.
// `promotion`: both maps' L2 promotion (the --promotion study); unset, MatrixTensor's by each
// operand's rows (128 bytes for rows off the 32-byte grid, 256 otherwise).
inline std::string EncodeMaps(const GemmProblem& p, const void* a, const void* b, int64_t lda,
                              int64_t ldb, bool share_a, Maps* out, int bm = kBM,
                              std::optional<CUtensorMapL2promotion> promotion = std::nullopt) {
  const CUtensorMapDataType type =
      p.dtype == DType::kBF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  hopper::TmaTensor ta = MatrixTensor(a, type, uint64_t(p.m), uint64_t(p.k), uint64_t(lda) * 2,
                                      share_a ? bm / 2 : bm, kBK);
  hopper::TmaTensor tb =
      MatrixTensor(b, type, uint64_t(p.k), uint64_t(p.n), uint64_t(ldb) * 2, kBK, 64);
  if (promotion) ta.l2_promotion = tb.l2_promotion = *promotion;
  std::string why = EncodeTensorMap(ta, &out->a);
  if (why.empty()) why = EncodeTensorMap(tb, &out->b);
  return why;
}

// Encoding costs host time on every launch; the runner relaunches one problem on the same few
// buffer sets (its rotated slots) many times, so the maps of the last few are kept.
inline std::string MapsFor(const GemmProblem& p, const GemmArgs& args, int bn, Maps* out,
                           bool share_a = false, int bm = kBM) {
  struct Key {
    const void* a = nullptr;
    const void* b = nullptr;
    int64_t m = 0, n = 0, k = 0;
    DType dtype = DType::kF16;
    int bn = 0, bm = 0;
    bool share_a = false;
    bool operator==(const Key& o) const {
      return a == o.a && b == o.b && m == o.m && n == o.n && k == o.k && dtype == o.dtype &&
             bn == o.bn && bm == o.bm && share_a == o.share_a;
    }
  };
  static std::mutex mu;
  static hopper::RecentMaps<Key, Maps> kept;
  const Key key{args.a, args.b, p.m, p.n, p.k, p.dtype, bn, bm, share_a};
  std::lock_guard<std::mutex> lock(mu);
  if (const Maps* found = kept.Find(key)) {
    *out = *found;
    return "";
  }
  Maps maps;
  if (std::string why = EncodeMaps(p, args.a, args.b, p.k, p.n, share_a, &maps, bm); !why.empty()) {
    return why;
  }
  kept.Keep(key, maps);
  *out = maps;
  return "";
}

// How many clusters of the kernel fit on the GPU at once: the persistent grid's size.
template <typename T, int kBN, bool kTma, int kCluster, bool kSplitTail, bool kShareA = false,
          int kWG = 2, int kCPart = 0>
constexpr auto KernelOf() {
  if constexpr (kCPart) {
    static_assert(kTma && !kSplitTail && !kShareA && kWG == 2, "g12: g06's TMA tiles, unsplit");
    return &G12StagedCKernel<T, kBN, kCluster, kCPart>;
  } else if constexpr (kWG == 3) {
    static_assert(kTma && !kSplitTail && !kShareA, "g09: TMA, unsplit, B shared");
    return &G09TallTileKernel<T, kBN, kCluster>;
  } else if constexpr (kShareA) {
    static_assert(kTma && kCluster == 2 && !kSplitTail, "g08: TMA, clusters of two, unsplit");
    return &G08SharedAKernel<T, kBN>;
  } else if constexpr (kSplitTail) {
    return &G07SplitTailKernel<T, kBN, kCluster>;
  } else {
    return &G06TmaWsKernel<T, kBN, kTma, kCluster>;
  }
}

template <typename T, int kBN, bool kTma, int kCluster, bool kSplitTail = false,
          bool kShareA = false, int kWG = 2, int kCPart = 0>
int ResidentClusters(cudaLaunchConfig_t cfg) {
  static const int n = [&] {
    if constexpr (kCluster == 1) return SmCount();
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(
            &clusters, KernelOf<T, kBN, kTma, kCluster, kSplitTail, kShareA, kWG, kCPart>(),
            &cfg) != cudaSuccess ||
        clusters < 1) {
      cudaGetLastError();
      return SmCount() / kCluster;
    }
    return clusters;
  }();
  return n;
}

// g12's tensor map of C (fp32, M rows of N, packed): boxes of 64 rows x 32 columns, 128-byte
// swizzled, the layout StageAccumulatorPart writes. Kept for the last few C buffers, as MapsFor
// keeps A's and B's. Empty on success, else why not (TmaAddressable's reasons).
inline std::string StagedCMapFor(const GemmProblem& p, float* c, CUtensorMap* out) {
  struct Key {
    const float* c = nullptr;
    int64_t m = 0, n = 0;
    bool operator==(const Key& o) const { return c == o.c && m == o.m && n == o.n; }
  };
  static std::mutex mu;
  static hopper::RecentMaps<Key, CUtensorMap> kept;
  const Key key{c, p.m, p.n};
  std::lock_guard<std::mutex> lock(mu);
  if (const CUtensorMap* found = kept.Find(key)) {
    *out = *found;
    return "";
  }
  const hopper::TmaTensor t = MatrixTensor(c, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, uint64_t(p.m),
                                           uint64_t(p.n), uint64_t(p.n) * 4, 64, kStagedBoxCols);
  if (std::string why = EncodeTensorMap(t, out); !why.empty()) return why;
  kept.Keep(key, *out);
  return "";
}

// kSplitTail (g07): the last, partial wave of cluster tiles split along K (SplitTailPlan).
// kShareA (g08): clusters of two along N sharing A (maps.a's boxes half a tile's rows).
// kWG 3 (g09): 192-row tiles on three consumer warpgroups (maps.a's boxes 192 rows).
// kCPart (g12): C through shared memory and TMA stores (StagedCMapFor).
template <typename T, int kBN, bool kTma, int kCluster, bool kSplitTail = false,
          bool kShareA = false, int kWG = 2, int kCPart = 0>
cudaError_t LaunchTyped(const GemmProblem& p, const GemmArgs& a, const Maps& maps,
                        cudaStream_t stream, int group_m = kDefaultGroupM) {
  using L = Layout<kBN, kWG, kCPart>;
  using R = Roles<kWG>;
  auto* const kernel = KernelOf<T, kBN, kTma, kCluster, kSplitTail, kShareA, kWG, kCPart>();
  static const cudaError_t attr =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(L::kSmemBytes));
  if (attr != cudaSuccess) return attr;
  Shape s{int(p.m),
          int(p.n),
          int(p.k),
          int(CeilDiv(p.m, R::kBM)),
          int(CeilDiv(p.n, kBN)),
          int(CeilDiv(p.k, kBK)),
          group_m};
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = kCluster;
  cluster.val.clusterDim.y = 1;
  cluster.val.clusterDim.z = 1;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(unsigned(SmCount() / kCluster * kCluster));
  cfg.blockDim = dim3(R::kThreads);
  cfg.dynamicSmemBytes = L::kSmemBytes;
  cfg.stream = stream;
  cfg.attrs = &cluster;
  cfg.numAttrs = 1;
  const int64_t cluster_tiles =
      kShareA ? s.tiles_m * CeilDiv(s.tiles_n, kCluster) : CeilDiv(s.tiles_m, kCluster) * s.tiles_n;
  const int64_t resident =
      ResidentClusters<T, kBN, kTma, kCluster, kSplitTail, kShareA, kWG, kCPart>(cfg);
  int64_t units = cluster_tiles;
  if constexpr (kSplitTail) {
    // No split: every cluster tile is a whole unit.
    const SplitTail plan = SplitTailPlan(cluster_tiles, resident, s.k_tiles);
    s.full_units = static_cast<int>(cluster_tiles);
    if (plan.splits > 1) {
      s.full_units = static_cast<int>(plan.full_units);
      s.tail_splits = plan.splits;
      const cudaError_t e = SplitTailChain(
          static_cast<size_t>(cluster_tiles - plan.full_units) * kCluster * kConsumers, &s.chain);
      if (e != cudaSuccess) return e;
      units = plan.full_units + (cluster_tiles - plan.full_units) * plan.splits;
    }
  }
  cfg.gridDim = dim3(unsigned((units < resident ? units : resident) * kCluster));
  cudaError_t e;
  if constexpr (kCPart) {
    CUtensorMap map_c;
    if (const std::string why = StagedCMapFor(p, a.c, &map_c); !why.empty()) {
      std::fprintf(stderr, "G12StagedCKernel: C's tensor map: %s\n", why.c_str());
      return cudaErrorInvalidValue;
    }
    e = cudaLaunchKernelEx(&cfg, kernel, maps.a, maps.b, map_c, a.c, s);
  } else {
    e = cudaLaunchKernelEx(&cfg, kernel, maps.a, maps.b, static_cast<const uint16_t*>(a.a),
                           static_cast<const uint16_t*>(a.b), a.c, s);
  }
  return e != cudaSuccess ? e : cudaGetLastError();
}

}  // namespace flashscope::kernels::g06
