// HostBuffer: pinned where the CUDA runtime gives pinned memory, pageable otherwise (this test
// runs in CI, which has no device: there it checks the fallback), reused when the size stays.
#include "verify/host_buffer.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstring>
#include <utility>

namespace flashscope::verify {
namespace {

TEST(HostBuffer, HoldsTheBytesAskedForAndSaysWhetherPinned) {
  HostBuffer b;
  ASSERT_TRUE(b.Allocate(3 << 20, "a test buffer").ok());
  ASSERT_NE(b.data(), nullptr);
  EXPECT_EQ(b.bytes(), size_t{3} << 20);
  EXPECT_EQ(b.floats().size(), (size_t{3} << 20) / 4);
  std::memset(b.data(), 0x5A, b.bytes());  // all of it is writable
  EXPECT_EQ(static_cast<unsigned char*>(b.data())[b.bytes() - 1], 0x5A);
  cudaPointerAttributes attributes{};
  const bool runtime_knows_it = cudaPointerGetAttributes(&attributes, b.data()) == cudaSuccess &&
                                attributes.type == cudaMemoryTypeHost;
  cudaGetLastError();
  EXPECT_EQ(b.pinned(), runtime_knows_it);
}

// What verification compares with must be out of a kernel's reach: never pinned, never known to
// the CUDA runtime (on a GPU machine too, where kPinned would pin).
TEST(HostBuffer, PageableIsNeverPinnedNorDeviceAddressable) {
  HostBuffer b;
  ASSERT_TRUE(b.Allocate(1 << 20, "a reference copy", Pinning::kPageable).ok());
  ASSERT_NE(b.data(), nullptr);
  EXPECT_FALSE(b.pinned());
  cudaPointerAttributes attributes{};
  const bool known = cudaPointerGetAttributes(&attributes, b.data()) == cudaSuccess &&
                     attributes.type != cudaMemoryTypeUnregistered;
  cudaGetLastError();
  EXPECT_FALSE(known);
  // The same size asked pinned is a new allocation (or the pageable fallback), not this one kept.
  ASSERT_TRUE(b.Allocate(1 << 20, "x", Pinning::kPinned).ok());
  cudaPointerAttributes again{};
  const bool runtime_knows_it =
      cudaPointerGetAttributes(&again, b.data()) == cudaSuccess && again.type == cudaMemoryTypeHost;
  cudaGetLastError();
  EXPECT_EQ(b.pinned(), runtime_knows_it);
}

TEST(HostBuffer, SameSizeKeepsTheAllocationAndAnotherSizeReplacesIt) {
  HostBuffer b;
  ASSERT_TRUE(b.Allocate(4096, "x").ok());
  void* first = b.data();
  std::memset(first, 7, 4096);
  ASSERT_TRUE(b.Allocate(4096, "x").ok());
  EXPECT_EQ(b.data(), first);
  EXPECT_EQ(static_cast<unsigned char*>(b.data())[100], 7);
  ASSERT_TRUE(b.Allocate(8192, "x").ok());
  EXPECT_EQ(b.bytes(), 8192u);
  ASSERT_TRUE(b.Allocate(0, "x").ok());
  EXPECT_EQ(b.data(), nullptr);
  EXPECT_EQ(b.bytes(), 0u);
  EXPECT_TRUE(b.floats().empty());
}

TEST(HostBuffer, MovesOwnership) {
  HostBuffer a;
  ASSERT_TRUE(a.Allocate(1024, "x").ok());
  void* p = a.data();
  const bool pinned = a.pinned();
  HostBuffer b(std::move(a));
  EXPECT_EQ(a.data(), nullptr);
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(b.pinned(), pinned);
  HostBuffer c;
  c = std::move(b);
  EXPECT_EQ(c.data(), p);
  EXPECT_EQ(c.bytes(), 1024u);
}

}  // namespace
}  // namespace flashscope::verify
