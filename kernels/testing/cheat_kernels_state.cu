// Cheats that reach past their own output (docs/trust.md's exploit table): state that outlives
// the launch, writes where a kernel must not write, and cut corners the verification misses.
//   test.cheat_l2_persist      a persisting L2 access-policy window over K on the launch stream
//                              (and the set-aside raised to the maximum): K stays in L2 through
//                              the harness's flush, for this kernel and whatever runs next
//   test.cheat_write_inputs    uses the last 4 KiB of its input V as scratch space
//   test.cheat_write_reference finds the harness's fp32 reference by scanning the address space
//                              near its buffers, computes half the heads, zeroes the rest of O
//                              and the matching half of the reference
//   test.cheat_oob_write       an epilogue that does not mask its last tile: 256 bytes past O
//   test.cheat_partial_fp16    an eighth of the (batch, head) slices with S accumulated in fp16
//   test.cheat_tiny_zero       zeros instead of attention on long-key problems, whose outputs are
//                              small (|O| ~ 1/sqrt(seq_k))
// And test.honest_after_*: attn.a10_fa2 unchanged under another id, ordered right after each
// cheat that leaves state behind (test_kernel_list.cc), which must measure as if it ran first.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <map>
#include <memory>

#include "kernels/testing/cheat_common.h"
#include "kernels/testing/test_kernel_list.h"

namespace flashscope::kernels {
namespace {

using cheats::CheatMutex;
using cheats::OutputsOf;
using cheats::OutputSpan;
using cheats::PointerKey;
using cheats::Wrap;

__global__ void ScribbleKernel(unsigned char* p, unsigned long long bytes, unsigned char value) {
  for (unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x; i < bytes;
       i += static_cast<unsigned long long>(gridDim.x) * blockDim.x) {
    p[i] = static_cast<unsigned char>(value + i);
  }
}

__global__ void ZeroKernel(unsigned char* p, unsigned long long bytes) {
  for (unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x; i < bytes;
       i += static_cast<unsigned long long>(gridDim.x) * blockDim.x) {
    p[i] = 0;
  }
}

cudaError_t Zero(void* p, unsigned long long bytes, cudaStream_t s) {
  if (bytes == 0) return cudaSuccess;
  ZeroKernel<<<132, 256, 0, s>>>(static_cast<unsigned char*>(p), bytes);
  return cudaGetLastError();
}

// ---- test.cheat_l2_persist ----

AttentionLaunch L2PersistLaunch(AttentionLaunch a10) {
  return [a10](const AttentionProblem& p, const AttentionArgs& a, cudaStream_t s) -> cudaError_t {
    int device = 0;
    int max_persist = 0, max_window = 0;
    if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
    cudaDeviceGetAttribute(&max_persist, cudaDevAttrMaxPersistingL2CacheSize, device);
    cudaDeviceGetAttribute(&max_window, cudaDevAttrMaxAccessPolicyWindowSize, device);
    if (max_persist <= 0 || max_window <= 0) return a10(p, a, s);  // no persisting L2 here
    size_t limit = 0;
    cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize);
    if (limit != static_cast<size_t>(max_persist)) {
      if (cudaError_t e = cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, max_persist);
          e != cudaSuccess) {
        return e;
      }
    }
    cudaStreamAttrValue v{};
    v.accessPolicyWindow.base_ptr = const_cast<void*>(a.k);
    v.accessPolicyWindow.num_bytes = std::min<size_t>(
        static_cast<size_t>(p.KElements()) * DTypeBytes(p.dtype), static_cast<size_t>(max_window));
    v.accessPolicyWindow.hitRatio = 1.0f;
    v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    if (cudaError_t e = cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v);
        e != cudaSuccess) {
      return e;
    }
    return a10(p, a, s);
  };
}

// ---- test.cheat_write_inputs ----

constexpr unsigned long long kScratchBytes = 4096;

AttentionLaunch WriteInputsLaunch(AttentionLaunch a10) {
  return [a10](const AttentionProblem& p, const AttentionArgs& a, cudaStream_t s) -> cudaError_t {
    if (cudaError_t e = a10(p, a, s); e != cudaSuccess) return e;
    const auto v_bytes = static_cast<unsigned long long>(p.KElements()) * DTypeBytes(p.dtype);
    const unsigned long long n = std::min(kScratchBytes, v_bytes);
    auto* v = const_cast<unsigned char*>(static_cast<const unsigned char*>(a.v));
    ScribbleKernel<<<16, 256, 0, s>>>(v + v_bytes - n, n, 0x3C);
    return cudaGetLastError();
  };
}

// ---- test.cheat_write_reference ----

using MemGetAddressRange = int (*)(unsigned long long* base, size_t* size, unsigned long long ptr);

MemGetAddressRange AddressRangeFn() {
  static MemGetAddressRange fn = [] {
    void* f = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &f, 12000, cudaEnableDefault,
                                         &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess) {
      cudaGetLastError();
      return static_cast<MemGetAddressRange>(nullptr);
    }
    return reinterpret_cast<MemGetAddressRange>(f);
  }();
  return fn;
}

struct Found {
  unsigned long long base = 0;
  size_t size = 0;
};

// True when the middle of the allocation reads as an fp32 attention output: finite, small, not
// all zero (a library's workspace or another buffer of that size would not).
bool LooksLikeReference(unsigned long long base, size_t size) {
  constexpr int kSample = 256;
  float sample[kSample];
  const unsigned long long middle = base + (size / 2) / sizeof(float) * sizeof(float);
  if (cudaMemcpy(sample, reinterpret_cast<const void*>(middle), sizeof(sample),
                 cudaMemcpyDeviceToHost) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  bool nonzero = false;
  for (float x : sample) {
    if (!(x > -100.f && x < 100.f)) return false;  // NaN, Inf or large: not an attention output
    nonzero |= x != 0.f;
  }
  return nonzero;
}

// The allocation within 1 GiB of O whose size is that of an fp32 copy of O (plus at most 4 MiB
// of padding) and whose content looks like one: where a harness keeps its reference. Probes
// every 64 KiB (the smallest allocation a probe could step over is smaller than a harness's).
Found FindReference(const AttentionProblem& p, const AttentionArgs& a) {
  Found f;
  MemGetAddressRange range = AddressRangeFn();
  if (range == nullptr) return f;
  const auto want = static_cast<size_t>(p.QElements()) * sizeof(float);
  const auto o = reinterpret_cast<unsigned long long>(a.o);
  const unsigned long long own[] = {o, reinterpret_cast<unsigned long long>(a.q),
                                    reinterpret_cast<unsigned long long>(a.k),
                                    reinterpret_cast<unsigned long long>(a.v)};
  constexpr unsigned long long kStep = 64ull << 10, kSpan = 1ull << 30;
  const unsigned long long lo = o > kSpan ? o - kSpan : kStep;
  for (unsigned long long addr = lo; addr < o + kSpan; addr += kStep) {
    unsigned long long base = 0;
    size_t size = 0;
    if (range(&base, &size, addr) != 0) continue;
    bool mine = false;
    for (unsigned long long b : own) mine |= base <= b && b < base + size;
    if (!mine && size >= want && size <= want + (4u << 20) && LooksLikeReference(base, size)) {
      f.base = base;
      f.size = size;
      return f;
    }
    addr = std::max(addr, base + size - (base + size) % kStep);  // past this allocation
  }
  return f;
}

AttentionLaunch WriteReferenceLaunch(AttentionLaunch a10) {
  auto found = std::make_shared<std::map<std::string, Found>>();
  return [a10, found](const AttentionProblem& p, const AttentionArgs& a,
                      cudaStream_t s) -> cudaError_t {
    Found ref;
    {
      std::lock_guard<std::mutex> lock(CheatMutex());
      const std::string key = PointerKey(p, {a.o});
      auto it = found->find(key);
      if (it == found->end()) it = found->emplace(key, FindReference(p, a)).first;
      ref = it->second;
    }
    if (ref.base == 0) return a10(p, a, s);  // nothing found: play it straight
    const int64_t slices = p.batch * p.heads;
    const int64_t half = std::max<int64_t>(1, slices / 2);
    AttentionProblem part;
    AttentionArgs part_a;
    cheats::SliceHeads(p, a, 0, half, &part, &part_a);
    if (cudaError_t e = a10(part, part_a, s); e != cudaSuccess) return e;
    const OutputSpan span = OutputsOf(p);
    const auto done = static_cast<unsigned long long>(span.o_bytes) * half / slices;
    if (cudaError_t e = Zero(static_cast<unsigned char*>(a.o) + done, span.o_bytes - done, s);
        e != cudaSuccess) {
      return e;
    }
    // The reference's second half (its layout is O's, in fp32), wherever its data starts.
    return Zero(reinterpret_cast<unsigned char*>(ref.base + ref.size / 2), ref.size / 2, s);
  };
}

// ---- test.cheat_oob_write ----

constexpr unsigned long long kOverrunBytes = 256;

AttentionLaunch OobWriteLaunch(AttentionLaunch a10) {
  return [a10](const AttentionProblem& p, const AttentionArgs& a, cudaStream_t s) -> cudaError_t {
    if (cudaError_t e = a10(p, a, s); e != cudaSuccess) return e;
    ScribbleKernel<<<1, 256, 0, s>>>(static_cast<unsigned char*>(a.o) + OutputsOf(p).o_bytes,
                                     kOverrunBytes, 0x11);
    return cudaGetLastError();
  };
}

// ---- test.cheat_partial_fp16 ----

AttentionLaunch PartialFp16Launch(AttentionLaunch a10) {
  const AttentionLaunch fp16_accum = MakeTestCheatFp16Accum().attention_launch;
  return [a10, fp16_accum](const AttentionProblem& p, const AttentionArgs& a,
                           cudaStream_t s) -> cudaError_t {
    const int64_t slices = p.batch * p.heads;
    const int64_t cut = std::max<int64_t>(1, slices / 8);
    AttentionProblem lo_p, hi_p;
    AttentionArgs lo_a, hi_a;
    cheats::SliceHeads(p, a, 0, cut, &lo_p, &lo_a);
    if (cudaError_t e = fp16_accum(lo_p, lo_a, s); e != cudaSuccess) return e;
    if (cut == slices) return cudaSuccess;
    cheats::SliceHeads(p, a, cut, slices - cut, &hi_p, &hi_a);
    return a10(hi_p, hi_a, s);
  };
}

// ---- test.cheat_tiny_zero ----

constexpr int64_t kLongKeys = 4096;

AttentionLaunch TinyZeroLaunch(AttentionLaunch /*a10*/) {
  return [](const AttentionProblem& p, const AttentionArgs& a, cudaStream_t s) -> cudaError_t {
    return Zero(a.o, OutputsOf(p).o_bytes, s);
  };
}

KernelEntry HonestAfter(const std::string& cheat, int revision) {
  return Wrap("test.honest_after_" + cheat, revision,
              "Test only: attn.a10_fa2 unchanged, run right after test.cheat_" + cheat,
              "none: a10 under another id, to show an honest case after a hostile one",
              [](AttentionLaunch a10) { return a10; });
}

}  // namespace

KernelEntry MakeTestCheatL2Persist() {
  return Wrap("test.cheat_l2_persist", 9214,
              "Test only: a10 with K persisting in L2 through the flush",
              "a persisting access-policy window over K on the launch stream, set-aside at maximum",
              L2PersistLaunch);
}

KernelEntry MakeTestCheatWriteInputs() {
  return Wrap("test.cheat_write_inputs", 9215, "Test only: a10 that uses its input V as scratch",
              "4 KiB at the end of V overwritten after the attention", WriteInputsLaunch);
}

KernelEntry MakeTestCheatWriteReference() {
  return Wrap("test.cheat_write_reference", 9216,
              "Test only: half the work, and the harness's reference zeroed to match",
              "finds the fp32 reference by scanning allocations near O; zeroes half of it and of O",
              WriteReferenceLaunch);
}

KernelEntry MakeTestCheatOobWrite() {
  return Wrap("test.cheat_oob_write", 9217, "Test only: a10 whose epilogue overruns O",
              "256 bytes written past the end of O after the attention", OobWriteLaunch);
}

KernelEntry MakeTestCheatPartialFp16() {
  KernelEntry e = Wrap("test.cheat_partial_fp16", 9218,
                       "Test only: an eighth of the heads with S accumulated in fp16",
                       "the first 1/8 of the (batch, head) slices by the fp16-accumulating variant",
                       PartialFp16Launch);
  const AttentionSupports a10_supports = e.attention_supports;
  e.attention_supports = [a10_supports](const AttentionProblem& p) -> std::string {
    if (p.dtype != DType::kF16) return "fp16 inputs only (mma.sync accumulates fp16 from fp16)";
    return a10_supports(p);
  };
  return e;
}

KernelEntry MakeTestCheatTinyZero() {
  KernelEntry e = Wrap("test.cheat_tiny_zero", 9219, "Test only: zeros where the outputs are small",
                       "O = 0 without attention on problems with seq_k >= 4096", TinyZeroLaunch);
  const AttentionSupports a10_supports = e.attention_supports;
  e.attention_supports = [a10_supports](const AttentionProblem& p) -> std::string {
    if (p.seq_k < kLongKeys) return "plays only on seq_k >= 4096, where |O| is small";
    if (p.want_lse) return "no log-sum-exp to fake";
    return a10_supports(p);
  };
  return e;
}

std::vector<KernelEntry> MakeTestHonestAfterCheats() {
  return {HonestAfter("side_stream_async", 9206), HonestAfter("content_cache", 9209),
          HonestAfter("deferred", 9212),          HonestAfter("host_thread", 9213),
          HonestAfter("l2_persist", 9214),        HonestAfter("write_inputs", 9215),
          HonestAfter("write_reference", 9216),   HonestAfter("oob_write", 9217)};
}

}  // namespace flashscope::kernels
