// The test-only kernels (deliberately faulty, slowed by a known fraction, cheating): the subjects
// of flashscope's own tests. They are not part of the production kernels: they form the test
// plugin `fs_test_kernels` (testing/test_plugin.cc), which suites/testing/*.json and the GPU tests
// load. (The demo suite's planted-bug kernels are the installed demo plugin, kernels/demo/.)
#pragma once

#include "kernels/registry.h"

namespace flashscope::kernels {

KernelEntry MakeTestOobWrite();  // testing/faulty_kernels.cu
KernelEntry MakeTestInfiniteLoop();
KernelEntry MakeTestNanOutput();
KernelEntry MakeTestHalfOutput();
KernelEntry MakeTestA10Slow3();  // testing/slowdown_kernels.cu: a10 + 3/5/10 % (gate quality)
KernelEntry MakeTestA10Slow5();
KernelEntry MakeTestA10Slow10();
// testing/cheat_kernels.cu: a10 with one cheat each, for the trust checks (docs/trust.md)
KernelEntry MakeTestCheatCacheOutput();
KernelEntry MakeTestCheatCacheInputs();
KernelEntry MakeTestCheatWhenPoisoned();
KernelEntry MakeTestCheatFirstFull();
KernelEntry MakeTestCheatSideStream();
KernelEntry MakeTestCheatSideStreamAsync();
KernelEntry MakeTestCheatFp16Accum();
KernelEntry MakeTestCheatHostCopy();
// testing/cheat_kernels_cache.cu: caches and guesses at which launches are checked
KernelEntry MakeTestCheatContentCache();
KernelEntry MakeTestCheatPointerCache();
KernelEntry MakeTestCheatSequence();
KernelEntry MakeTestCheatDeferred();
KernelEntry MakeTestCheatHostThread();
// testing/cheat_kernels_state.cu: state left behind, writes where a kernel must not, corners cut
KernelEntry MakeTestCheatL2Persist();
KernelEntry MakeTestCheatWriteInputs();
KernelEntry MakeTestCheatWriteReference();
KernelEntry MakeTestCheatOobWrite();
KernelEntry MakeTestCheatPartialFp16();
KernelEntry MakeTestCheatTinyZero();
// a10 unchanged as test.honest_after_<cheat>, each with its cheat's revision: listed after the
// cheats, the ladder order's stable sort runs each right after its cheat.
std::vector<KernelEntry> MakeTestHonestAfterCheats();

// All of them, in ladder order.
std::vector<KernelEntry> TestKernels();

}  // namespace flashscope::kernels
