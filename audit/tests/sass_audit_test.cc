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

// One function of the Hopper rung g06 (TMA loads, mbarriers, setmaxnreg, wgmma; sm_90a).
std::vector<SassFunction> ParseG06() {
  auto g06 = ParseCuobjdumpSass(ReadTestdata("cuobjdump_g06_tma_ws_one_function.txt"));
  EXPECT_TRUE(g06.ok()) << g06.status();
  return g06.ok() ? *g06 : std::vector<SassFunction>{};
}

const KernelDescriptor kG06 = {
    "gemm.g06_tma_ws", "gemm", 6, false, false, 90, {"HGMMA", "UTMALDG", "SYNCS", "USETMAXREG"}};

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

TEST(InstructionOfLine, DropsTheGuardAndTheSemicolon) {
  EXPECT_EQ(
      InstructionOfLine("        /*0a40*/              @!P0 HMMA.16816.F32 R4, R8, R12, R4 ;"),
      "HMMA.16816.F32 R4, R8, R12, R4");
  EXPECT_EQ(
      InstructionOfLine("        /*3ff0*/                   WARPGROUP.DEPBAR.LE gsb0, 0x0 ;     "
                        "                     /* 0x00008000000079c5 */"),
      "WARPGROUP.DEPBAR.LE gsb0, 0x0");
  EXPECT_EQ(InstructionOfLine("                                   /* 0x000fe20000000800 */"), "");
}

// Real lines of a build of g05 whose wgmmas ptxas serialised (advisory C7515: the epilogue's
// row arithmetic, since moved to the caller, made it define accumulator registers inside the
// pipeline): a full wgmma wait, an arrive and the next wgmma back to back.
constexpr char kSerialisedWgmma[] = R"(
Fatbin elf code:
================
arch = sm_90a
identifier = ../kernels/hopper/g05_wgmma.cu

	code for sm_90a
		Function : _Z11SerialisedPK6__half
        /*3fe0*/                   ULOP3.LUT UR6, UR6, 0x400000, URZ, 0xfc, !UPT ;          /* 0x0040000006067892 */
                                                                                            /* 0x000fe2000f8efc3f */
        /*3ff0*/                   WARPGROUP.DEPBAR.LE gsb0, 0x0 ;                          /* 0x00008000000079c5 */
                                                                                            /* 0x000fe40000010000 */
        /*4000*/                   WARPGROUP.ARRIVE ;                                       /* 0x00000000000079c5 */
                                                                                            /* 0x000fcc0000000000 */
        /*4010*/                   HGMMA.64x128x16.F32 R24, gdesc[UR16].tnspB, R24, gsb0 ;  /* 0x41e00000101879f0 */
)";

TEST(ParseCuobjdumpSass, FindsWgmmasThatPtxasSerialised) {
  auto f = ParseCuobjdumpSass(kSerialisedWgmma);
  ASSERT_TRUE(f.ok()) << f.status();
  ASSERT_EQ(f->size(), 1u);
  EXPECT_EQ((*f)[0].hgmma_serialized, 1);
  EXPECT_EQ((*f)[0].Count("HGMMA"), 1);
  // The real g06 function queues its four wgmmas per K step: none serialised.
  EXPECT_EQ(ParseG06().at(0).hgmma_serialized, 0);
  auto audits = AuditKernels({{"gemm.g05_wgmma", "gemm", 5, false, false, 90, {"HGMMA"}}}, *f);
  ASSERT_FALSE(audits[0].passed());
  EXPECT_NE(audits[0].violations[0].find("serialised"), std::string::npos)
      << audits[0].violations[0];
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

TEST(AuditKernels, AHopperRungShowsWgmmaAndTheTmaInstructions) {
  const auto g06 = ParseG06();
  ASSERT_EQ(g06.size(), 1u);
  EXPECT_EQ(g06[0].arch, "sm_90a");
  EXPECT_EQ(g06[0].source, "g06_tma_ws");
  EXPECT_EQ(g06[0].local_bytes, 0);
  auto audits = AuditKernels({kG06}, g06);
  ASSERT_EQ(audits.size(), 1u);
  EXPECT_TRUE(audits[0].passed()) << audits[0].violations.front();
  ASSERT_EQ(audits[0].arches.size(), 1u);
  const InstructionMix& mix = audits[0].arches[0].mix;
  EXPECT_GT(mix.hgmma, 0);
  EXPECT_EQ(mix.hmma, 0);
  EXPECT_GT(mix.tma, 0);
  EXPECT_EQ(mix.ldgsts, 0) << "TMA replaced cp.async";
  const auto json = AuditToJson(audits, "sample", "test");
  EXPECT_EQ(json["kernels"][0]["required_opcodes"].size(), 4u);
  EXPECT_EQ(json["kernels"][0]["arches"][0]["instructions"]["tma"].get<int>(), mix.tma);
  EXPECT_NE(RenderAuditTable(audits).find("TMA"), std::string::npos);
}

TEST(AuditKernels, AHopperRungThatLostItsTmaOrWgmmaFails) {
  // The same function with its TMA loads taken out, as a build whose copies fell back to
  // ordinary loads would show.
  auto g06 = ParseG06();
  ASSERT_EQ(g06.size(), 1u);
  g06[0].opcodes.erase("UTMALDG");
  auto audits = AuditKernels({kG06}, g06);
  ASSERT_FALSE(audits[0].passed());
  ASSERT_EQ(audits[0].violations.size(), 1u);
  EXPECT_NE(audits[0].violations[0].find("no UTMALDG"), std::string::npos)
      << audits[0].violations[0];
  // g04's mma.sync function presented as an sm_90a rung: tensor instructions, but no HGMMA.
  auto all = ParseBoth();
  std::vector<SassFunction> g04 = {all[2]};
  g04[0].source = "g07_pretend";
  auto hopper = AuditKernels({{"gemm.g07_pretend", "gemm", 7, false, false, 90, {}}}, g04);
  ASSERT_FALSE(hopper[0].passed());
  EXPECT_NE(hopper[0].violations[0].find("no HGMMA"), std::string::npos) << hopper[0].violations[0];
  // Without exact_sm the same function is a valid Ampere-style rung.
  EXPECT_TRUE(AuditKernels({{"gemm.g07_pretend", "gemm", 7, false, false}}, g04)[0].passed());
}

TEST(RequiredOpcodes, HopperRungsNeedWgmmaPlusWhatTheyDeclare) {
  EXPECT_EQ(RequiredOpcodes(kG06),
            (std::vector<std::string>{"HGMMA", "UTMALDG", "SYNCS", "USETMAXREG"}));
  EXPECT_EQ(RequiredOpcodes({"gemm.g05_wgmma", "gemm", 5, false, false, 90, {}}),
            (std::vector<std::string>{"HGMMA"}));
  // An FP8 rung declares QGMMA (E4M3 wgmma) and is not asked for HGMMA as well.
  EXPECT_EQ(RequiredOpcodes({"attn.a27_fp8",
                             "attention_fwd",
                             27,
                             false,
                             false,
                             90,
                             {"QGMMA", "UTMALDG", "SYNCS", "USETMAXREG"}}),
            (std::vector<std::string>{"QGMMA", "UTMALDG", "SYNCS", "USETMAXREG"}));
  EXPECT_TRUE(RequiredOpcodes({"gemm.g04_mma", "gemm", 4, false, false}).empty());
  EXPECT_TRUE(RequiredOpcodes({"peer.cublas_gemm", "gemm", 1000, true, false, 90, {}}).empty());
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
