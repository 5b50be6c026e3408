#include "kernels/hopper/attn_fp8_host.h"

#include <limits>

#include "kernels/device_scratch.h"
#include "kernels/hopper/tensor_map.h"

namespace flashscope::kernels::attn_fp8 {
namespace {

struct MapKey {
  const void* q = nullptr;
  const void* k = nullptr;
  const void* vt = nullptr;
  int64_t bh = 0, seq_q = 0, seq_k = 0, head_dim = 0;
  bool operator==(const MapKey& o) const {
    return q == o.q && k == o.k && vt == o.vt && bh == o.bh && seq_q == o.seq_q &&
           seq_k == o.seq_k && head_dim == o.head_dim;
  }
};

// A 3-D tensor of bytes [dim2][dim1][dim0] read in boxes of box0 x box1 x 1.
std::string EncodeBytes(const void* base, uint64_t dim0, uint64_t dim1, uint64_t dim2,
                        uint32_t box0, uint32_t box1, CUtensorMapSwizzle swizzle,
                        CUtensorMap* out) {
  hopper::TmaTensor t;
  t.base = base;
  t.rank = 3;
  t.type = CU_TENSOR_MAP_DATA_TYPE_UINT8;
  t.dims[0] = dim0;
  t.dims[1] = dim1;
  t.dims[2] = dim2;
  t.strides_bytes[0] = dim0;
  t.strides_bytes[1] = dim0 * dim1;
  t.box[0] = box0;
  t.box[1] = box1;
  t.box[2] = 1;
  t.swizzle = swizzle;
  return hopper::EncodeTensorMap(t, out);
}

}  // namespace

std::string Supports(const AttentionProblem& p, const std::string& id) {
  if (p.dtype != DType::kE4M3) {
    return id + " takes e4m3 inputs only (its wgmmas are .e4m3), not " +
           std::string(DTypeName(p.dtype)) + " (the bf16/fp16 rungs are a12..a26)";
  }
  if (p.head_dim != 64 && p.head_dim != 128 && p.head_dim != 256) {
    return "head_dim " + std::to_string(p.head_dim) + " is not instantiated: " + id +
           " is compiled for head_dim 64, 128 and 256";
  }
  if (p.batch < 1 || p.heads < 1 || p.seq_q < 1 || p.seq_k < 1) {
    return "empty problem: batch, heads, seq_q and seq_k must be >= 1";
  }
  if (p.seq_q > (int64_t{1} << 30) || p.seq_k > (int64_t{1} << 30)) {
    return "sequence lengths above 2^30 are not supported (32-bit row coordinates)";
  }
  const int64_t bh = p.batch * p.heads;
  const int64_t ctas = (p.seq_q + 127) / 128 * bh;
  const int64_t pre = PaddedKeys(p.seq_k) / kKeyTile * (p.head_dim / 64) * bh;
  // Split-KV (a29) splits only grids of fewer than ~2 waves, so its tiles x shares stay small
  // whenever it splits; bounding the tiles alone is the unsplit grid's rule.
  if (ctas > std::numeric_limits<int32_t>::max() || pre > std::numeric_limits<int32_t>::max()) {
    return "the grids (batch*heads*ceil(seq_q/128) = " + std::to_string(ctas) +
           ", the V transpose's " + std::to_string(pre) + ") exceed the grid's x limit (2^31 - 1)";
  }
  return "";
}

cudaError_t TransposedV(size_t bytes, void** out) {
  static DeviceScratch scratch("the FP8 rungs' transposed V", size_t{64} << 20);
  return scratch.Get(bytes, out);
}

std::string MapsFor(const AttentionProblem& p, const AttentionArgs& a, const void* vt, Maps* out) {
  thread_local hopper::RecentMaps<MapKey, Maps> kept;
  const int64_t bh = p.batch * p.heads;
  const MapKey key{a.q, a.k, vt, bh, p.seq_q, p.seq_k, p.head_dim};
  if (const Maps* found = kept.Find(key)) {
    *out = *found;
    return "";
  }
  const uint64_t d = static_cast<uint64_t>(p.head_dim);
  const uint32_t span = p.head_dim >= 128 ? 128 : 64;
  const CUtensorMapSwizzle sw =
      p.head_dim >= 128 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_64B;
  Maps maps;
  std::string err = EncodeBytes(a.q, d, p.seq_q, bh, span, 128, sw, &maps.q);
  if (err.empty()) err = EncodeBytes(a.k, d, p.seq_k, bh, span, kKeyTile, sw, &maps.k);
  if (err.empty()) {
    err = EncodeBytes(vt, PaddedKeys(p.seq_k), d, bh, kKeyTile, static_cast<uint32_t>(d),
                      CU_TENSOR_MAP_SWIZZLE_128B, &maps.vt);
  }
  if (!err.empty()) return err;
  kept.Keep(key, maps);
  *out = maps;
  return "";
}

}  // namespace flashscope::kernels::attn_fp8
