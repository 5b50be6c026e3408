// DeviceScratch (kernels/device_scratch.h), the growing device block of split-KV, g11 and the
// peers: nothing until asked, the floor on the first allocation, no growth for smaller requests,
// growth that leaves a usable block, and on a machine with two or more GPUs a block per device
// that a switch neither reuses nor loses. Runs on the device only (label gpu).
#include "kernels/device_scratch.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "common/tests/cuda_assert.h"

namespace flashscope::kernels {
namespace {

// Writes `bytes` of `value` into the block and reads them back: the block really is that large.
void ExpectUsable(void* block, size_t bytes, unsigned char value) {
  ASSERT_NE(block, nullptr);
  ASSERT_CUDA(cudaMemset(block, value, bytes));
  std::vector<unsigned char> back(bytes);
  ASSERT_CUDA(cudaMemcpy(back.data(), block, bytes, cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < bytes; i += 4093) ASSERT_EQ(back[i], value) << "byte " << i;
  ASSERT_EQ(back[bytes - 1], value);
}

TEST(DeviceScratch, GrowsOnlyWhenAskedForMore) {
  ASSERT_CUDA(cudaSetDevice(0));
  DeviceScratch scratch("the test's scratch", 1 << 20);
  void* none = reinterpret_cast<void*>(1);
  ASSERT_CUDA(scratch.Get(0, &none));
  EXPECT_EQ(none, nullptr) << "nothing is allocated before a byte is asked for";
  void* first = nullptr;
  ASSERT_CUDA(scratch.Get(100, &first));
  ExpectUsable(first, 1 << 20, 0x5a);  // the floor, not the 100 bytes asked
  void* same = nullptr;
  ASSERT_CUDA(scratch.Get((1 << 20) - 1, &same));
  EXPECT_EQ(same, first) << "a request within the block must not grow it";
  void* grown = nullptr;
  ASSERT_CUDA(scratch.Get(3 << 20, &grown));
  ExpectUsable(grown, 3 << 20, 0xa5);
  void* again = nullptr;
  ASSERT_CUDA(scratch.Get(1 << 20, &again));
  EXPECT_EQ(again, grown);
}

TEST(DeviceScratch, KeepsOneBlockPerDevice) {
  int devices = 0;
  ASSERT_CUDA(cudaGetDeviceCount(&devices));
  DeviceScratch scratch("the test's per-device scratch", 0);
  std::vector<void*> blocks;
  // Every device gets its own block; coming back to a device finds its block unchanged. (One
  // GPU: the first device's block, asked for twice.)
  for (int d = 0; d < devices; ++d) {
    ASSERT_CUDA(cudaSetDevice(d));
    void* b = nullptr;
    ASSERT_CUDA(scratch.Get(4096, &b));
    ExpectUsable(b, 4096, static_cast<unsigned char>(d + 1));
    blocks.push_back(b);
  }
  for (int d = 0; d < devices; ++d) {
    ASSERT_CUDA(cudaSetDevice(d));
    void* b = nullptr;
    ASSERT_CUDA(scratch.Get(4096, &b));
    EXPECT_EQ(b, blocks[d]) << "device " << d << "'s block was lost after a switch";
    cudaPointerAttributes attr{};
    ASSERT_CUDA(cudaPointerGetAttributes(&attr, b));
    EXPECT_EQ(attr.device, d) << "device " << d << " was handed another device's block";
  }
  ASSERT_CUDA(cudaSetDevice(0));
}

}  // namespace
}  // namespace flashscope::kernels
