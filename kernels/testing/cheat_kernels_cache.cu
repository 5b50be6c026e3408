// Cheats that remember answers or guess which launches are checked (docs/trust.md's exploit
// table): each does the full work where a check seems to look and something cheaper elsewhere.
// With two input sets read in turn (i mod 2), the caches are right on every launch; with fresh
// inputs per launch and outputs checked on sampled rows, they are caught (the pointer cache once
// the launches rotate through buffer slots: with fixed buffers every launch is a "repeat" and it
// computes).
//   test.cheat_content_cache  a cache keyed on a GPU hash of the inputs' content: full work when
//                             the inputs repeat the previous launch's (a profiler's replay) or
//                             for the first two input sets, else the cached answer for that
//                             content (or, unknown content, the latest answer), the time padded
//                             with a spin to look like 600 TFLOP/s
//   test.cheat_pointer_cache  the same keyed on the buffers' addresses
//   test.cheat_sequence       launch counting and the time between calls: full work on the first
//                             launches per buffer set and after a pause, a quarter of the heads
//                             in a burst of back-to-back calls
//   test.cheat_deferred       half the heads now, the other half (from copies of this launch's
//                             inputs) at the start of the next launch: full work per launch, an
//                             output complete one launch late
//   test.cheat_host_thread    a host thread does the work on a stream of its own; launch() only
//                             copies the latest finished answer
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <optional>
#include <thread>

#include "kernels/testing/cheat_common.h"
#include "kernels/testing/spin_delay.h"
#include "kernels/testing/test_kernel_list.h"

namespace flashscope::kernels {
namespace {

using cheats::CheatMutex;
using cheats::CopyOutputs;
using cheats::OutputsOf;
using cheats::OutputSpan;
using cheats::PointerKey;
using cheats::Wrap;

// The spin that makes a served answer take as long as a kernel at this many FLOP/s would (under
// any GPU's dense 16-bit peak, so that plausibility cannot object).
constexpr double kPaddedFlopsPerS = 600e12;

unsigned long long PaddingNs(const AttentionProblem& p) {
  const double flops = 4.0 * static_cast<double>(p.batch * p.heads * p.seq_q * p.seq_k) *
                       static_cast<double>(p.head_dim);
  return static_cast<unsigned long long>(flops / kPaddedFlopsPerS * 1e9);
}

// ---- test.cheat_content_cache: every decision on the GPU, no host synchronisation ----

constexpr int kEntries = 2;
constexpr int kCompute = 0;
constexpr int kServe = 1;

struct ContentState {
  unsigned long long fingerprint;
  unsigned long long last;
  unsigned long long entry[kEntries];
  int entries;
  int next;
  int mode;
  int slot;
};

__device__ unsigned long long MixBits(unsigned long long x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// A hash of the inputs' every 8 bytes: O(S·D), nothing next to the O(S²·D) of attention.
__global__ void FingerprintKernel(const unsigned long long* q, unsigned long long nq,
                                  const unsigned long long* k, const unsigned long long* v,
                                  unsigned long long nkv, ContentState* st) {
  unsigned long long h = 0;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x; i < nq; i += stride) {
    h += MixBits(q[i] ^ i);
  }
  for (unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x; i < nkv; i += stride) {
    h += MixBits(k[i] ^ (i << 1)) + MixBits(v[i] ^ (i << 2));
  }
  atomicAdd(&st->fingerprint, h);
}

__global__ void DecideKernel(ContentState* st) {
  const unsigned long long f = st->fingerprint;
  const bool repeat = f == st->last;
  st->last = f;
  int hit = -1;
  for (int i = 0; i < st->entries; ++i) {
    if (st->entry[i] == f) hit = i;
  }
  if (hit >= 0 && !repeat) {
    st->mode = kServe;
    st->slot = hit;
  } else if (repeat || st->entries < kEntries) {
    // What a check looks like: the same inputs twice (replay passes) or a set not seen yet.
    st->mode = kCompute;
    st->slot = hit >= 0 ? hit : (st->entries < kEntries ? st->entries++ : st->next);
    st->next = (st->slot + 1) % kEntries;
    st->entry[st->slot] = f;
  } else {
    st->mode = kServe;  // content never seen and the cache full: the latest answer will do
    st->slot = (st->next + kEntries - 1) % kEntries;
  }
}

// kServe: the cached answer into O (and the lse); kCompute: O filled with the poison pattern, so
// that a10's test variant (kTestSkipUnlessPoisoned) computes every block.
__global__ void FillKernel(unsigned char* o, unsigned long long o_bytes, unsigned char* lse,
                           unsigned long long lse_bytes, unsigned char* const* cache_o,
                           unsigned char* const* cache_lse, const ContentState* st) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  const bool serve = st->mode == kServe;
  const unsigned char* src_o = cache_o[st->slot];
  for (unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x; i < o_bytes; i += stride) {
    o[i] = serve ? src_o[i] : 0xFF;
  }
  if (!serve || lse == nullptr) return;
  const unsigned char* src_lse = cache_lse[st->slot];
  for (unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x; i < lse_bytes; i += stride) {
    lse[i] = src_lse[i];
  }
}

__global__ void StoreKernel(const unsigned char* o, unsigned long long o_bytes,
                            const unsigned char* lse, unsigned long long lse_bytes,
                            unsigned char* const* cache_o, unsigned char* const* cache_lse,
                            const ContentState* st) {
  if (st->mode != kCompute) return;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  unsigned char* dst_o = cache_o[st->slot];
  for (unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x; i < o_bytes; i += stride) {
    dst_o[i] = o[i];
  }
  if (lse == nullptr) return;
  unsigned char* dst_lse = cache_lse[st->slot];
  for (unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x; i < lse_bytes; i += stride) {
    dst_lse[i] = lse[i];
  }
}

// A spin only when the answer was served: the time of a plausible kernel.
__global__ void PadKernel(const ContentState* st, unsigned long long ns) {
  if (st->mode != kServe) return;
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

struct ContentCache {
  ContentState* state = nullptr;
  unsigned char** cache_o = nullptr;  // device array of kEntries pointers
  unsigned char** cache_lse = nullptr;
};

cudaError_t MakeContentCache(const OutputSpan& span, ContentCache* c) {
  if (cudaError_t e = cudaMalloc(&c->state, sizeof(ContentState)); e != cudaSuccess) return e;
  if (cudaError_t e = cudaMemset(c->state, 0, sizeof(ContentState)); e != cudaSuccess) return e;
  unsigned char* host_o[kEntries] = {};
  unsigned char* host_lse[kEntries] = {};
  for (int i = 0; i < kEntries; ++i) {
    if (cudaError_t e = cudaMalloc(&host_o[i], span.o_bytes); e != cudaSuccess) return e;
    if (span.lse_bytes > 0) {
      if (cudaError_t e = cudaMalloc(&host_lse[i], span.lse_bytes); e != cudaSuccess) return e;
    }
  }
  if (cudaError_t e = cudaMalloc(&c->cache_o, sizeof(host_o)); e != cudaSuccess) return e;
  if (cudaError_t e = cudaMalloc(&c->cache_lse, sizeof(host_lse)); e != cudaSuccess) return e;
  if (cudaError_t e = cudaMemcpy(c->cache_o, host_o, sizeof(host_o), cudaMemcpyHostToDevice);
      e != cudaSuccess) {
    return e;
  }
  return cudaMemcpy(c->cache_lse, host_lse, sizeof(host_lse), cudaMemcpyHostToDevice);
}

AttentionLaunch ContentCacheLaunch(AttentionLaunch /*a10*/) {
  const AttentionLaunch compute_poisoned = MakeTestCheatWhenPoisoned().attention_launch;
  auto caches = std::make_shared<std::map<std::string, ContentCache>>();
  return [compute_poisoned, caches](const AttentionProblem& p, const AttentionArgs& a,
                                    cudaStream_t s) -> cudaError_t {
    std::lock_guard<std::mutex> lock(CheatMutex());
    const OutputSpan span = OutputsOf(p);
    const std::string key = ProblemKey(p);
    auto it = caches->find(key);
    if (it == caches->end()) {
      ContentCache c;
      // Made once per problem, before the first launch is timed (a synchronous setup).
      if (cudaError_t e = MakeContentCache(span, &c); e != cudaSuccess) return e;
      it = caches->emplace(key, c).first;
    }
    const ContentCache& c = it->second;
    const size_t esize = DTypeBytes(p.dtype);
    const auto nq = static_cast<unsigned long long>(p.QElements()) * esize / 8;
    const auto nkv = static_cast<unsigned long long>(p.KElements()) * esize / 8;
    if (cudaError_t e = cudaMemsetAsync(&c.state->fingerprint, 0, 8, s); e != cudaSuccess) return e;
    FingerprintKernel<<<264, 256, 0, s>>>(static_cast<const unsigned long long*>(a.q), nq,
                                          static_cast<const unsigned long long*>(a.k),
                                          static_cast<const unsigned long long*>(a.v), nkv,
                                          c.state);
    DecideKernel<<<1, 1, 0, s>>>(c.state);
    FillKernel<<<264, 256, 0, s>>>(static_cast<unsigned char*>(a.o), span.o_bytes,
                                   reinterpret_cast<unsigned char*>(a.lse), span.lse_bytes,
                                   c.cache_o, c.cache_lse, c.state);
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
    if (cudaError_t e = compute_poisoned(p, a, s); e != cudaSuccess) return e;
    StoreKernel<<<264, 256, 0, s>>>(static_cast<const unsigned char*>(a.o), span.o_bytes,
                                    reinterpret_cast<const unsigned char*>(a.lse), span.lse_bytes,
                                    c.cache_o, c.cache_lse, c.state);
    PadKernel<<<1, 32, 0, s>>>(c.state, PaddingNs(p));
    return cudaGetLastError();
  };
}

// ---- test.cheat_pointer_cache ----

AttentionLaunch PointerCacheLaunch(AttentionLaunch a10) {
  struct Entry {
    void* o = nullptr;
    void* lse = nullptr;
  };
  auto cache = std::make_shared<std::map<std::string, Entry>>();
  auto last = std::make_shared<std::string>();
  return [a10, cache, last](const AttentionProblem& p, const AttentionArgs& a,
                            cudaStream_t s) -> cudaError_t {
    std::lock_guard<std::mutex> lock(CheatMutex());
    const std::string key = PointerKey(p, {a.q, a.k, a.v, a.o, a.lse});
    const bool repeat = key == *last;
    *last = key;
    const OutputSpan span = OutputsOf(p);
    auto it = cache->find(key);
    if (it != cache->end() && !repeat) {
      if (cudaError_t e = CopyOutputs(a.o, a.lse, it->second.o, it->second.lse, span, s);
          e != cudaSuccess) {
        return e;
      }
      return LaunchSpin(PaddingNs(p), s);
    }
    // Buffers not seen yet, or the same buffers twice in a row (a profiler replaying a launch):
    // the real work, kept for later.
    if (cudaError_t e = a10(p, a, s); e != cudaSuccess) return e;
    if (it == cache->end()) {
      Entry entry;
      if (cudaError_t e = cudaMalloc(&entry.o, span.o_bytes); e != cudaSuccess) return e;
      if (span.lse_bytes > 0) {
        if (cudaError_t e = cudaMalloc(&entry.lse, span.lse_bytes); e != cudaSuccess) return e;
      }
      it = cache->emplace(key, entry).first;
    }
    return CopyOutputs(it->second.o, it->second.lse, a.o, a.lse, span, s);
  };
}

// ---- test.cheat_sequence ----

// Launches per buffer set that are always full (verification, the other input set, warm-up).
constexpr int kFullLaunches = 3;
// A call this long after the previous one is "after a pause": something looked at the output.
constexpr auto kPause = std::chrono::milliseconds(20);

AttentionLaunch SequenceLaunch(AttentionLaunch a10) {
  struct Seen {
    int launches = 0;
    std::chrono::steady_clock::time_point last;
  };
  auto seen = std::make_shared<std::map<std::string, Seen>>();
  return [a10, seen](const AttentionProblem& p, const AttentionArgs& a,
                     cudaStream_t s) -> cudaError_t {
    std::lock_guard<std::mutex> lock(CheatMutex());
    Seen& k = (*seen)[PointerKey(p, {a.o})];
    const auto now = std::chrono::steady_clock::now();
    const bool paused = k.launches == 0 || now - k.last > kPause;
    k.last = now;
    if (++k.launches <= kFullLaunches || paused) return a10(p, a, s);
    AttentionProblem part;
    AttentionArgs part_a;
    cheats::SliceHeads(p, a, 0, std::max<int64_t>(1, p.batch * p.heads / 4), &part, &part_a);
    return a10(part, part_a, s);
  };
}

// ---- test.cheat_deferred ----

// The second half of the (batch, head) slices of a launch is computed at the start of the next
// launch, from copies of that launch's inputs: every launch does a full launch's work, but its
// output is complete only one launch late.
struct Deferred {
  void* q = nullptr;  // copies of the deferred slices' inputs
  void* k = nullptr;
  void* v = nullptr;
  bool pending = false;
  AttentionProblem p;  // the deferred slices, on the copies
  AttentionArgs a;
};

cudaError_t MakeDeferred(const AttentionProblem& p, int64_t later, Deferred* d) {
  const size_t esize = DTypeBytes(p.dtype);
  const auto q_bytes = static_cast<size_t>(later * p.seq_q * p.head_dim) * esize;
  const auto kv_bytes = static_cast<size_t>(later * p.seq_k * p.head_dim) * esize;
  if (cudaError_t e = cudaMalloc(&d->q, q_bytes); e != cudaSuccess) return e;
  if (cudaError_t e = cudaMalloc(&d->k, kv_bytes); e != cudaSuccess) return e;
  return cudaMalloc(&d->v, kv_bytes);
}

AttentionLaunch DeferredLaunch(AttentionLaunch a10) {
  auto state = std::make_shared<std::map<std::string, Deferred>>();
  return [a10, state](const AttentionProblem& p, const AttentionArgs& a,
                      cudaStream_t s) -> cudaError_t {
    std::lock_guard<std::mutex> lock(CheatMutex());
    const int64_t slices = p.batch * p.heads;
    const int64_t half = std::max<int64_t>(1, slices / 2);
    const std::string key = PointerKey(p, {a.o, a.lse});
    auto it = state->find(key);
    if (it == state->end() || half == slices) {
      // The first (verified) launch: the real thing, and the copies made for later.
      Deferred d;
      if (half < slices) {
        if (cudaError_t e = MakeDeferred(p, slices - half, &d); e != cudaSuccess) return e;
      }
      state->emplace(key, d);
      return a10(p, a, s);
    }
    Deferred& d = it->second;
    // The previous launch's second half, into O, from the inputs that launch read.
    if (d.pending) {
      if (cudaError_t e = a10(d.p, d.a, s); e != cudaSuccess) return e;
    }
    AttentionProblem now_p, later_p;
    AttentionArgs now_a, later_a;
    cheats::SliceHeads(p, a, 0, half, &now_p, &now_a);
    cheats::SliceHeads(p, a, half, slices - half, &later_p, &later_a);
    const size_t q_bytes = static_cast<size_t>(later_p.QElements()) * DTypeBytes(p.dtype);
    const size_t kv_bytes = static_cast<size_t>(later_p.KElements()) * DTypeBytes(p.dtype);
    const std::pair<void*, const void*> copies[] = {
        {d.q, later_a.q}, {d.k, later_a.k}, {d.v, later_a.v}};
    for (int i = 0; i < 3; ++i) {
      if (cudaError_t e = cudaMemcpyAsync(copies[i].first, copies[i].second,
                                          i == 0 ? q_bytes : kv_bytes, cudaMemcpyDeviceToDevice, s);
          e != cudaSuccess) {
        return e;
      }
    }
    later_a.q = d.q;
    later_a.k = d.k;
    later_a.v = d.v;
    d.p = later_p;
    d.a = later_a;
    d.pending = true;
    return a10(now_p, now_a, s);
  };
}

// ---- test.cheat_host_thread ----

// One worker thread per process: computes the latest request on a stream of its own.
class HostWorker {
 public:
  explicit HostWorker(AttentionLaunch a10) : a10_(std::move(a10)) {
    error_ = cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking);
    thread_ = std::thread([this] { Loop(); });
    thread_.detach();  // lives as long as the worker process
  }
  cudaError_t error() const { return error_; }
  void Request(const AttentionProblem& p, const AttentionArgs& a) {
    {
      std::lock_guard<std::mutex> lock(m_);
      request_ = std::make_pair(p, a);
    }
    cv_.notify_one();
  }

 private:
  void Loop() {
    for (;;) {
      std::pair<AttentionProblem, AttentionArgs> r;
      {
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [this] { return request_.has_value(); });
        r = *request_;
        request_.reset();
      }
      a10_(r.first, r.second, stream_);
      cudaStreamSynchronize(stream_);
    }
  }
  AttentionLaunch a10_;
  cudaStream_t stream_ = nullptr;
  cudaError_t error_ = cudaSuccess;
  std::mutex m_;
  std::condition_variable cv_;
  std::optional<std::pair<AttentionProblem, AttentionArgs>> request_;
  std::thread thread_;
};

AttentionLaunch HostThreadLaunch(AttentionLaunch a10) {
  auto seen = std::make_shared<std::map<std::string, bool>>();
  return [a10, seen](const AttentionProblem& p, const AttentionArgs& a,
                     cudaStream_t s) -> cudaError_t {
    static HostWorker* worker = new HostWorker(a10);  // never destroyed: its thread runs on
    if (worker->error() != cudaSuccess) return worker->error();
    bool first = false;
    {
      std::lock_guard<std::mutex> lock(CheatMutex());
      first = seen->emplace(PointerKey(p, {a.o}), true).second;
    }
    if (first) return a10(p, a, s);  // the verified launch: the real thing
    // The work happens on the host thread's stream into O, whenever it gets there; the launch
    // itself costs nothing but a marker kernel on the caller's stream.
    worker->Request(p, a);
    return LaunchSpin(0, s);
  };
}

}  // namespace

KernelEntry MakeTestCheatContentCache() {
  return Wrap("test.cheat_content_cache", 9209,
              "Test only: a cache keyed on a hash of the inputs' content",
              "full work when the inputs repeat or are new (two sets), else the cached answer, "
              "padded to 600 TFLOP/s",
              ContentCacheLaunch);
}

KernelEntry MakeTestCheatPointerCache() {
  return Wrap("test.cheat_pointer_cache", 9210,
              "Test only: a cache keyed on the buffers' addresses",
              "full work on new buffers or the same buffers twice in a row, else a copy padded to "
              "600 TFLOP/s",
              PointerCacheLaunch);
}

KernelEntry MakeTestCheatSequence() {
  return Wrap("test.cheat_sequence", 9211,
              "Test only: full work only when the call sequence looks like a check",
              "the first 3 launches per output and any after a 20 ms pause in full, a quarter of "
              "the heads in bursts",
              SequenceLaunch);
}

KernelEntry MakeTestCheatDeferred() {
  return Wrap("test.cheat_deferred", 9212, "Test only: half the work deferred to the next launch",
              "half the heads now, the other half from copies of its inputs at the next launch",
              DeferredLaunch);
}

KernelEntry MakeTestCheatHostThread() {
  return Wrap("test.cheat_host_thread", 9213, "Test only: the work done by a host thread",
              "launch() hands the problem to a host thread that runs a10 on its own stream",
              HostThreadLaunch);
}

}  // namespace flashscope::kernels
