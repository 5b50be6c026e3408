// What the cheating kernels (cheat_kernels.cu, cheat_kernels_cache.cu, cheat_kernels_state.cu)
// share: each is attn.a10_fa2, an honest and verified rung, plus one cheat (docs/trust.md's
// exploit table), so that only the trust checks can tell it apart.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <initializer_list>
#include <mutex>
#include <string>

#include "kernels/attention/a10_fa2.cuh"
#include "kernels/kernel_list.h"
#include "kernels/registry.h"

namespace flashscope::kernels::cheats {

// Guards every cheat's own state; launches may come from any one thread at a time.
std::mutex& CheatMutex();

// The bytes a launch writes: O in the problem's dtype, then the fp32 log-sum-exp if asked for.
struct OutputSpan {
  size_t o_bytes = 0;
  size_t lse_bytes = 0;
};
OutputSpan OutputsOf(const AttentionProblem& p);

// The problem and the addresses of `ptrs`, as one map key.
std::string PointerKey(const AttentionProblem& p, std::initializer_list<const void*> ptrs);

// Device copies of O (and the lse) on `s`.
cudaError_t CopyOutputs(void* o_dst, void* lse_dst, const void* o_src, const void* lse_src,
                        const OutputSpan& span, cudaStream_t s);

// a10 as a test-only kernel `id` whose launch is `cheat(a10's launch)`.
KernelEntry Wrap(std::string id, int revision, std::string title, std::string changed,
                 AttentionLaunch (*cheat)(AttentionLaunch));

// The (batch, head) slices [first, first + count) of `p` as a problem of their own with the
// pointers of `a` moved to them (the layout is [B, H, S, D]; the lse [B, H, Sq]).
void SliceHeads(const AttentionProblem& p, const AttentionArgs& a, int64_t first, int64_t count,
                AttentionProblem* slice_p, AttentionArgs* slice_a);

}  // namespace flashscope::kernels::cheats
