// The sizes of the buffers a kernel is given for a problem, and how many copies of them (buffer
// slots) a workspace keeps for the trust checks' rotation (docs/trust.md, "rotated buffers"):
// before every launch the harness draws which slot the launch reads and writes, so that a cache
// keyed on buffer addresses sees address sets recur in an order it cannot predict. The extra slots
// are optional: they are kept only within a budget of the device memory free, else the workspace
// keeps one slot and says why. Host code, no CUDA: tested without a GPU.
#pragma once

#include <cstdint>
#include <string>

#include "common/problem.h"

namespace flashscope::verify {

struct BufferSizes {
  int64_t input_bytes[3] = {0, 0, 0};  // q, k, v (attention) or a, b (gemm)
  int64_t output_elements = 0;
  int64_t output_bytes = 0;  // O in AttentionOutputDType (attention), C in fp32 (gemm)
  int64_t lse_elements = 0;  // 0 unless the problem asks for the lse
  // Device bytes of one slot: its inputs, output and lse.
  int64_t SlotBytes() const {
    return input_bytes[0] + input_bytes[1] + input_bytes[2] + output_bytes + 4 * lse_elements;
  }
};

BufferSizes BufferSizesOf(const Problem& p);

// Share of the device memory free before the workspace is made that its slots may fill: the
// other half stays for what the kernel allocates itself (library workspaces, a framework's
// caching allocator, a plugin's own buffers), the L2 flush buffer and the checks' buffers.
inline constexpr double kSlotBudgetFraction = 0.5;

struct SlotPlan {
  int slots = 1;
  std::string note;  // how many slots and why, for the trust record
};

// The most slots, at most `wanted` and at least 1, such that `base_bytes` (what the workspace
// needs with one slot: that slot, the reference and the transient buffers) plus the extra slots
// stay within kSlotBudgetFraction of `free_bytes`. The note names the sizes when fewer than
// `wanted` fit.
SlotPlan PlanSlots(int wanted, int64_t slot_bytes, int64_t base_bytes, int64_t free_bytes);

}  // namespace flashscope::verify
