// Cheats that reach past their own output (docs/trust.md's exploit table): state that outlives
// the launch, writes where a kernel must not write, and cut corners the verification misses.
//   test.cheat_l2_persist      a persisting L2 access-policy window over K on the launch stream
//                              (and the set-aside raised to the maximum): K stays in L2 through
//                              the harness's flush, for this kernel and whatever runs next
//   test.cheat_write_inputs    uses the last 4 KiB of its input V as scratch space
//   test.cheat_write_reference finds the harness's fp32 reference through the worker's host
//                              memory (a device pointer followed by its size, whose content
//                              matches what it computed), computes half the heads, zeroes the
//                              rest of O and the matching half of the reference
//   test.cheat_oob_write       an epilogue that does not mask its last tile: 256 bytes past O
//   test.cheat_partial_fp16    an eighth of the (batch, head) slices with S accumulated in fp16
//   test.cheat_tiny_zero       zeros instead of attention on long-key problems, whose outputs are
//                              small (|O| ~ 1/sqrt(seq_k))
// And test.honest_after_*: attn.a10_fa2 unchanged under another id, ordered right after each
// cheat that leaves state behind (test_kernel_list.cc), which must measure as if it ran first.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

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

// A plugin runs inside the worker's process: the harness's host memory is its to read. The
// harness keeps every device buffer as a pointer followed by its size (that is all the cheat
// assumes), so the fp32 reference of O is an 8-byte word pointing into a live device allocation,
// followed by the word 4 x O's elements. Of the words that fit, the reference is the one whose
// content matches the heads this launch computed: found on every run, wherever it was allocated.

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

// The process's writable private memory that is not a file's: the heap and anonymous mappings,
// where a C++ program keeps its objects.
std::vector<std::pair<uint64_t, uint64_t>> HostDataRegions() {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    std::istringstream in(line);
    std::string range, perms, offset, dev, inode, path;
    in >> range >> perms >> offset >> dev >> inode >> path;
    if (perms.size() < 4 || perms[0] != 'r' || perms[1] != 'w' || perms[3] != 'p') continue;
    if (!path.empty() && path != "[heap]") continue;
    const size_t dash = range.find('-');
    out.emplace_back(std::stoull(range.substr(0, dash), nullptr, 16),
                     std::stoull(range.substr(dash + 1), nullptr, 16));
  }
  return out;
}

// Device pointers `bytes` long that the host memory holds as {pointer, bytes}: read through
// /proc/self/mem, which answers EIO instead of faulting where a mapping went away meanwhile.
std::set<uint64_t> PointersWithSize(uint64_t bytes) {
  std::set<uint64_t> out;
  MemGetAddressRange range = AddressRangeFn();
  const int fd = open("/proc/self/mem", O_RDONLY);
  if (range == nullptr || fd < 0) {
    if (fd >= 0) close(fd);
    return out;
  }
  constexpr size_t kChunk = 1 << 20;
  std::vector<uint64_t> words(kChunk / 8 + 1);
  for (const auto& [lo, hi] : HostDataRegions()) {
    for (uint64_t at = lo; at < hi; at += kChunk) {
      const size_t want = static_cast<size_t>(std::min<uint64_t>(kChunk + 8, hi - at));
      const ssize_t got = pread(fd, words.data(), want, static_cast<off_t>(at));
      if (got < 16) continue;
      for (size_t i = 0; i + 1 < static_cast<size_t>(got) / 8; ++i) {
        if (words[i + 1] != bytes || words[i] == 0 || words[i] % 256 != 0) continue;
        unsigned long long base = 0;
        size_t size = 0;
        if (range(&base, &size, words[i]) != 0) continue;  // not a live device allocation
        if (words[i] + bytes <= base + size) out.insert(words[i]);
      }
    }
  }
  close(fd);
  return out;
}

float ToFloat(const void* p, int64_t i, DType dtype) {
  if (dtype == DType::kF16) return __half2float(static_cast<const __half*>(p)[i]);
  if (dtype == DType::kBF16) return __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i]);
  return static_cast<const float*>(p)[i];
}

// The candidate whose first elements are those this launch wrote into O (the first head, which
// it computed): within 5 % of their magnitude, where another draw's reference differs by ~100 %.
uint64_t MatchingReference(const std::set<uint64_t>& candidates, const AttentionProblem& p,
                           const void* o, cudaStream_t s) {
  const int64_t n = std::min<int64_t>(256, p.seq_q * p.head_dim);
  std::vector<unsigned char> mine(static_cast<size_t>(n) * DTypeBytes(p.dtype));
  std::vector<float> ref(static_cast<size_t>(n));
  if (cudaMemcpyAsync(mine.data(), o, mine.size(), cudaMemcpyDeviceToHost, s) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  for (uint64_t c : candidates) {
    if (cudaMemcpyAsync(ref.data(), reinterpret_cast<const void*>(c), ref.size() * sizeof(float),
                        cudaMemcpyDeviceToHost, s) != cudaSuccess ||
        cudaStreamSynchronize(s) != cudaSuccess) {
      cudaGetLastError();
      continue;
    }
    float scale = 0, err = 0;
    for (int64_t i = 0; i < n; ++i) {
      scale = std::max(scale, std::fabs(ref[i]));
      err = std::max(err, std::fabs(ToFloat(mine.data(), i, p.dtype) - ref[i]));
    }
    if (scale > 0 && err <= 0.05f * scale) return c;
  }
  return 0;
}

AttentionLaunch WriteReferenceLaunch(AttentionLaunch a10) {
  auto found = std::make_shared<std::map<std::string, uint64_t>>();
  return [a10, found](const AttentionProblem& p, const AttentionArgs& a,
                      cudaStream_t s) -> cudaError_t {
    const int64_t slices = p.batch * p.heads;
    const int64_t half = std::max<int64_t>(1, slices / 2);
    AttentionProblem part;
    AttentionArgs part_a;
    cheats::SliceHeads(p, a, 0, half, &part, &part_a);
    if (cudaError_t e = a10(part, part_a, s); e != cudaSuccess) return e;
    const auto ref_bytes = static_cast<uint64_t>(p.QElements()) * sizeof(float);
    uint64_t ref = 0;
    {
      std::lock_guard<std::mutex> lock(CheatMutex());
      const std::string key = PointerKey(p, {a.o});
      auto it = found->find(key);
      // The first launch on this output (the verified one) finds the reference of its inputs.
      if (it == found->end()) {
        it = found->emplace(key, MatchingReference(PointersWithSize(ref_bytes), p, a.o, s)).first;
      }
      ref = it->second;
    }
    const OutputSpan span = OutputsOf(p);
    const auto done = static_cast<unsigned long long>(span.o_bytes) * half / slices;
    if (cudaError_t e = Zero(static_cast<unsigned char*>(a.o) + done, span.o_bytes - done, s);
        e != cudaSuccess) {
      return e;
    }
    // Not found (no /proc, no driver entry point): half of O stays zero and verification fails.
    if (ref == 0) return cudaSuccess;
    // The reference's matching half (its layout is O's, in fp32), exactly: no byte past it.
    const uint64_t ref_done = ref_bytes * half / slices;
    return Zero(reinterpret_cast<unsigned char*>(ref) + ref_done, ref_bytes - ref_done, s);
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
              "finds the fp32 reference through the host memory; zeroes half of it and of O",
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
