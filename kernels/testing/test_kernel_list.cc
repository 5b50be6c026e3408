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
                                MakeTestCheatHostCopy(),
                                MakeTestCheatContentCache(),
                                MakeTestCheatPointerCache(),
                                MakeTestCheatSequence(),
                                MakeTestCheatDeferred(),
                                MakeTestCheatHostThread(),
                                MakeTestCheatL2Persist(),
                                MakeTestCheatWriteInputs(),
                                MakeTestCheatWriteReference(),
                                MakeTestCheatOobWrite(),
                                MakeTestCheatPartialFp16(),
                                MakeTestCheatTinyZero()};
  // After every cheat, so that the stable sort puts each right after the cheat of its revision.
  for (KernelEntry& e : MakeTestHonestAfterCheats()) v.push_back(std::move(e));
  SortInLadderOrder(&v);
  return v;
}

}  // namespace flashscope::kernels
