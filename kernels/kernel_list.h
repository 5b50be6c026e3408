// The explicit list of built-in kernel makers; each revision file defines one `Make…()`.
// Add a line here (declaration and list entry) when adding a revision. Test-only kernels are not
// here: they are the test plugin's (kernels/testing/test_kernel_list.h).
#pragma once

#include "kernels/registry.h"

namespace flashscope::kernels {

using KernelMaker = KernelEntry (*)();

// --- attention_fwd ladder ---
KernelEntry MakeA01Scalar();
KernelEntry MakeA02SmemTiled();
KernelEntry MakeA03Wmma();
KernelEntry MakeA04Vectorized();
KernelEntry MakeA05MmaLdmatrix();
KernelEntry MakeA06InregSoftmax();
KernelEntry MakeA07DirectRescale();
KernelEntry MakeA08CpAsync();
KernelEntry MakeA09Swizzle();
KernelEntry MakeA10Fa2();
KernelEntry MakeA11Fa4CondRescale();
KernelEntry MakeA11Fa4PolyExp();
KernelEntry MakeA11Fa4Softmax();
#ifdef FLASHSCOPE_HAVE_SM90A
KernelEntry MakeA12WgmmaTma();  // kernels/hopper/: compiled for sm_90a only
KernelEntry MakeA13WarpSpecialized();
KernelEntry MakeA14Pingpong();
KernelEntry MakeA15IntraOverlap();
KernelEntry MakeA16Fa4CondRescale();
KernelEntry MakeA16Fa4PolyExp();
KernelEntry MakeA16Fa4Softmax();
KernelEntry MakeA17PerDimSchedule();
KernelEntry MakeA18Persistent();
KernelEntry MakeA19SplitKv();
KernelEntry MakeA20DynamicSchedule();
KernelEntry MakeA21ShortTiles();
KernelEntry MakeA22PolyExp64();
KernelEntry MakeA24Prefetch128();
KernelEntry MakeA26TrimWarpgroups();
KernelEntry MakeA27Fp8();
KernelEntry MakeA28Fp8Overlap();
KernelEntry MakeA29Fp8SplitKv();
#endif
// --- gemm ladder ---
KernelEntry MakeG01Naive();
KernelEntry MakeG02SmemTiled();
KernelEntry MakeG03RegisterTiled();
KernelEntry MakeG04Mma();
#ifdef FLASHSCOPE_HAVE_SM90A
KernelEntry MakeG05Wgmma();  // kernels/hopper/: compiled for sm_90a only
KernelEntry MakeG06TmaWs();
KernelEntry MakeG07SplitTail();
KernelEntry MakeG08SharedA();
KernelEntry MakeG09TallTiles();
KernelEntry MakeG10RowBands();
KernelEntry MakeG11PaddedOperands();
KernelEntry MakeG12StagedC();
#endif
// --- peers ---
KernelEntry MakeCublasGemm();
KernelEntry MakeCublasUnfused();
#ifdef FLASHSCOPE_HAVE_CUDNN
KernelEntry MakeCudnnSdpa();
#endif

inline constexpr KernelMaker kKernelMakers[] = {
    // attention_fwd ladder
    &MakeA01Scalar,
    &MakeA02SmemTiled,
    &MakeA03Wmma,
    &MakeA04Vectorized,
    &MakeA05MmaLdmatrix,
    &MakeA06InregSoftmax,
    &MakeA07DirectRescale,
    &MakeA08CpAsync,
    &MakeA09Swizzle,
    &MakeA10Fa2,
    &MakeA11Fa4CondRescale,
    &MakeA11Fa4PolyExp,
    &MakeA11Fa4Softmax,
#ifdef FLASHSCOPE_HAVE_SM90A
    &MakeA12WgmmaTma,
    &MakeA13WarpSpecialized,
    &MakeA14Pingpong,
    &MakeA15IntraOverlap,
    &MakeA16Fa4CondRescale,
    &MakeA16Fa4PolyExp,
    &MakeA16Fa4Softmax,
    &MakeA17PerDimSchedule,
    &MakeA18Persistent,
    &MakeA19SplitKv,
    &MakeA20DynamicSchedule,
    &MakeA21ShortTiles,
    &MakeA22PolyExp64,
    &MakeA24Prefetch128,
    &MakeA26TrimWarpgroups,
    &MakeA27Fp8,
    &MakeA28Fp8Overlap,
    &MakeA29Fp8SplitKv,
#endif
    // gemm ladder
    &MakeG01Naive,
    &MakeG02SmemTiled,
    &MakeG03RegisterTiled,
    &MakeG04Mma,
#ifdef FLASHSCOPE_HAVE_SM90A
    &MakeG05Wgmma,
    &MakeG06TmaWs,
    &MakeG07SplitTail,
    &MakeG08SharedA,
    &MakeG09TallTiles,
    &MakeG10RowBands,
    &MakeG11PaddedOperands,
    &MakeG12StagedC,
#endif
    // peers
    &MakeCublasGemm,
    &MakeCublasUnfused,
#ifdef FLASHSCOPE_HAVE_CUDNN
    &MakeCudnnSdpa,
#endif
};

}  // namespace flashscope::kernels
