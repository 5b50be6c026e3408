// The device code of gemm.g06_tma_ws (kernels/hopper/g06_tma_ws.cu says what the rung is and
// why): the tile schedule, the two producers (TMA, element copy), the wgmma consumer and the
// kernel. Included by that file (and by the tuning harness kernels/perf/gemm_sweep.cu) only.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "kernels/hopper/hopper_ptx.cuh"
#include "kernels/hopper/wgmma_epilogue.cuh"

namespace flashscope::kernels::g06 {

using namespace hopper;  // NOLINT: the PTX wrappers read as instructions

constexpr int kBK = 64;  // K per pipeline stage

// The roles of a CTA with kWG consumer warpgroups of 64 tile rows each (g06-g08: 2, 128-row tiles;
// g09: 3, 192-row tiles) beside warpgroup 0, which produces. setmaxnreg moves the producer's
// registers to the consumers: 128·40 + 256·232 and 128·40 + 384·152 fit 64 Ki registers.
template <int kWG>
struct Roles {
  static_assert(kWG == 2 || kWG == 3, "two or three consumer warpgroups");
  static constexpr int kBM = 64 * kWG;  // C rows per tile
  static constexpr int kThreads = 128 * (1 + kWG);
  static constexpr int kProducerRegs = 40, kConsumerRegs = kWG == 2 ? 232 : 152;
};
// g06-g08's roles, which their host code names.
constexpr int kBM = Roles<2>::kBM, kConsumers = 2, kThreads = Roles<2>::kThreads;
// Shared memory for the stages (227 KiB per block max): 4, 5, 6, 8 stages for N = 256, 192, 128,
// 64 (192 KiB gave 256, 128 and 64 the same counts; 200 KiB gives 192 a fifth stage).
constexpr int kStageBudget = 200 * 1024;
constexpr int kBoxBytes = 64 * 128;  // one 64-row box of 128-byte (64-element) rows: 8 KiB

// g12 (kCPart: columns per staged part of C, 0 for none): the stages share the block's shared
// memory with C's staging area, one part of each consumer warpgroup's 64 rows in fp32. g12 stages
// parts of kStagedPartCols = 64 columns, 32 KiB in all: 4, 4, 6, 8 stages for N = 256, 192, 128,
// 64 (halves of a tile, 64 KiB at 128 x 256, left 3 stages there: 5000^3 -2 %, 8192 x 8192 x 1024
// +1.6 % against +5.7 % with 64 columns; session 12, device call 4).
constexpr int kStagedPartCols = 64;
constexpr int kStagedBudget = 227 * 1024 - 1024 - 256;

template <int kBN, int kWG = 2, int kCPart = 0>
struct Layout {
  static constexpr int kABytes = Roles<kWG>::kBM * kBK * 2;  // 128 or 192 rows of 64 k (128 B)
  static constexpr int kBBytes = kBK * kBN * 2;              // kBN/64 boxes of 64 k-rows of 64 n
  static constexpr int kStageBytes = kABytes + kBBytes;
  static constexpr int kCStageBytes = kWG * StagedPartBytes<kCPart>();  // 0 without staging
  static constexpr int kStages =
      kCPart ? (kStagedBudget - kCStageBytes) / kStageBytes : kStageBudget / kStageBytes;
  // Stages, C's staging (g12), then the 2·kStages mbarriers; 1 KiB of slack aligns the base to the
  // swizzle atoms (stage and staging sizes are multiples of 1 KiB, so both stay aligned).
  static constexpr int kOffCStage = kStages * kStageBytes;
  static constexpr int kOffBars = kOffCStage + kCStageBytes;
  static constexpr size_t kSmemBytes = size_t(kOffBars) + 2 * kStages * 8 + 1024;
  static_assert(kStages >= 2, "a pipeline needs two stages");
  static_assert(kSmemBytes <= 227 * 1024, "more shared memory than one block may have");
  static_assert(kBN % 64 == 0 && kBN <= 256, "B is loaded as 64-column boxes; wgmma N <= 256");
};

struct Shape {
  int m, n, k, tiles_m, tiles_n, k_tiles, group_m;
  // g07 (split tail): the cluster tiles before full_units run whole; each later one is split
  // along K into tail_splits units, whose partial sums reach C in split order through `chain`
  // (one counter per tail tile, CTA of the cluster and consumer warpgroup; zero between launches).
  int full_units = 0, tail_splits = 1;
  int* chain = nullptr;
};

// One unit of a CTA's work: a tile (tm, tn) and its k-tiles [k0, k1); `split` -1 for a whole
// tile, else the unit's place in its tail tile's split order, `slot` the tail tile's index.
struct Work {
  int tm, tn, k0, k1, split, slot;
};

// Persistent schedule over cluster tiles (kCluster tile rows x one tile column; the CTAs of a
// cluster share the B tile): cluster c takes cluster tiles c, c + clusters, ... Cluster tile t
// lies in a group of group_m cluster rows walked column by column, down the rows of a column
// first, so the clusters running at once cover a compact block of C and share A rows and B
// columns in L2. A CTA whose tile row falls past M (odd row count) computes zeros and stores
// nothing, so that its peer still gets its half of B.
// With kShareA (g08) a cluster tile is one tile row x kCluster tile columns, whose CTAs share the
// A tile instead; a CTA whose tile column falls past N (odd column count) computes zeros and
// stores nothing, so that its peer still gets its half of A.
// With kSplitTail (g07) the work units are the full_units whole cluster tiles, then every later
// cluster tile once per split, dealt round-robin as tiles are.
template <int kCluster, bool kSplitTail = false, bool kShareA = false>
struct Schedule {
  static_assert(!kShareA || (kCluster == 2 && !kSplitTail), "g08 shares A in clusters of two");
  int first, step, count, rows, cols, rank, units;
  __device__ explicit Schedule(const Shape& s) {
    rank = kCluster > 1 ? int(ClusterCtaRank()) : 0;
    first = blockIdx.x / kCluster;
    step = gridDim.x / kCluster;
    rows = kShareA ? s.tiles_m : (s.tiles_m + kCluster - 1) / kCluster;
    cols = kShareA ? (s.tiles_n + kCluster - 1) / kCluster : s.tiles_n;
    count = rows * cols;
    units = kSplitTail ? s.full_units + (count - s.full_units) * s.tail_splits : count;
  }
  __device__ Work Unit(const Shape& s, int u) const {
    Work w{0, 0, 0, s.k_tiles, -1, 0};
    if (!kSplitTail || u < s.full_units) {
      Coords(s, u, &w.tm, &w.tn);
      return w;
    }
    const int v = u - s.full_units;
    w.slot = v / s.tail_splits;
    w.split = v % s.tail_splits;
    Coords(s, s.full_units + w.slot, &w.tm, &w.tn);
    w.k0 = int(int64_t(w.split) * s.k_tiles / s.tail_splits);
    w.k1 = int(int64_t(w.split + 1) * s.k_tiles / s.tail_splits);
    return w;
  }
  __device__ void Coords(const Shape& s, int t, int* tm, int* tn) const {
    const int per_group = s.group_m * cols;
    const int group = t / per_group;
    const int first_row = group * s.group_m;
    const int group_rows = min(s.group_m, rows - first_row);
    const int local = t - group * per_group;
    const int row = first_row + local % group_rows, col = local / group_rows;
    *tm = kShareA ? row : row * kCluster + rank;
    *tn = kShareA ? col * kCluster + rank : col;
  }
};

// The pipeline position shared by producer and consumers: stage index and the parity of its
// current phase, advanced identically on both sides across tiles.
template <int kStages>
struct PipeState {
  int stage = 0;
  uint32_t phase = 0;
  __device__ __forceinline__ void Advance() {
    if (++stage == kStages) {
      stage = 0;
      phase ^= 1;
    }
  }
};

// TMA producer, one thread: per stage the A box (64 k x 128 rows) and the kBN/64 B boxes (64 n x
// 64 k, 8 KiB apart), all completing on the stage's full barrier. In a cluster of two, each CTA
// loads every other B box (of 128x192's three, rank 0 two) and multicasts them to both, so B
// crosses L2 once per pair. With kShareA (g08) each CTA loads its own B boxes and one half of the
// A tile (64 rows: map_a's box), multicast to both, so A crosses L2 once per pair.
template <int kBN, int kCluster, bool kSplitTail = false, bool kShareA = false, int kWG = 2,
          int kCPart = 0>
__device__ void ProduceTma(const CUtensorMap* map_a, const CUtensorMap* map_b, const Shape& s,
                           unsigned char* stages, uint64_t* full, uint64_t* empty) {
  using L = Layout<kBN, kWG, kCPart>;
  constexpr int kRows = Roles<kWG>::kBM;
  PrefetchTensorMap(map_a);
  PrefetchTensorMap(map_b);
  const Schedule<kCluster, kSplitTail, kShareA> sched(s);
  PipeState<L::kStages> p;
  for (int u = sched.first; u < sched.units; u += sched.step) {
    const Work w = sched.Unit(s, u);
    const int tm = w.tm, tn = w.tn;
    for (int kt = w.k0; kt < w.k1; ++kt) {
      MbarWait(&empty[p.stage], p.phase ^ 1);  // every consumer of the cluster released it
      unsigned char* const sa = stages + p.stage * L::kStageBytes;
      uint64_t* const bar = &full[p.stage];
      MbarArriveExpectTx(bar, L::kStageBytes);  // whole boxes count, zero-filled edges too
      if constexpr (kShareA) {
        // Rows 64·rank..64·rank+63 of the tile: 1 KiB swizzle atoms, so the half starts on one.
        constexpr int kHalf = kRows / 2;
        TmaLoad2DMulticast(sa + sched.rank * kHalf * 128, map_a, bar, kt * kBK,
                           tm * kRows + sched.rank * kHalf, uint16_t((1u << kCluster) - 1));
      } else {
        TmaLoad2D(sa, map_a, bar, kt * kBK, tm * kRows);
      }
#pragma unroll
      for (int j = 0; j < kBN / 64; ++j) {
        unsigned char* const sb = sa + L::kABytes + j * kBoxBytes;
        if constexpr (kCluster == 1 || kShareA) {
          TmaLoad2D(sb, map_b, bar, tn * kBN + 64 * j, kt * kBK);
        } else if (j % kCluster == sched.rank) {
          TmaLoad2DMulticast(sb, map_b, bar, tn * kBN + 64 * j, kt * kBK,
                             uint16_t((1u << kCluster) - 1));
        }
      }
      p.Advance();
    }
  }
}

// 8 consecutive 2-byte elements from `src` (`valid` of them inside the matrix), zeros beyond.
__device__ __forceinline__ uint4 LoadEdgeChunk(const uint16_t* src, int valid) {
  uint32_t w[4] = {0, 0, 0, 0};
#pragma unroll
  for (int e = 0; e < 8; ++e) {
    if (e < valid) w[e / 2] |= uint32_t(src[e]) << (16 * (e % 2));
  }
  return make_uint4(w[0], w[1], w[2], w[3]);
}

// Fallback producer for shapes TMA cannot describe: the producer warpgroup's 128 threads copy the
// stage element by element into the layout TMA would write, then each makes its stores visible to
// the tensor cores (async proxy) and arrives (the full barrier counts 128).
template <int kBN>
__device__ void ProduceCopy(const uint16_t* A, const uint16_t* B, const Shape& s,
                            unsigned char* stages, uint64_t* full, uint64_t* empty) {
  using L = Layout<kBN>;
  const int tid = threadIdx.x;  // 0..127: the producer warpgroup
  const Schedule<1> sched(s);
  PipeState<L::kStages> p;
  for (int t = sched.first; t < sched.count; t += sched.step) {
    int tm, tn;
    sched.Coords(s, t, &tm, &tn);
    for (int kt = 0; kt < s.k_tiles; ++kt) {
      MbarWait(&empty[p.stage], p.phase ^ 1);
      unsigned char* const sa = stages + p.stage * L::kStageBytes;
      const int k0 = kt * kBK;
      for (int c = tid; c < kBM * 8; c += 128) {  // A: 128 rows x 8 chunks
        const int r = c / 8, kc = (c % 8) * 8, row = tm * kBM + r;
        const uint4 v = row < s.m ? LoadEdgeChunk(A + int64_t(row) * s.k + k0 + kc, s.k - k0 - kc)
                                  : make_uint4(0, 0, 0, 0);
        *reinterpret_cast<uint4*>(sa + SwizzledChunk(r, c % 8)) = v;
      }
      for (int c = tid; c < kBK * kBN / 8; c += 128) {  // B: 64 k-rows x kBN/8 chunks
        const int kr = c / (kBN / 8), nc = (c % (kBN / 8)) * 8, krow = k0 + kr;
        const int col = tn * kBN + nc;
        const uint4 v = krow < s.k ? LoadEdgeChunk(B + int64_t(krow) * s.n + col, s.n - col)
                                   : make_uint4(0, 0, 0, 0);
        *reinterpret_cast<uint4*>(sa + L::kABytes + (nc / 64) * kBoxBytes +
                                  SwizzledChunk(kr, (nc % 64) / 8)) = v;
      }
      FenceProxyAsyncShared();
      MbarArrive(&full[p.stage]);
      p.Advance();
    }
  }
}

// g07: one split's partial sums of a tail tile into C, in split order: the warpgroup waits until
// its counter says it is this split's turn (split 0 stores, the others add to what the earlier
// splits left in C), then passes the turn on (the last split resets the counter to 0 for the next
// launch). The wait cannot deadlock: the persistent grid is resident as a whole, and the split
// before this one is an earlier unit of the round-robin order, which no later unit delays.
template <int kBN>
__device__ __forceinline__ void StoreInSplitOrder(const float (&d)[kBN / 2], float* C,
                                                  const Shape& s, int row0, int col0, int* turn,
                                                  int split, int wg) {
  const bool leader = threadIdx.x % 128 == 0;
  if (leader) {
    while (LoadAcquireGpu(turn) != split) __nanosleep(64);
  }
  NamedBarrierSync(1 + wg, 128);  // the leader's acquire orders this warpgroup's loads of C
  if (split == 0) {
    StoreWgmmaAccumulators<kBN>(d, C, s.m, s.n, row0, col0);
  } else {
    AddWgmmaAccumulators<kBN>(d, C, s.m, s.n, row0, col0);
  }
  __threadfence();
  NamedBarrierSync(1 + wg, 128);
  if (leader) StoreReleaseGpu(turn, split + 1 == s.tail_splits ? 0 : split + 1);
}

// g12, the parts of a warpgroup's 64 x kBN tile of C through its staging area, one after the
// other: wait until the TMA stores issued from the area before have read it, write the part there,
// make it visible to the async proxy, and store it as kPartCols / 32 boxes, which the warpgroup
// does not wait for.
template <int kBN, int kPartCols, int kPart = 0>
__device__ __forceinline__ void StageParts(const float (&d)[kBN / 2], const CUtensorMap* map_c,
                                           unsigned char* area, int row0, int col0, int wg) {
  static_assert(kBN % kPartCols == 0, "whole parts");
  const bool leader = threadIdx.x % 128 == 0;
  if (leader) BulkWaitGroupRead<0>();
  NamedBarrierSync(1 + wg, 128);
  StageAccumulatorPart<kBN, kPartCols, kPart>(d, area);
  FenceProxyAsyncShared();
  NamedBarrierSync(1 + wg, 128);
  if (leader) {
#pragma unroll
    for (int b = 0; b < kPartCols / kStagedBoxCols; ++b) {
      TmaStore2D(map_c, area + b * kStagedBoxBytes, col0 + kPart * kPartCols + b * kStagedBoxCols,
                 row0);
    }
    BulkCommitGroup();
  }
  if constexpr (kPart + 1 < kBN / kPartCols) {
    StageParts<kBN, kPartCols, kPart + 1>(d, map_c, area, row0, col0, wg);
  }
}

// A consumer warpgroup (`wg` 0 or 1): rows 64·wg..64·wg+63 of every tile this CTA owns. Each
// stage's four k16 wgmmas are committed as one group; the group before it is then retired
// (wait_group 1) and its stage handed back to every producer that writes it (this CTA's, and in
// a cluster the peer's, whose multicast fills this stage too).
// With kCPart (g12) C goes out through the warpgroup's staging area by TMA stores (StageParts),
// so that the next tile's main loop starts while they drain; the last ones are waited for at the
// end, before the block's shared memory goes.
template <typename T, int kBN, int kCluster, bool kSplitTail = false, bool kShareA = false,
          int kWG = 2, int kCPart = 0>
__device__ void Consume(float* C, const Shape& s, unsigned char* stages, uint64_t* full,
                        uint64_t* empty, int wg, const CUtensorMap* map_c = nullptr) {
  static_assert(!kCPart || (!kSplitTail && kWG == 2), "g12 stages whole tiles of two warpgroups");
  using L = Layout<kBN, kWG, kCPart>;
  constexpr int kRows = Roles<kWG>::kBM;
  const bool releaser = threadIdx.x % 32 == 0;  // one arrival per consumer warp and CTA
  const Schedule<kCluster, kSplitTail, kShareA> sched(s);
  auto release = [&](int stage) {
    if (!releaser) return;
    MbarArrive(&empty[stage]);
    if constexpr (kCluster == 2) MbarArriveCluster(&empty[stage], uint32_t(sched.rank ^ 1));
  };
  PipeState<L::kStages> p;
  float d[kBN / 2];
#pragma unroll
  for (int i = 0; i < kBN / 2; ++i) d[i] = 0.f;  // the first wgmma of a tile overwrites (scale-d 0)
  for (int u = sched.first; u < sched.units; u += sched.step) {
    const Work w = sched.Unit(s, u);
    const int tm = w.tm, tn = w.tn;
    int previous = -1;
    for (int kt = w.k0; kt < w.k1; ++kt) {
      MbarWait(&full[p.stage], p.phase);
      const unsigned char* const sa = stages + p.stage * L::kStageBytes;
      WgmmaFence();
#pragma unroll
      for (int kk = 0; kk < kBK / 16; ++kk) {
        // A: this warpgroup's 64 rows (8 atoms of 8 rows, 1024 bytes apart), the k16 slice 32
        // bytes along each row. B: two 8-k atom rows per slice (2 KiB); 64-n boxes 8 KiB apart.
        const uint64_t da = SmemDescriptorSw128(sa + wg * 64 * 128 + kk * 32, 16, 1024);
        const uint64_t db = SmemDescriptorSw128(sa + L::kABytes + kk * 2048, kBoxBytes, 1024);
        Wgmma<kBN>::template SS<T, false, true>(d, da, db, kt > w.k0 || kk > 0);
      }
      WgmmaCommit();
      WgmmaWait<1>();
      if (previous >= 0) release(previous);
      previous = p.stage;
      p.Advance();
    }
    WgmmaWait<0>();
    release(previous);
    if constexpr (kCPart) {
      unsigned char* const area = stages + L::kOffCStage + wg * (L::kCStageBytes / kWG);
      StageParts<kBN, kCPart>(d, map_c, area, tm * kRows + wg * 64, tn * kBN, wg);
      continue;
    }
    const int row0 = tm * kRows + wg * 64 + (threadIdx.x / 32 % 4) * 16;
    if (kSplitTail && w.split >= 0) {
      int* const turn = s.chain + (w.slot * kCluster + sched.rank) * kWG + wg;
      StoreInSplitOrder<kBN>(d, C, s, row0, tn * kBN, turn, w.split, wg);
    } else {
      StoreWgmmaAccumulators<kBN>(d, C, s.m, s.n, row0, tn * kBN);
    }
  }
  if constexpr (kCPart) {
    if (threadIdx.x % 128 == 0) BulkWaitGroup<0>();
  }
}

// The kernel body. kTma false: the element-copy producer (kCluster must be 1, no split tail).
template <typename T, int kBN, bool kTma, int kCluster, bool kSplitTail, bool kShareA = false,
          int kWG = 2, int kCPart = 0>
__device__ __forceinline__ void GemmTmaWsBody(const CUtensorMap& map_a, const CUtensorMap& map_b,
                                              const uint16_t* A, const uint16_t* B, float* C,
                                              const Shape& s, const CUtensorMap* map_c = nullptr) {
  static_assert(kCluster == 1 || (kTma && kCluster == 2), "clusters of two, TMA path only");
  static_assert(!kSplitTail || kTma, "the split tail is the TMA path's");
  static_assert(kWG == 2 || (kTma && !kShareA), "g09's three warpgroups: the TMA path, B shared");
  using L = Layout<kBN, kWG, kCPart>;
  using R = Roles<kWG>;
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  // Swizzle atoms start on 1 KiB boundaries; the same offset in every CTA, as multicast needs.
  unsigned char* const stages = smem_raw + ((1024 - (SmemAddr(smem_raw) & 1023)) & 1023);
  uint64_t* const full = reinterpret_cast<uint64_t*>(stages + L::kOffBars);
  uint64_t* const empty = full + L::kStages;
  const int warpgroup = threadIdx.x / 128;
  if (threadIdx.x == 0) {
    for (int i = 0; i < L::kStages; ++i) {
      MbarInit(&full[i], kTma ? 1 : 128);       // TMA: the issuing thread's arrive.expect_tx
      MbarInit(&empty[i], kWG * 4 * kCluster);  // every consumer warp of the cluster
    }
    FenceMbarInit();
  }
  // The peer's multicast and releases may target this CTA's barriers only once they exist.
  if constexpr (kCluster > 1) {
    ClusterSync();
  } else {
    __syncthreads();
  }
  if (warpgroup == 0) {
    SetMaxNRegDec<R::kProducerRegs>();
    if constexpr (kTma) {
      if (threadIdx.x == 0) {
        ProduceTma<kBN, kCluster, kSplitTail, kShareA, kWG, kCPart>(&map_a, &map_b, s, stages, full,
                                                                    empty);
      }
    } else {
      ProduceCopy<kBN>(A, B, s, stages, full, empty);
    }
  } else {
    SetMaxNRegInc<R::kConsumerRegs>();
    Consume<T, kBN, kCluster, kSplitTail, kShareA, kWG, kCPart>(C, s, stages, full, empty,
                                                                warpgroup - 1, map_c);
  }
  // No CTA may leave while its peer can still arrive on its barriers.
  if constexpr (kCluster > 1) ClusterSync();
}

// g06: every tile whole.
template <typename T, int kBN, bool kTma, int kCluster>
__global__ void __launch_bounds__(kThreads, 1)
    G06TmaWsKernel(const __grid_constant__ CUtensorMap map_a,
                   const __grid_constant__ CUtensorMap map_b, const uint16_t* A, const uint16_t* B,
                   float* C, Shape s) {
  GemmTmaWsBody<T, kBN, kTma, kCluster, false>(map_a, map_b, A, B, C, s);
}

// g07: the last, partial wave of tiles split along K over the whole grid (TMA path only).
template <typename T, int kBN, int kCluster>
__global__ void __launch_bounds__(kThreads, 1)
    G07SplitTailKernel(const __grid_constant__ CUtensorMap map_a,
                       const __grid_constant__ CUtensorMap map_b, const uint16_t* A,
                       const uint16_t* B, float* C, Shape s) {
  GemmTmaWsBody<T, kBN, true, kCluster, true>(map_a, map_b, A, B, C, s);
}

// g08: g06 with the clusters of two along N sharing the A tile (rows off the 32-byte grid).
template <typename T, int kBN>
__global__ void __launch_bounds__(kThreads, 1)
    G08SharedAKernel(const __grid_constant__ CUtensorMap map_a,
                     const __grid_constant__ CUtensorMap map_b, const uint16_t* A,
                     const uint16_t* B, float* C, Shape s) {
  GemmTmaWsBody<T, kBN, true, 2, false, true>(map_a, map_b, A, B, C, s);
}

// g09: g06 with 192-row tiles, three consumer warpgroups (fewer operand bytes per FLOP).
template <typename T, int kBN, int kCluster>
__global__ void __launch_bounds__(Roles<3>::kThreads, 1)
    G09TallTileKernel(const __grid_constant__ CUtensorMap map_a,
                      const __grid_constant__ CUtensorMap map_b, const uint16_t* A,
                      const uint16_t* B, float* C, Shape s) {
  GemmTmaWsBody<T, kBN, true, kCluster, false, false, 3>(map_a, map_b, A, B, C, s);
}

// g12: g06 with C staged in shared memory and written by TMA stores (map_c: fp32 C, boxes of 64
// rows x 32 columns, 128-byte swizzled), so that a tile's main loop starts while the last one's C
// drains.
template <typename T, int kBN, int kCluster, int kCPart>
__global__ void __launch_bounds__(kThreads, 1)
    G12StagedCKernel(const __grid_constant__ CUtensorMap map_a,
                     const __grid_constant__ CUtensorMap map_b,
                     const __grid_constant__ CUtensorMap map_c, float* C, Shape s) {
  GemmTmaWsBody<T, kBN, true, kCluster, false, false, 2, kCPart>(map_a, map_b, nullptr, nullptr, C,
                                                                 s, &map_c);
}

}  // namespace flashscope::kernels::g06
