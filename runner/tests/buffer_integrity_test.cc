// What the integrity check watches in a workspace with rotated buffer slots
// (runner/buffer_integrity.h, WorkspaceBuffers): every slot's inputs by content and guards, every
// slot's outputs by their guards, and the reference — so that a launch given one slot cannot
// write into another slot's inputs unseen. Host code: pointers here are never dereferenced.
#include "runner/buffer_integrity.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace flashscope::runner {
namespace {

using Watch = BufferIntegrity::Watch;

// Distinct fake addresses, one per buffer.
const void* Fake(uintptr_t n) { return reinterpret_cast<const void*>(0x100000 * n); }

fs_buffers AttentionSlot(uintptr_t base, bool lse) {
  fs_buffers b{};
  b.attention.q = Fake(base + 1);
  b.attention.k = Fake(base + 2);
  b.attention.v = Fake(base + 3);
  b.attention.o = const_cast<void*>(Fake(base + 4));
  b.attention.lse = lse ? static_cast<float*>(const_cast<void*>(Fake(base + 5))) : nullptr;
  return b;
}

std::map<const void*, WatchedBuffer> ByPointer(const std::vector<WatchedBuffer>& list) {
  std::map<const void*, WatchedBuffer> out;
  for (const WatchedBuffer& w : list) EXPECT_TRUE(out.emplace(w.ptr, w).second) << w.name;
  return out;
}

TEST(WorkspaceBuffers, EverySlotOfAttentionIsWatched) {
  AttentionProblem a = AttentionShape(1, 2, 64, 128, 32, DType::kF16);
  a.want_lse = true;
  const std::vector<fs_buffers> slots = {AttentionSlot(0, true), AttentionSlot(10, true)};
  const std::vector<WatchedBuffer> list = WorkspaceBuffers(a, slots, Fake(99), 4096);
  ASSERT_EQ(list.size(), 11u);  // 2 x (q, k, v, o, lse) + the reference
  const std::map<const void*, WatchedBuffer> by = ByPointer(list);
  std::set<std::string> names;
  for (const WatchedBuffer& w : list) names.insert(w.name);
  EXPECT_EQ(names.size(), list.size()) << "each buffer named apart in the evidence";
  for (uintptr_t base : {0, 10}) {
    const std::string slot = base == 0 ? " (slot 0)" : " (slot 1)";
    for (uintptr_t i : {1, 2, 3}) {
      const WatchedBuffer& w = by.at(Fake(base + i));
      EXPECT_EQ(w.watch, Watch::kContentAndGuards) << w.name;
      EXPECT_NE(w.name.find(slot), std::string::npos) << w.name;
    }
    EXPECT_EQ(by.at(Fake(base + 1)).bytes, 1u * 2 * 64 * 32 * 2);
    EXPECT_EQ(by.at(Fake(base + 2)).bytes, 1u * 2 * 128 * 32 * 2);
    EXPECT_EQ(by.at(Fake(base + 4)).watch, Watch::kGuardsOnly);
    EXPECT_EQ(by.at(Fake(base + 4)).name, "output o" + slot);
    EXPECT_EQ(by.at(Fake(base + 5)).watch, Watch::kGuardsOnly);
    EXPECT_EQ(by.at(Fake(base + 5)).bytes, 1u * 2 * 64 * 4);
  }
  EXPECT_EQ(by.at(Fake(99)).name, "reference");
  EXPECT_EQ(by.at(Fake(99)).bytes, 4096u);
  EXPECT_EQ(by.at(Fake(99)).watch, Watch::kContentAndGuards);
}

TEST(WorkspaceBuffers, GemmSlotsAndNoLseWhenNotAskedFor) {
  const GemmProblem g{16, 8, 4, DType::kBF16};
  std::vector<fs_buffers> slots(3);
  for (uintptr_t s = 0; s < 3; ++s) {
    slots[s].gemm.a = Fake(10 * s + 1);
    slots[s].gemm.b = Fake(10 * s + 2);
    slots[s].gemm.c = static_cast<float*>(const_cast<void*>(Fake(10 * s + 3)));
  }
  const std::map<const void*, WatchedBuffer> by =
      ByPointer(WorkspaceBuffers(g, slots, Fake(99), 512));
  EXPECT_EQ(by.size(), 3u * 3 + 1);
  EXPECT_EQ(by.at(Fake(21)).name, "input a (slot 2)");
  EXPECT_EQ(by.at(Fake(23)).bytes, 16u * 8 * 4);  // c in fp32
  EXPECT_EQ(by.at(Fake(23)).watch, Watch::kGuardsOnly);

  const AttentionProblem a = AttentionShape(1, 1, 16, 16, 16, DType::kBF16);
  const std::vector<WatchedBuffer> no_lse =
      WorkspaceBuffers(a, {AttentionSlot(0, false), AttentionSlot(10, false)}, Fake(99), 64);
  EXPECT_EQ(no_lse.size(), 2u * 4 + 1);
}

}  // namespace
}  // namespace flashscope::runner
