#include "kernels/testing/test_kernel_list.h"

namespace flashscope::kernels {

std::vector<KernelEntry> TestKernels() {
  std::vector<KernelEntry> v = {MakeTestOobWrite(),
                                MakeTestInfiniteLoop(),
                                MakeTestNanOutput(),
                                MakeTestHalfOutput(),
                                MakeTestA10Slow3(),
                                MakeTestA10Slow5(),
                                MakeTestA10Slow10(),
                                MakeTestCheatCacheOutput(),
                                MakeTestCheatCacheInputs(),
                                MakeTestCheatWhenPoisoned(),
                                MakeTestCheatFirstFull(),
                                MakeTestCheatSideStream(),
                                MakeTestCheatSideStreamAsync(),
                                MakeTestCheatFp16Accum(),
                                MakeTestCheatHostCopy()};
  SortInLadderOrder(&v);
  return v;
}

}  // namespace flashscope::kernels
