// Loads the built plugin the way flashscope does (dlopen, the entry symbol) and checks its table
// and its supports() rules on the CPU: no GPU needed. Usage: plugin_test PLUGIN.so
#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "flashscope/kernel_abi.h"

namespace {

int failures = 0;

void Check(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
  if (!ok) ++failures;
}

fs_problem Attention(int32_t dtype, int64_t head_dim) {
  fs_problem p{};
  p.family = FS_FAMILY_ATTENTION_FWD;
  p.attention = fs_attention_problem{2, 3, 1000, 17, head_dim, dtype, 1, 1, 0};
  return p;
}

// The reason a kernel gives for `problem`, "" when it supports it.
std::string Reason(const fs_kernel& k, const fs_problem& problem) {
  const char* why = k.supports(k.user, &problem);
  return why == nullptr ? "" : why;
}

void CheckSupports(const fs_kernel& k) {
  const std::string id = k.id;
  for (int64_t d : {1, 17, 64, 96, 128}) {
    for (int32_t dtype : {FS_DTYPE_F16, FS_DTYPE_BF16}) {
      const std::string why = Reason(k, Attention(dtype, d));
      Check(why.empty(), id + " supports " + (dtype == FS_DTYPE_F16 ? "fp16" : "bf16") +
                             " head_dim " + std::to_string(d) + " " + why);
    }
  }
  for (int64_t d : {0, 129, 256}) {
    const std::string why = Reason(k, Attention(FS_DTYPE_F16, d));
    Check(why == "head_dim " + std::to_string(d) + " not supported: 1 to 128",
          id + " refuses head_dim " + std::to_string(d) + ": \"" + why + "\"");
  }
  const std::string fp32 = Reason(k, Attention(FS_DTYPE_F32, 64));
  Check(fp32 == "dtype fp32 not supported: fp16 and bf16 only",
        id + " refuses fp32: \"" + fp32 + "\"");
  fs_problem huge = Attention(FS_DTYPE_F16, 64);
  huge.attention.batch = 1 << 20, huge.attention.heads = 1 << 10, huge.attention.seq_q = 1 << 10;
  const std::string grid = Reason(k, huge);
  Check(grid.find("exceed a grid") != std::string::npos,
        id + " refuses a grid too large: \"" + grid + "\"");
  fs_problem gemm{};
  gemm.family = FS_FAMILY_GEMM;
  gemm.gemm = fs_gemm_problem{64, 64, 64, FS_DTYPE_F16, 0};
  Check(Reason(k, gemm) == "attention_fwd only", id + " refuses a gemm problem");
  // Counting the device functions needs no GPU (capacity 0 asks for the count alone).
  const fs_problem ok = Attention(FS_DTYPE_BF16, 128);
  Check(k.device_functions(k.user, &ok, nullptr, 0) == 1, id + " launches one __global__ function");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: plugin_test PLUGIN.so\n");
    return 2;
  }
  void* library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    std::fprintf(stderr, "cannot load %s: %s\n", argv[1], dlerror());
    return 1;
  }
  auto entry = reinterpret_cast<fs_plugin_entry_fn>(dlsym(library, FLASHSCOPE_PLUGIN_ENTRY_NAME));
  Check(entry != nullptr, std::string("exports ") + FLASHSCOPE_PLUGIN_ENTRY_NAME);
  if (entry == nullptr) return 1;
  Check(entry(FLASHSCOPE_ABI_VERSION + 1) == nullptr,
        "refuses an ABI version it was not built for");
  const fs_plugin* plugin = entry(FLASHSCOPE_ABI_VERSION);
  Check(plugin != nullptr && plugin->abi_version == FLASHSCOPE_ABI_VERSION, "serves ABI version 1");
  if (plugin == nullptr) return 1;
  Check(plugin->version != nullptr && std::strlen(plugin->version) > 0,
        std::string("has a version: ") + (plugin->version ? plugin->version : "(null)"));
  Check(plugin->kernel_count == 2, "offers two kernels");
  const char* ids[] = {"example.attn_v1", "example.attn_v2"};
  for (int i = 0; i < plugin->kernel_count && i < 2; ++i) {
    const fs_kernel& k = plugin->kernels[i];
    Check(
        std::strcmp(k.id, ids[i]) == 0 && k.revision == i + 1 && k.struct_size == sizeof(fs_kernel),
        std::string("kernel ") + std::to_string(i) + " is " + ids[i] + ", revision " +
            std::to_string(i + 1));
    CheckSupports(k);
  }
  std::printf("%s: %d failure(s)\n", argv[1], failures);
  return failures == 0 ? 0 : 1;
}
