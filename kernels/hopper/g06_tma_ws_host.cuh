// The host side of the TMA + warp-specialised GEMM rungs (g06, g07): tensor maps, the persistent
// grid's size and the launch of one instantiation. Included by g06_tma_ws.cu and
// g07_split_tail.cu (and the tuning harness kernels/perf/gemm_sweep.cu through g06's file).
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <mutex>
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

inline int64_t Tiles(const GemmProblem& p, int bn) { return CeilDiv(p.m, kBM) * CeilDiv(p.n, bn); }

struct Maps {
  CUtensorMap a{}, b{};
};

// Encoding costs host time on every launch; the runner relaunches one problem on the same few
// buffer sets (its rotated slots) many times, so the maps of the last few are kept.
inline std::string MapsFor(const GemmProblem& p, const GemmArgs& args, int bn, Maps* out) {
  struct Key {
    const void* a = nullptr;
    const void* b = nullptr;
    int64_t m = 0, n = 0, k = 0;
    DType dtype = DType::kF16;
    int bn = 0;
    bool operator==(const Key& o) const {
      return a == o.a && b == o.b && m == o.m && n == o.n && k == o.k && dtype == o.dtype &&
             bn == o.bn;
    }
  };
  static std::mutex mu;
  static hopper::RecentMaps<Key, Maps> kept;
  const Key key{args.a, args.b, p.m, p.n, p.k, p.dtype, bn};
  std::lock_guard<std::mutex> lock(mu);
  if (const Maps* found = kept.Find(key)) {
    *out = *found;
    return "";
  }
  const CUtensorMapDataType type =
      p.dtype == DType::kBF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  Maps maps;
  // A: M rows of K, boxes of 128 rows x 64 k. B: K rows of N, boxes of 64 k-rows x 64 n.
  std::string why = EncodeTensorMap(
      MatrixTensor(args.a, type, uint64_t(p.m), uint64_t(p.k), uint64_t(p.k) * 2, kBM, kBK),
      &maps.a);
  if (why.empty()) {
    why = EncodeTensorMap(
        MatrixTensor(args.b, type, uint64_t(p.k), uint64_t(p.n), uint64_t(p.n) * 2, kBK, 64),
        &maps.b);
  }
  if (!why.empty()) return why;
  kept.Keep(key, maps);
  *out = maps;
  return "";
}

// How many clusters of the kernel fit on the GPU at once: the persistent grid's size.
template <typename T, int kBN, bool kTma, int kCluster, bool kSplitTail>
constexpr auto KernelOf() {
  if constexpr (kSplitTail) {
    return &G07SplitTailKernel<T, kBN, kCluster>;
  } else {
    return &G06TmaWsKernel<T, kBN, kTma, kCluster>;
  }
}

template <typename T, int kBN, bool kTma, int kCluster, bool kSplitTail = false>
int ResidentClusters(cudaLaunchConfig_t cfg) {
  static const int n = [&] {
    if constexpr (kCluster == 1) return SmCount();
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, KernelOf<T, kBN, kTma, kCluster, kSplitTail>(),
                                       &cfg) != cudaSuccess ||
        clusters < 1) {
      cudaGetLastError();
      return SmCount() / kCluster;
    }
    return clusters;
  }();
  return n;
}

// kSplitTail (g07): the last, partial wave of cluster tiles split along K (SplitTailPlan).
template <typename T, int kBN, bool kTma, int kCluster, bool kSplitTail = false>
cudaError_t LaunchTyped(const GemmProblem& p, const GemmArgs& a, const Maps& maps,
                        cudaStream_t stream, int group_m = kDefaultGroupM) {
  using L = Layout<kBN>;
  auto* const kernel = KernelOf<T, kBN, kTma, kCluster, kSplitTail>();
  static const cudaError_t attr =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(L::kSmemBytes));
  if (attr != cudaSuccess) return attr;
  Shape s{int(p.m),
          int(p.n),
          int(p.k),
          int(CeilDiv(p.m, kBM)),
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
  cfg.blockDim = dim3(kThreads);
  cfg.dynamicSmemBytes = L::kSmemBytes;
  cfg.stream = stream;
  cfg.attrs = &cluster;
  cfg.numAttrs = 1;
  const int64_t cluster_tiles = CeilDiv(s.tiles_m, kCluster) * s.tiles_n;
  const int64_t resident = ResidentClusters<T, kBN, kTma, kCluster, kSplitTail>(cfg);
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
  const cudaError_t e =
      cudaLaunchKernelEx(&cfg, kernel, maps.a, maps.b, static_cast<const uint16_t*>(a.a),
                         static_cast<const uint16_t*>(a.b), a.c, s);
  return e != cudaSuccess ? e : cudaGetLastError();
}

}  // namespace flashscope::kernels::g06
