// The peers' supports() rules, which need no GPU: CI checks that problems the peers cannot run are
// refused with a reason a person can act on.
#include <gtest/gtest.h>

#include <string>

#include "common/problem.h"
#include "common/tests/attention_problem.h"
#include "kernels/registry.h"

namespace flashscope::kernels {
namespace {

constexpr auto* Attn = &MaskedAttentionShape;  // short: the tests below spell many problems

TEST(PeersTest, UnfusedIsRegisteredAsPeer) {
  const KernelEntry* e = FindKernel("peer.cublas_unfused");
  ASSERT_NE(e, nullptr);
  EXPECT_TRUE(e->info.is_peer);
  EXPECT_EQ(e->info.family, Family::kAttentionFwd);
  // Its own kernel (the row softmax) is listed for the profiler's resource report.
  const auto fns = e->device_functions(Problem(Attn(1, 1, 4, 4, 64, DType::kF16, false)));
  ASSERT_EQ(fns.size(), 1u);
  EXPECT_NE(fns[0].func, nullptr);
  EXPECT_EQ(fns[0].dynamic_smem_bytes, 4u * 4u);
}

TEST(PeersTest, UnfusedRefusesHugeScoreMatrixWithBytes) {
  const KernelEntry* e = FindKernel("peer.cublas_unfused");
  ASSERT_NE(e, nullptr);
  // 8·32·8192·8192 scores · 4 bytes = 64 GiB.
  const std::string why = e->Supports(Problem(Attn(8, 32, 8192, 8192, 64, DType::kBF16, false)));
  EXPECT_NE(why.find("68719476736 bytes"), std::string::npos) << why;
  // Just under the 8 GiB limit: 4·16·4096·8192·4 = 8 GiB exactly is allowed.
  EXPECT_EQ(e->Supports(Problem(Attn(4, 16, 4096, 8192, 64, DType::kF16, true))), "");
  EXPECT_NE(e->Supports(Problem(Attn(1, 1, 4, 40000, 64, DType::kF16, true))), "");
  // Not an attention kernel for gemm problems.
  EXPECT_NE(e->Supports(Problem(GemmProblem{})), "");
}

#ifdef FLASHSCOPE_HAVE_CUDNN
TEST(PeersTest, CudnnRefusesWhatItCannotRun) {
  const KernelEntry* e = FindKernel("peer.cudnn_sdpa");
  ASSERT_NE(e, nullptr);
  EXPECT_TRUE(e->info.is_peer);
  EXPECT_NE(e->info.title.find("cuDNN 9."), std::string::npos) << e->info.title;
  const std::string fp32 = e->Supports(Problem(Attn(1, 2, 64, 64, 64, DType::kF32, false)));
  EXPECT_NE(fp32.find("fp16 or bf16"), std::string::npos) << fp32;
  const std::string odd_d = e->Supports(Problem(Attn(1, 2, 64, 64, 60, DType::kF16, false)));
  EXPECT_NE(odd_d.find("head_dim"), std::string::npos) << odd_d;
  const std::string empty_rows = e->Supports(Problem(Attn(1, 2, 64, 16, 64, DType::kBF16, true)));
  EXPECT_NE(empty_rows.find("no visible key"), std::string::npos) << empty_rows;
}
#endif

}  // namespace
}  // namespace flashscope::kernels
