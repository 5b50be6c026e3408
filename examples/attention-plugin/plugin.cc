// The plugin: two revisions of an attention forward kernel, offered to flashscope through its C ABI
// (flashscope/kernel_abi.h; flashscope's docs/plugins.md explains every field).
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "flashscope/kernel_abi.h"
#include "flashscope_plugin_version.h"  // FLASHSCOPE_PLUGIN_VERSION: made by flashscope_add_plugin
#include "kernels.h"

namespace {

// The text supports() and last_error() return: the ABI lets it live until the next call on the
// same thread.
thread_local std::string message;

const char* Say(std::string text) {
  message = std::move(text);
  return message.c_str();
}

// One thread block per 64 query rows of each head, in both revisions.
int64_t ThreadBlocks(const fs_attention_problem& p) {
  return p.batch * p.heads * ((p.seq_q + example::kRowsPerBlock - 1) / example::kRowsPerBlock);
}

// What both revisions support: fp16 and bf16, any head_dim up to 128 (a thread keeps its row's
// accumulator in registers), any lengths, causal or not, with or without the log-sum-exp.
const char* Supports(void*, const fs_problem* problem) {
  if (problem->family != FS_FAMILY_ATTENTION_FWD) return "attention_fwd only";
  const fs_attention_problem& p = problem->attention;
  if (p.dtype != FS_DTYPE_F16 && p.dtype != FS_DTYPE_BF16) {
    return p.dtype == FS_DTYPE_F32 ? "dtype fp32 not supported: fp16 and bf16 only"
                                   : "unknown dtype: fp16 and bf16 only";
  }
  if (p.head_dim < 1 || p.head_dim > 128) {
    return Say("head_dim " + std::to_string(p.head_dim) + " not supported: 1 to 128");
  }
  const int64_t blocks = ThreadBlocks(p);
  if (blocks > INT32_MAX) {
    return Say(std::to_string(blocks) + " thread blocks exceed a grid's 2^31 - 1: fewer rows");
  }
  return nullptr;
}

using PickKernel = example::DeviceKernel (*)(int32_t dtype, int32_t head_dim);

example::DeviceKernel KernelFor(void* user, const fs_problem* problem) {
  const auto pick = reinterpret_cast<PickKernel>(user);
  return pick(problem->attention.dtype, static_cast<int32_t>(problem->attention.head_dim));
}

int32_t Launch(void* user, const fs_problem* problem, const fs_buffers* buffers, void* stream) {
  if (const char* why = Supports(user, problem)) {
    Say(std::string("launched on a problem it does not support: ") + why);
    return FS_LAUNCH_PLUGIN_ERROR;
  }
  const fs_attention_problem& p = problem->attention;
  const fs_attention_buffers& b = buffers->attention;
  example::AttentionArgs args{};
  args.q = b.q, args.k = b.k, args.v = b.v, args.o = b.o;
  args.lse = p.want_lse ? b.lse : nullptr;
  args.seq_q = p.seq_q, args.seq_k = p.seq_k;
  args.head_dim = static_cast<int32_t>(p.head_dim);
  args.causal = p.causal;
  args.scale = b.softmax_scale;
  const int64_t blocks = ThreadBlocks(p);
  if (blocks == 0) return cudaSuccess;  // no query row: nothing to write
  void* kernel_args[] = {&args};
  return cudaLaunchKernel(KernelFor(user, problem).symbol, dim3(static_cast<unsigned>(blocks)),
                          dim3(example::kRowsPerBlock), kernel_args, 0,
                          static_cast<cudaStream_t>(stream));
}

// One __global__ function per launch, for flashscope's register / shared memory / occupancy view.
int32_t DeviceFunctions(void* user, const fs_problem* problem, fs_device_function* out,
                        int32_t capacity) {
  if (Supports(user, problem) != nullptr) return 0;
  if (capacity < 1) return 1;
  const example::DeviceKernel kernel = KernelFor(user, problem);
  cudaFunction_t function = nullptr;
  const cudaError_t status = cudaGetFuncBySymbol(&function, kernel.symbol);
  if (status != cudaSuccess) {
    Say(std::string("cudaGetFuncBySymbol(") + kernel.name + "): " + cudaGetErrorString(status));
    return FS_LAUNCH_PLUGIN_ERROR;
  }
  out[0] = fs_device_function{function, kernel.name, example::kRowsPerBlock, 0, 0};
  return 1;
}

const char* LastError(void*) { return message.c_str(); }

fs_kernel Describe(const char* id, const char* title, const char* changed, int32_t revision,
                   int32_t keys_per_step, PickKernel pick) {
  fs_kernel k{};
  k.struct_size = sizeof(fs_kernel);
  k.id = id;
  k.title = title;
  k.changed = changed;
  k.family = FS_FAMILY_ATTENTION_FWD;
  k.revision = revision;
  k.min_sm = 80;  // compiled for sm_80 and up (bf16 conversions)
  k.tile = fs_tile{example::kRowsPerBlock, keys_per_step, 1, example::kRowsPerBlock};
  k.user = reinterpret_cast<void*>(pick);
  k.supports = Supports;
  k.launch = Launch;
  k.device_functions = DeviceFunctions;
  k.last_error = LastError;
  return k;
}

}  // namespace

extern "C" FLASHSCOPE_PLUGIN_EXPORT const fs_plugin* flashscope_plugin_v1(
    uint32_t host_abi_version) {
  static const fs_kernel kernels[] = {
      Describe("example.attn_v1", "one thread per query row, fp32 online softmax",
               "first revision: K and V read from global memory by every row", 1, 1,
               example::AttnV1Kernel),
      Describe("example.attn_v2", "v1 with K/V tiles of 8 keys in shared memory",
               "K/V staged once per block in shared memory; one softmax rescale per tile", 2,
               example::kV2TileKeys, example::AttnV2Kernel),
  };
  static const fs_plugin plugin{sizeof(fs_plugin),
                                FLASHSCOPE_ABI_VERSION,
                                "example-attention",
                                FLASHSCOPE_PLUGIN_VERSION,
                                2,
                                kernels};
  return host_abi_version == FLASHSCOPE_ABI_VERSION ? &plugin : nullptr;
}
