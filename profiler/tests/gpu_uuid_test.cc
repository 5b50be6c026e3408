// A GPU's UUID as nvidia-smi prints it and CUDA_VISIBLE_DEVICES takes it (docs/devices.md): the
// runtime's 16 bytes in order, in hex, grouped 8-4-4-4-12. No GPU needed.
#include <gtest/gtest.h>

#include "profiler/device_info.h"

namespace flashscope::profiler {
namespace {

TEST(GpuUuid, FormatsTheBytesAsNvidiaSmiDoes) {
  const unsigned char bytes[16] = {0x89, 0x32, 0xf9, 0x37, 0xd7, 0x2c, 0x41, 0x06,
                                   0xc1, 0x2f, 0x20, 0xbd, 0x9f, 0xae, 0xd9, 0xf6};
  EXPECT_EQ(FormatGpuUuid(bytes), "GPU-8932f937-d72c-4106-c12f-20bd9faed9f6");
  const unsigned char zeros[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  EXPECT_EQ(FormatGpuUuid(zeros), "GPU-00000000-0000-0000-0000-000000000001");
}

}  // namespace
}  // namespace flashscope::profiler
