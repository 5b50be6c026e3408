#include "kernels/hopper/attn_sm90_host.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <mutex>

#include "kernels/device_scratch.h"
#include "kernels/hopper/tensor_map.h"

namespace flashscope::kernels::attn_sm90 {
namespace {

struct MapKey {
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  int64_t bh = 0, seq_q = 0, seq_k = 0, head_dim = 0;
  DType dtype = DType::kF16;
  int bm = 0, bn = 0;
  bool operator==(const MapKey& o) const {
    return q == o.q && k == o.k && v == o.v && bh == o.bh && seq_q == o.seq_q && seq_k == o.seq_k &&
           head_dim == o.head_dim && dtype == o.dtype && bm == o.bm && bn == o.bn;
  }
};

std::string Encode(const void* base, const AttentionProblem& p, int64_t seq, int box_rows,
                   CUtensorMap* out) {
  hopper::TmaTensor t;
  t.base = base;
  t.rank = 3;
  t.type =
      p.dtype == DType::kBF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  const uint64_t row_bytes = static_cast<uint64_t>(p.head_dim) * 2;
  t.dims[0] = static_cast<uint64_t>(p.head_dim);
  t.dims[1] = static_cast<uint64_t>(seq);
  t.dims[2] = static_cast<uint64_t>(p.batch * p.heads);
  t.strides_bytes[0] = row_bytes;
  t.strides_bytes[1] = row_bytes * static_cast<uint64_t>(seq);
  t.box[0] = 64;  // 128 bytes: the swizzle span
  t.box[1] = static_cast<uint32_t>(box_rows);
  t.box[2] = 1;
  t.swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
  return hopper::EncodeTensorMap(t, out);
}

}  // namespace

std::string Supports(const AttentionProblem& p, int bm) {
  if (p.dtype != DType::kF16 && p.dtype != DType::kBF16) {
    return "the Hopper rungs issue wgmma with fp16 or bf16 operands, not " +
           std::string(DTypeName(p.dtype)) +
           " (use attn.a01_scalar or attn.a02_smem_tiled for fp32)";
  }
  if (p.head_dim != 64 && p.head_dim != 128 && p.head_dim != 256) {
    return "head_dim " + std::to_string(p.head_dim) +
           " is not instantiated: the Hopper rungs are compiled for head_dim 64, 128 and 256";
  }
  if (p.batch < 1 || p.heads < 1 || p.seq_q < 1 || p.seq_k < 1) {
    return "empty problem: batch, heads, seq_q and seq_k must be >= 1";
  }
  if (p.seq_q > (int64_t{1} << 30) || p.seq_k > (int64_t{1} << 30)) {
    return "sequence lengths above 2^30 are not supported (32-bit row coordinates)";
  }
  const int64_t ctas = (p.seq_q + bm - 1) / bm * p.batch * p.heads;
  if (ctas > std::numeric_limits<int32_t>::max()) {
    return "batch*heads*ceil(seq_q/" + std::to_string(bm) + ") = " + std::to_string(ctas) +
           " blocks exceed the grid's x limit (2^31 - 1)";
  }
  return "";
}

int MultiprocessorCount() {
  thread_local int cached_device = -1;
  thread_local int cached_sms = 0;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return 0;
  if (device != cached_device) {
    int sms = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
      return 0;
    }
    cached_device = device;
    cached_sms = sms;
  }
  return cached_sms;
}

int SplitCount(int64_t tiles, int64_t key_tiles, int sms) {
  if (tiles <= 0 || sms <= 0) return 1;
  // >= 4 key tiles a share: below that the fp32 partials cost about as much memory traffic as
  // the share's arithmetic saves.
  const int64_t most = std::min<int64_t>(16, std::max<int64_t>(1, key_tiles / 4));
  auto efficiency = [&](int64_t s) {
    const int64_t ctas = tiles * s;
    const int64_t waves = (ctas + sms - 1) / sms;
    return static_cast<double>(ctas) / static_cast<double>(waves * sms);
  };
  double best = 0.0;
  for (int64_t s = 1; s <= most; ++s) best = std::max(best, efficiency(s));
  for (int64_t s = 1; s <= most; ++s) {
    if (efficiency(s) >= 0.85 * best) return static_cast<int>(s);
  }
  return 1;
}

cudaError_t SplitWorkspace(size_t bytes, void** out) {
  // At least 48 MiB on the first allocation: split-KV runs at most ~2 waves of CTAs, whose
  // partials take <= 2 x 132 x 128 rows x 257 floats = 35 MB (D = 256), so the block never grows
  // again and no later launch synchronises to free the old one.
  static DeviceScratch scratch("split-KV's partial results", size_t{48} << 20);
  return scratch.Get(bytes, out);
}

bool PreferShortTiles(int64_t seq_q) {
  if (seq_q <= 0) return false;
  const int64_t rows128 = (seq_q + 127) / 128 * 128, rows192 = (seq_q + 191) / 192 * 192;
  return static_cast<double>(rows128) * kShortTileCost < static_cast<double>(rows192);
}

bool PreferPrefetchGrid(int64_t seq_q, int64_t seq_k, bool causal) {
  if (seq_q <= 0 || seq_k <= 0) return false;
  const double q = static_cast<double>(seq_q), k = static_cast<double>(seq_k);
  // Bottom-right causal: row i sees min(k, k - q + i + 1) keys, none while that is below one.
  double keys = k;
  if (causal) keys = seq_q <= seq_k ? k - q + (q + 1) / 2 : k * (k + 1) / (2 * q);
  return keys / 128 < kPrefetchMaxKeyTiles;
}

int SchedGroup(int64_t n_m, int sms) {
  if (n_m <= 0 || sms <= 0) return 1;
  return static_cast<int>(std::max<int64_t>(1, (2 * int64_t{sms} + n_m - 1) / n_m));
}

cudaError_t UnitCounters(int** out) {
  static std::mutex mu;
  static int device_of = -1;
  static int* counters = nullptr;
  std::lock_guard<std::mutex> lock(mu);
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return err;
  if (device_of != device) {
    void* p = nullptr;
    err = cudaMalloc(&p, 2 * sizeof(int));
    if (err == cudaSuccess) err = cudaMemset(p, 0, 2 * sizeof(int));  // synchronous: done once
    if (err != cudaSuccess) return err;
    counters = static_cast<int*>(p);
    device_of = device;
  }
  *out = counters;
  return cudaSuccess;
}

std::string MapsFor(const AttentionProblem& p, const AttentionArgs& a, int bm, int bn,
                    TensorMaps* out) {
  // Kept per thread (the runner launches from one thread, problem after problem), for the last
  // few buffer sets: the launches of a case rotate through the harness's buffer slots.
  thread_local hopper::RecentMaps<MapKey, TensorMaps> kept;
  const MapKey key{a.q, a.k, a.v, p.batch * p.heads, p.seq_q, p.seq_k, p.head_dim, p.dtype, bm, bn};
  if (const TensorMaps* found = kept.Find(key)) {
    *out = *found;
    return "";
  }
  TensorMaps maps;
  std::string err = Encode(a.q, p, p.seq_q, bm, &maps.q);
  if (err.empty()) err = Encode(a.k, p, p.seq_k, bn, &maps.k);
  if (err.empty()) err = Encode(a.v, p, p.seq_k, bn, &maps.v);
  if (!err.empty()) return err;
  kept.Keep(key, maps);
  *out = maps;
  return "";
}

}  // namespace flashscope::kernels::attn_sm90
