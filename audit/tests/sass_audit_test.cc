// The audit's parser and policy on real cuobjdump output of our build (audit/testdata/README.md).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "audit/audit_policy.h"
#include "audit/sass_parse.h"

namespace flashscope::audit {
namespace {

std::string ReadTestdata(const std::string& name) {
  std::ifstream f(std::string(FLASHSCOPE_TEST_SOURCE_DIR) + "/audit/testdata/" + name);
  EXPECT_TRUE(f.good()) << name;
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<SassFunction> ParseBoth() {
  auto g01 = ParseCuobjdumpSass(ReadTestdata("cuobjdump_g01_naive.txt"));
  auto g04 = ParseCuobjdumpSass(ReadTestdata("cuobjdump_g04_mma_one_function.txt"));
  EXPECT_TRUE(g01.ok()) << g01.status();
  EXPECT_TRUE(g04.ok()) << g04.status();
  std::vector<SassFunction> all = *g01;
  all.insert(all.end(), g04->begin(), g04->end());
  return all;
}

TEST(OpcodeOfLine, TakesTheBaseMnemonicPastAPredicate) {
  EXPECT_EQ(OpcodeOfLine("        /*0120*/                   CALL.REL.NOINC 0x7040 ;   /* 0x0 */"),
            "CALL");
  EXPECT_EQ(OpcodeOfLine("        /*0a40*/              @!P0 HMMA.16816.F32 R4, R8, R12, R4 ;"),
            "HMMA");
  EXPECT_EQ(OpcodeOfLine("        /*0c70*/                   NOP;"), "NOP");
  EXPECT_EQ(OpcodeOfLine("        /*0a40*/                   HFMA2.MMA R6, -RZ, RZ, 0, 0 ;"),
            "HFMA2");  // not a tensor instruction, despite ".MMA"
  EXPECT_EQ(OpcodeOfLine("                                   /* 0x000fe20000000800 */"), "");
  EXPECT_EQ(OpcodeOfLine("\t\tFunction : _Z3foov"), "");
}

TEST(ParseCuobjdumpSass, ReadsResourcesAndInstructionMixOfRealOutput) {
  const auto all = ParseBoth();
  ASSERT_EQ(all.size(), 3u);  // G01NaiveKernel<float>, <__half>; G04MmaKernel<false>
  for (const auto& f : all) {
    EXPECT_EQ(f.arch, "sm_90") << f.name;
    EXPECT_GT(f.registers, 0) << f.name;
    EXPECT_EQ(f.local_bytes, 0) << f.name;
    EXPECT_GT(f.instructions, 10) << f.name;
  }
  EXPECT_EQ(all[0].source, "g01_naive");
  EXPECT_NE(all[0].demangled.find("G01NaiveKernel"), std::string::npos) << all[0].demangled;
  const SassFunction& g04 = all[2];
  EXPECT_EQ(g04.source, "g04_mma");
  EXPECT_EQ(g04.registers, 135);
  EXPECT_EQ(g04.shared_bytes, 1024);
  EXPECT_GT(g04.Count("HMMA"), 0);
  EXPECT_GT(g04.Count("LDSM"), 0);
  EXPECT_EQ(all[0].Count("HMMA"), 0);  // the naive rung uses FFMA only
  EXPECT_GT(all[0].Count("FFMA") + all[1].Count("HFMA2") + all[1].Count("FFMA"), 0);
}

TEST(ParseCuobjdumpSass, RefusesTextThatIsNotCuobjdumps) {
  auto r = ParseCuobjdumpSass("hello\nworld\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(std::string(r.status().message()).find("cuobjdump"), std::string::npos);
}

const std::vector<KernelDescriptor> kLadder = {
    {"gemm.g01_naive", "gemm", 1, false, false},
    {"gemm.g04_mma", "gemm", 4, false, false},
    {"gemm.g03_register_tiled", "gemm", 3, false, false},  // not in the sample: no device code
    {"peer.cublas_gemm", "gemm", 1000, true, false},
};

TEST(AuditKernels, RealSamplePassesWhereItShouldAndNamesWhatIsMissing) {
  const auto all = ParseBoth();
  auto audits = AuditKernels(kLadder, all);
  ASSERT_EQ(audits.size(), 4u);
  EXPECT_TRUE(audits[0].passed()) << audits[0].violations.front();
  EXPECT_FALSE(audits[0].expects_tensor_cores);
  ASSERT_EQ(audits[0].arches.size(), 1u);
  EXPECT_EQ(audits[0].arches[0].functions.size(), 2u);
  EXPECT_TRUE(audits[1].passed());
  EXPECT_TRUE(audits[1].expects_tensor_cores);
  EXPECT_GT(audits[1].arches[0].mix.hmma, 0);
  EXPECT_EQ(audits[1].arches[0].max_registers, 135);
  ASSERT_FALSE(audits[2].passed());
  EXPECT_NE(audits[2].violations[0].find("no device function"), std::string::npos);
  EXPECT_TRUE(audits[3].passed()) << "a library peer launches no kernel of ours";

  auto json = AuditToJson(audits, "sample", "test");
  EXPECT_EQ(json["schema"], "flashscope.audit");
  EXPECT_FALSE(json["passed"].get<bool>());
  EXPECT_EQ(json["kernels"][1]["arches"][0]["instructions"]["hmma"].get<int>(),
            audits[1].arches[0].mix.hmma);
  EXPECT_NE(RenderAuditTable(audits).find("gemm.g04_mma"), std::string::npos);
}

TEST(AuditKernels, ATensorRungWithoutTensorInstructionsFails) {
  // g01's real functions, attributed to a tensor-core rung's name: the policy must object.
  auto all = ParseBoth();
  for (auto& f : all) f.source = "g05_pretend";
  all.erase(all.begin() + 2);  // keep only the two naive functions
  auto audits = AuditKernels({{"gemm.g05_pretend", "gemm", 5, false, false}}, all);
  ASSERT_FALSE(audits[0].passed());
  EXPECT_NE(audits[0].violations[0].find("no HMMA/HGMMA"), std::string::npos)
      << audits[0].violations[0];
}

TEST(AuditKernels, LocalMemoryIsASpillViolation) {
  auto all = ParseBoth();
  all[2].local_bytes = 16;  // as a spilling build of g04 would report
  all[2].opcodes["STL"] = 2;
  auto audits = AuditKernels({kLadder[1]}, all);
  ASSERT_FALSE(audits[0].passed());
  EXPECT_NE(audits[0].violations[0].find("16 bytes per thread"), std::string::npos)
      << audits[0].violations[0];
  EXPECT_NE(audits[0].violations[0].find("2 STL"), std::string::npos);
}

TEST(AuditKernels, ARequiredOpcodeThatIsMissingIsNamed) {
  // g04's real function holds HMMA but no TMA load: a rung that claims TMA must fail, naming it.
  auto all = ParseBoth();
  KernelDescriptor k = kLadder[1];
  k.required_sass = {"HMMA", "UTMALDG"};
  auto audits = AuditKernels({k}, all);
  ASSERT_FALSE(audits[0].passed());
  ASSERT_EQ(audits[0].violations.size(), 1u);
  EXPECT_NE(audits[0].violations[0].find("needs UTMALDG"), std::string::npos)
      << audits[0].violations[0];
  k.required_sass = {"HMMA", "LDSM"};
  EXPECT_TRUE(AuditKernels({k}, all)[0].passed());
}

TEST(ExpectsTensorCores, LadderRule) {
  EXPECT_FALSE(ExpectsTensorCores({"attn.a02_smem_tiled", "attention_fwd", 2, false, false}));
  EXPECT_TRUE(ExpectsTensorCores({"attn.a03_wmma", "attention_fwd", 3, false, false}));
  EXPECT_FALSE(ExpectsTensorCores({"gemm.g03_register_tiled", "gemm", 3, false, false}));
  EXPECT_TRUE(ExpectsTensorCores({"gemm.g04_mma", "gemm", 4, false, false}));
  EXPECT_FALSE(ExpectsTensorCores({"peer.cudnn_sdpa", "attention_fwd", 1002, true, false}));
  EXPECT_FALSE(ExpectsTensorCores({"test.a10_slow5", "attention_fwd", 10, false, true}));
}

}  // namespace
}  // namespace flashscope::audit
