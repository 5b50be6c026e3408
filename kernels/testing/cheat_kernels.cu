// Cheating attention_fwd kernels (test_only = true): the subjects of flashscope's trust checks
// (issue 13, docs/trust.md). Each one is attn.a10_fa2, an honest and verified rung, plus one cheat
// that public kernel leaderboards have seen, so that its first, poisoned launch passes
// verification exactly as a10's does and only the trust checks can tell it apart:
//   test.cheat_cache_output      the first launch per output buffer computes and keeps a copy of
//                                the result; later launches copy the copy back (no attention)
//   test.cheat_cache_inputs      the same cache keyed on every buffer, inputs and output
//   test.cheat_when_poisoned     a block computes only while its output holds the poison pattern
//   test.cheat_first_full        full work on the first launch per output buffer, a quarter of
//                                the heads on every later launch
//   test.cheat_side_stream       a10 on a private stream, joined back to the caller's stream
//   test.cheat_side_stream_async a10 on a private stream, never joined: the stop event misses it
//   test.cheat_fp16_accum        S = Q·Kᵀ accumulated in fp16 registers (fp16 inputs only)
//   test.cheat_host_copy         the first launch copies the result to the host (a synchronous
//                                cudaMemcpy inside launch); later launches copy it back the same
//                                way
// Buffers a cheat allocates live as long as the process (a worker ends with its run).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kernels/testing/cheat_common.h"
#include "kernels/testing/test_kernel_list.h"

namespace flashscope::kernels {
namespace {

using cheats::CopyOutputs;
using cheats::OutputsOf;
using cheats::OutputSpan;
using cheats::PointerKey;
using cheats::Wrap;

// A device copy of one launch's outputs.
struct DeviceCopy {
  void* o = nullptr;
  void* lse = nullptr;
};

// The result cache of test.cheat_cache_output / _inputs: keyed on the output buffer alone, or on
// all buffers. A cache keyed on the output cannot tell two input sets apart.
AttentionLaunch CachedLaunch(AttentionLaunch a10, bool key_on_inputs) {
  auto cache = std::make_shared<std::map<std::string, DeviceCopy>>();
  return [a10, key_on_inputs, cache](const AttentionProblem& p, const AttentionArgs& a,
                                     cudaStream_t s) -> cudaError_t {
    std::lock_guard<std::mutex> lock(cheats::CheatMutex());
    const std::string key =
        key_on_inputs ? PointerKey(p, {a.q, a.k, a.v, a.o, a.lse}) : PointerKey(p, {a.o, a.lse});
    const OutputSpan span = OutputsOf(p);
    auto it = cache->find(key);
    if (it != cache->end()) {
      if (cudaError_t e = CopyOutputs(a.o, a.lse, it->second.o, it->second.lse, span, s);
          e != cudaSuccess) {
        return e;
      }
      return cudaGetLastError();
    }
    if (cudaError_t e = a10(p, a, s); e != cudaSuccess) return e;
    DeviceCopy copy;
    if (cudaError_t e = cudaMalloc(&copy.o, span.o_bytes); e != cudaSuccess) return e;
    if (span.lse_bytes > 0) {
      if (cudaError_t e = cudaMalloc(&copy.lse, span.lse_bytes); e != cudaSuccess) return e;
    }
    if (cudaError_t e = CopyOutputs(copy.o, copy.lse, a.o, a.lse, span, s); e != cudaSuccess) {
      return e;
    }
    cache->emplace(key, copy);
    return cudaGetLastError();
  };
}

// test.cheat_first_full: the grid covers a quarter of the (batch, head) slices after the first
// launch per output buffer; the rest keep whatever the output held.
AttentionLaunch FirstFullLaunch(AttentionLaunch a10) {
  auto seen = std::make_shared<std::map<std::string, bool>>();
  return [a10, seen](const AttentionProblem& p, const AttentionArgs& a,
                     cudaStream_t s) -> cudaError_t {
    std::lock_guard<std::mutex> lock(cheats::CheatMutex());
    const std::string key = PointerKey(p, {a.o});
    if (seen->emplace(key, true).second) return a10(p, a, s);
    AttentionProblem partial = p;
    partial.batch = 1;
    partial.heads = std::max<int64_t>(1, p.batch * p.heads / 4);
    return a10(partial, a, s);
  };
}

// A private stream and two events, created once per process.
struct SideStream {
  cudaStream_t stream = nullptr;
  cudaEvent_t fork = nullptr;
  cudaEvent_t join = nullptr;
  cudaError_t error = cudaSuccess;
};

const SideStream& TheSideStream() {
  static const SideStream side = [] {
    SideStream s;
    s.error = cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking);
    if (s.error == cudaSuccess) s.error = cudaEventCreateWithFlags(&s.fork, cudaEventDisableTiming);
    if (s.error == cudaSuccess) s.error = cudaEventCreateWithFlags(&s.join, cudaEventDisableTiming);
    return s;
  }();
  return side;
}

// test.cheat_side_stream(_async): a10 runs on the private stream after the caller's stream has
// reached the launch; joined back with an event, or left running past the caller's stop event.
AttentionLaunch SideStreamLaunch(AttentionLaunch a10, bool join) {
  return [a10, join](const AttentionProblem& p, const AttentionArgs& a,
                     cudaStream_t s) -> cudaError_t {
    std::lock_guard<std::mutex> lock(cheats::CheatMutex());
    const SideStream& side = TheSideStream();
    if (side.error != cudaSuccess) return side.error;
    if (cudaError_t e = cudaEventRecord(side.fork, s); e != cudaSuccess) return e;
    if (cudaError_t e = cudaStreamWaitEvent(side.stream, side.fork, 0); e != cudaSuccess) return e;
    if (cudaError_t e = a10(p, a, side.stream); e != cudaSuccess) return e;
    if (!join) return cudaSuccess;
    if (cudaError_t e = cudaEventRecord(side.join, side.stream); e != cudaSuccess) return e;
    return cudaStreamWaitEvent(s, side.join, 0);
  };
}

// test.cheat_host_copy: the result lives on the host between launches; both copies are the
// synchronous cudaMemcpy, which runs on the legacy default stream and blocks the host inside
// launch().
AttentionLaunch HostCopyLaunch(AttentionLaunch a10) {
  auto cache = std::make_shared<std::map<std::string, std::vector<unsigned char>>>();
  return [a10, cache](const AttentionProblem& p, const AttentionArgs& a,
                      cudaStream_t s) -> cudaError_t {
    std::lock_guard<std::mutex> lock(cheats::CheatMutex());
    const std::string key = PointerKey(p, {a.o, a.lse});
    const OutputSpan span = OutputsOf(p);
    auto it = cache->find(key);
    if (it == cache->end()) {
      if (cudaError_t e = a10(p, a, s); e != cudaSuccess) return e;
      if (cudaError_t e = cudaStreamSynchronize(s); e != cudaSuccess) return e;
      std::vector<unsigned char> host(span.o_bytes + span.lse_bytes);
      if (cudaError_t e = cudaMemcpy(host.data(), a.o, span.o_bytes, cudaMemcpyDeviceToHost);
          e != cudaSuccess) {
        return e;
      }
      if (span.lse_bytes > 0) {
        if (cudaError_t e = cudaMemcpy(host.data() + span.o_bytes, a.lse, span.lse_bytes,
                                       cudaMemcpyDeviceToHost);
            e != cudaSuccess) {
          return e;
        }
      }
      cache->emplace(key, std::move(host));
      return cudaSuccess;
    }
    const std::vector<unsigned char>& host = it->second;
    if (cudaError_t e = cudaMemcpy(a.o, host.data(), span.o_bytes, cudaMemcpyHostToDevice);
        e != cudaSuccess) {
      return e;
    }
    if (span.lse_bytes == 0) return cudaSuccess;
    return cudaMemcpy(a.lse, host.data() + span.o_bytes, span.lse_bytes, cudaMemcpyHostToDevice);
  };
}

// a10's kernel with extra feature bits (attn_mma_softmax.cuh's kTest… bits).
template <unsigned kExtra>
KernelEntry Variant(std::string id, int revision, std::string title, std::string changed) {
  KernelInfo info;
  info.id = std::move(id);
  info.revision = revision;
  info.title = std::move(title);
  info.changed = std::move(changed);
  info.test_only = true;
  return attn_mma::MakeEntry<a10::kFeatures | kExtra, a10::TileD64, a10::TileD128>(std::move(info));
}

}  // namespace

namespace cheats {

std::mutex& CheatMutex() {
  static std::mutex m;
  return m;
}

OutputSpan OutputsOf(const AttentionProblem& p) {
  OutputSpan s;
  s.o_bytes = static_cast<size_t>(p.QElements()) * DTypeBytes(p.dtype);
  s.lse_bytes = p.want_lse ? static_cast<size_t>(p.LseElements()) * sizeof(float) : 0;
  return s;
}

std::string PointerKey(const AttentionProblem& p, std::initializer_list<const void*> ptrs) {
  std::string key = ProblemKey(p);
  for (const void* ptr : ptrs) key += " " + std::to_string(reinterpret_cast<uintptr_t>(ptr));
  return key;
}

cudaError_t CopyOutputs(void* o_dst, void* lse_dst, const void* o_src, const void* lse_src,
                        const OutputSpan& span, cudaStream_t s) {
  cudaError_t e = cudaMemcpyAsync(o_dst, o_src, span.o_bytes, cudaMemcpyDeviceToDevice, s);
  if (e == cudaSuccess && span.lse_bytes > 0) {
    e = cudaMemcpyAsync(lse_dst, lse_src, span.lse_bytes, cudaMemcpyDeviceToDevice, s);
  }
  return e;
}

KernelEntry Wrap(std::string id, int revision, std::string title, std::string changed,
                 AttentionLaunch (*cheat)(AttentionLaunch)) {
  KernelEntry e = MakeA10Fa2();
  e.info.id = std::move(id);
  e.info.revision = revision;
  e.info.title = std::move(title);
  e.info.changed = std::move(changed);
  e.info.test_only = true;
  e.attention_launch = cheat(e.attention_launch);
  return e;
}

void SliceHeads(const AttentionProblem& p, const AttentionArgs& a, int64_t first, int64_t count,
                AttentionProblem* slice_p, AttentionArgs* slice_a) {
  *slice_p = p;
  slice_p->batch = 1;
  slice_p->heads = count;
  const size_t esize = DTypeBytes(p.dtype);
  const auto q_off = static_cast<size_t>(first * p.seq_q * p.head_dim) * esize;
  const auto kv_off = static_cast<size_t>(first * p.seq_k * p.head_dim) * esize;
  *slice_a = a;
  slice_a->q = static_cast<const unsigned char*>(a.q) + q_off;
  slice_a->k = static_cast<const unsigned char*>(a.k) + kv_off;
  slice_a->v = static_cast<const unsigned char*>(a.v) + kv_off;
  slice_a->o = static_cast<unsigned char*>(a.o) + q_off;
  slice_a->lse = a.lse == nullptr ? nullptr : a.lse + first * p.seq_q;
}

}  // namespace cheats

KernelEntry MakeTestCheatCacheOutput() {
  return Wrap("test.cheat_cache_output", 9201, "Test only: a10 once per output buffer, then a copy",
              "result cache keyed on the output buffer: later launches copy the first result back",
              [](AttentionLaunch a10) { return CachedLaunch(a10, /*key_on_inputs=*/false); });
}

KernelEntry MakeTestCheatCacheInputs() {
  return Wrap("test.cheat_cache_inputs", 9202,
              "Test only: a10 once per set of buffers, then a copy",
              "result cache keyed on every buffer: later launches copy the result for those inputs",
              [](AttentionLaunch a10) { return CachedLaunch(a10, /*key_on_inputs=*/true); });
}

KernelEntry MakeTestCheatWhenPoisoned() {
  return Variant<attn_mma::kTestSkipUnlessPoisoned>(
      "test.cheat_when_poisoned", 9203, "Test only: a10 that works only on a poisoned output",
      "each block returns at once unless its first output element holds the poison pattern");
}

KernelEntry MakeTestCheatFirstFull() {
  return Wrap("test.cheat_first_full", 9204, "Test only: a10 in full once, then a quarter of it",
              "full work on the first launch per output buffer, a quarter of the heads after",
              FirstFullLaunch);
}

KernelEntry MakeTestCheatSideStream() {
  return Wrap("test.cheat_side_stream", 9205, "Test only: a10 on a private stream, joined back",
              "all work on a stream of its own, ordered with the caller's stream by two events",
              [](AttentionLaunch a10) { return SideStreamLaunch(a10, /*join=*/true); });
}

KernelEntry MakeTestCheatSideStreamAsync() {
  return Wrap("test.cheat_side_stream_async", 9206,
              "Test only: a10 on a private stream, never joined",
              "all work on a stream of its own that the caller's stop event does not wait for",
              [](AttentionLaunch a10) { return SideStreamLaunch(a10, /*join=*/false); });
}

KernelEntry MakeTestCheatFp16Accum() {
  KernelEntry e = Variant<attn_mma::kTestF16AccumS>(
      "test.cheat_fp16_accum", 9207, "Test only: a10 with S accumulated in fp16",
      "Q·Kᵀ on mma.sync with an fp16 accumulator (the contract is fp32 accumulation)");
  const AttentionSupports a10_supports = e.attention_supports;
  e.attention_supports = [a10_supports](const AttentionProblem& p) -> std::string {
    if (p.dtype != DType::kF16) return "fp16 inputs only (mma.sync accumulates fp16 from fp16)";
    return a10_supports(p);
  };
  return e;
}

KernelEntry MakeTestCheatHostCopy() {
  return Wrap("test.cheat_host_copy", 9208, "Test only: a10 once, then a copy from the host",
              "the result kept on the host; launch copies it back with a synchronous cudaMemcpy",
              HostCopyLaunch);
}

}  // namespace flashscope::kernels
