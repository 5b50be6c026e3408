// The CUDA plugin project of `flashscope new-plugin` (cli/new_plugin.h): CMakeLists.txt, the
// kernel with its table, and the CPU test of the table. @NAME@, @ID@, @VERSION@ and @FAMILY@ are
// replaced by PluginProjectFiles. The kernels are simple and correct, not fast: one thread per
// output element (gemm, through 16x16 shared-memory tiles) or per query row (attention, online
// softmax in fp32), for every dtype of the ABI.
#include "cli/new_plugin.h"

#include <cstring>

namespace flashscope::cli {
namespace {

constexpr char kCMakeLists[] =
    R"T(# @NAME@: a flashscope kernel plugin built against the installed package (README.md).
cmake_minimum_required(VERSION 3.25)
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES 80 90)  # Ampere and Hopper; -DCMAKE_CUDA_ARCHITECTURES=90 for one
endif()
project(@NAME@ LANGUAGES CXX CUDA)
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE Release)
endif()
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CUDA_STANDARD 17)

# Found through -DCMAKE_PREFIX_PATH=<the prefix flashscope was installed to>.
find_package(flashscope @VERSION@ CONFIG REQUIRED)

# @NAME@.so: what `flashscope run|list --plugin` loads (and suite.json names).
flashscope_add_plugin(@NAME@ SOURCES @NAME@.cu)
# `cmake --install` puts it where flashscope looks up a plugin by its bare name "@NAME@".
install(TARGETS @NAME@ LIBRARY DESTINATION ${flashscope_PLUGIN_DIR})

# The plugin's table and supports() rules, checked on the CPU (ctest).
enable_testing()
add_executable(@NAME@_table_test tests/table_test.cc)
target_link_libraries(@NAME@_table_test PRIVATE flashscope::sdk ${CMAKE_DL_LIBS})
add_test(NAME @NAME@_table_test COMMAND @NAME@_table_test $<TARGET_FILE:@NAME@>)
)T";

// What both families' sources share: the element conversions and the table's plumbing.
constexpr char kSourceHead[] =
    R"T(// @ID@ and the table that offers it to flashscope (flashscope/kernel_abi.h; flashscope's
// docs/plugins.md explains every field). Made by `flashscope new-plugin`: simple and correct, a
// starting point to make fast.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "flashscope/kernel_abi.h"
#include "flashscope_plugin_version.h"  // FLASHSCOPE_PLUGIN_VERSION: made by flashscope_add_plugin

namespace {

// The text supports() and last_error() return: the ABI lets it live until the next call on the
// same thread.
thread_local std::string message;

const char* Say(std::string text) {
  message = std::move(text);
  return message.c_str();
}

__device__ float ToFloat(float v) { return v; }
__device__ float ToFloat(__half v) { return __half2float(v); }
__device__ float ToFloat(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T>
__device__ T FromFloat(float v);
template <>
__device__ float FromFloat<float>(float v) { return v; }
template <>
__device__ __half FromFloat<__half>(float v) { return __float2half_rn(v); }
template <>
__device__ __nv_bfloat16 FromFloat<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
)T";

constexpr char kGemmSource[] = R"T(
// C[m, n] = sum_k A[m, k] · B[k, n]: each 16x16 block of C by one thread block, A and B staged
// through shared memory 16 columns of k at a time, accumulated in fp32.
constexpr int kTile = 16;
constexpr int64_t kMaxGridY = 65535;  // a grid's y dimension (C's row tiles)

template <typename T>
__global__ void __launch_bounds__(kTile * kTile)
    Gemm(const T* a, const T* b, float* c, int64_t m, int64_t n, int64_t k) {
  __shared__ float a_tile[kTile][kTile];
  __shared__ float b_tile[kTile][kTile + 1];  // + 1: no bank conflicts on the column reads
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t row = static_cast<int64_t>(blockIdx.y) * kTile + ty;
  const int64_t col = static_cast<int64_t>(blockIdx.x) * kTile + tx;
  float acc = 0.f;
  for (int64_t k0 = 0; k0 < k; k0 += kTile) {
    a_tile[ty][tx] = row < m && k0 + tx < k ? ToFloat(a[row * k + k0 + tx]) : 0.f;
    b_tile[ty][tx] = k0 + ty < k && col < n ? ToFloat(b[(k0 + ty) * n + col]) : 0.f;
    __syncthreads();
#pragma unroll
    for (int i = 0; i < kTile; ++i) acc += a_tile[ty][i] * b_tile[i][tx];
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = acc;
}

// The __global__ function for a dtype, and its name in reports.
struct DeviceKernel {
  const void* symbol;
  const char* name;
};

DeviceKernel KernelFor(int32_t dtype) {
  switch (dtype) {
    case FS_DTYPE_F16:
      return {reinterpret_cast<const void*>(Gemm<__half>), "Gemm<fp16>"};
    case FS_DTYPE_BF16:
      return {reinterpret_cast<const void*>(Gemm<__nv_bfloat16>), "Gemm<bf16>"};
    default:
      return {reinterpret_cast<const void*>(Gemm<float>), "Gemm<fp32>"};
  }
}

// Every dtype of the ABI, any size the grid can cover.
const char* Supports(void*, const fs_problem* problem) {
  if (problem->family != FS_FAMILY_GEMM) return "gemm only";
  const fs_gemm_problem& p = problem->gemm;
  if (p.dtype != FS_DTYPE_F16 && p.dtype != FS_DTYPE_BF16 && p.dtype != FS_DTYPE_F32) {
    return "unknown dtype: fp16, bf16 and fp32 only";
  }
  if (p.m < 1 || p.n < 1 || p.k < 0) return "m and n must be at least 1";
  if ((p.m + kTile - 1) / kTile > kMaxGridY) {
    return Say("m " + std::to_string(p.m) + " needs more than 65535 row tiles of 16 (a grid's y "
               "limit): at most 1048560 rows");
  }
  return nullptr;
}

int32_t Launch(void* user, const fs_problem* problem, const fs_buffers* buffers, void* stream) {
  if (const char* why = Supports(user, problem)) {
    Say(std::string("launched on a problem it does not support: ") + why);
    return FS_LAUNCH_PLUGIN_ERROR;
  }
  const fs_gemm_problem& p = problem->gemm;
  const fs_gemm_buffers& b = buffers->gemm;
  const dim3 grid(static_cast<unsigned>((p.n + kTile - 1) / kTile),
                  static_cast<unsigned>((p.m + kTile - 1) / kTile));
  // cudaLaunchKernel takes the address of each argument's value.
  const void* a = b.a;
  const void* b_matrix = b.b;
  float* c = b.c;
  int64_t m = p.m, n = p.n, k = p.k;
  void* args[] = {&a, &b_matrix, &c, &m, &n, &k};
  return cudaLaunchKernel(KernelFor(p.dtype).symbol, grid, dim3(kTile, kTile), args, 0,
                          static_cast<cudaStream_t>(stream));
}

constexpr int32_t kBlockThreads = kTile * kTile;
constexpr fs_tile kKernelTile = {kTile, kTile, kTile, kBlockThreads};
constexpr int32_t kFamily = FS_FAMILY_GEMM;
constexpr const char* kTitle = "16x16 tiles of C through shared memory, fp32 accumulation";
)T";

constexpr char kAttentionSource[] = R"T(
// O = softmax(Q·Kᵀ·scale [+ causal mask])·V: one thread per query row, keys one at a time with an
// online softmax in fp32 (running max and sum), K and V read from global memory.
constexpr int kBlockThreads = 128;
constexpr int kMaxHeadDim = 128;  // a thread keeps its row's accumulator in registers

struct Args {
  const void* q;
  const void* k;
  const void* v;
  void* o;
  float* lse;  // nullptr unless the problem wants it
  int64_t rows;  // batch · heads · seq_q
  int64_t seq_q, seq_k;
  int32_t head_dim;
  int32_t causal;
  float scale;
};

template <typename T>
__global__ void __launch_bounds__(kBlockThreads) Attention(Args a) {
  const int64_t row = static_cast<int64_t>(blockIdx.x) * kBlockThreads + threadIdx.x;
  if (row >= a.rows) return;
  const int64_t head = row / a.seq_q, i = row % a.seq_q;
  const T* q = static_cast<const T*>(a.q) + row * a.head_dim;
  const T* k = static_cast<const T*>(a.k) + head * a.seq_k * a.head_dim;
  const T* v = static_cast<const T*>(a.v) + head * a.seq_k * a.head_dim;
  // Bottom-right causal: query i sees keys j <= i + (seq_k - seq_q).
  int64_t key_end = a.seq_k;
  if (a.causal) key_end = max(int64_t{0}, min(a.seq_k, i + a.seq_k - a.seq_q + 1));
  float acc[kMaxHeadDim];
#pragma unroll
  for (int d = 0; d < kMaxHeadDim; ++d) acc[d] = 0.f;
  float m = -INFINITY;  // running max of the scaled scores
  float l = 0.f;        // running sum of exp(score - m)
  for (int64_t j = 0; j < key_end; ++j) {
    float s = 0.f;
    for (int d = 0; d < a.head_dim; ++d) s += ToFloat(q[d]) * ToFloat(k[j * a.head_dim + d]);
    s *= a.scale;
    const float m_new = fmaxf(m, s);
    const float correction = expf(m - m_new);  // 0 at the first key (m = -inf)
    const float p = expf(s - m_new);
    l = l * correction + p;
#pragma unroll
    for (int d = 0; d < kMaxHeadDim; ++d) {
      if (d < a.head_dim) acc[d] = acc[d] * correction + p * ToFloat(v[j * a.head_dim + d]);
    }
    m = m_new;
  }
  // A row that sees no key writes zeros and a log-sum-exp of -inf.
  T* o = static_cast<T*>(a.o) + row * a.head_dim;
#pragma unroll
  for (int d = 0; d < kMaxHeadDim; ++d) {
    if (d < a.head_dim) o[d] = FromFloat<T>(l > 0.f ? acc[d] / l : 0.f);
  }
  if (a.lse != nullptr) a.lse[row] = l > 0.f ? m + logf(l) : -INFINITY;
}

struct DeviceKernel {
  const void* symbol;
  const char* name;
};

DeviceKernel KernelFor(int32_t dtype) {
  switch (dtype) {
    case FS_DTYPE_F16:
      return {reinterpret_cast<const void*>(Attention<__half>), "Attention<fp16>"};
    case FS_DTYPE_BF16:
      return {reinterpret_cast<const void*>(Attention<__nv_bfloat16>), "Attention<bf16>"};
    default:
      return {reinterpret_cast<const void*>(Attention<float>), "Attention<fp32>"};
  }
}

int64_t ThreadBlocks(const fs_attention_problem& p) {
  return (p.batch * p.heads * p.seq_q + kBlockThreads - 1) / kBlockThreads;
}

// Every dtype of the ABI, head_dim 1..128, any lengths, causal or not, with or without the
// log-sum-exp.
const char* Supports(void*, const fs_problem* problem) {
  if (problem->family != FS_FAMILY_ATTENTION_FWD) return "attention_fwd only";
  const fs_attention_problem& p = problem->attention;
  if (p.dtype != FS_DTYPE_F16 && p.dtype != FS_DTYPE_BF16 && p.dtype != FS_DTYPE_F32) {
    return "unknown dtype: fp16, bf16 and fp32 only";
  }
  if (p.head_dim < 1 || p.head_dim > kMaxHeadDim) {
    return Say("head_dim " + std::to_string(p.head_dim) + " not supported: 1 to 128");
  }
  if (ThreadBlocks(p) > INT32_MAX) {
    return Say(std::to_string(ThreadBlocks(p)) +
               " thread blocks exceed a grid's 2^31 - 1: fewer query rows");
  }
  return nullptr;
}

int32_t Launch(void* user, const fs_problem* problem, const fs_buffers* buffers, void* stream) {
  if (const char* why = Supports(user, problem)) {
    Say(std::string("launched on a problem it does not support: ") + why);
    return FS_LAUNCH_PLUGIN_ERROR;
  }
  const fs_attention_problem& p = problem->attention;
  const fs_attention_buffers& b = buffers->attention;
  Args args{};
  args.q = b.q, args.k = b.k, args.v = b.v, args.o = b.o;
  args.lse = p.want_lse ? b.lse : nullptr;
  args.rows = p.batch * p.heads * p.seq_q;
  args.seq_q = p.seq_q, args.seq_k = p.seq_k;
  args.head_dim = static_cast<int32_t>(p.head_dim);
  args.causal = p.causal;
  args.scale = b.softmax_scale;
  if (args.rows == 0) return cudaSuccess;  // no query row: nothing to write
  void* kernel_args[] = {&args};
  return cudaLaunchKernel(KernelFor(p.dtype).symbol, dim3(static_cast<unsigned>(ThreadBlocks(p))),
                          dim3(kBlockThreads), kernel_args, 0, static_cast<cudaStream_t>(stream));
}

constexpr fs_tile kKernelTile = {kBlockThreads, 1, 1, kBlockThreads};
constexpr int32_t kFamily = FS_FAMILY_ATTENTION_FWD;
constexpr const char* kTitle = "one thread per query row, fp32 online softmax";
)T";

constexpr char kSourceTail[] = R"T(
// The one __global__ function a launch runs, for flashscope's register / shared memory /
// occupancy view. Counting (capacity 0) needs no GPU.
int32_t DeviceFunctions(void* user, const fs_problem* problem, fs_device_function* out,
                        int32_t capacity) {
  if (Supports(user, problem) != nullptr) return 0;
  if (capacity < 1) return 1;
  const int32_t dtype =
      problem->family == FS_FAMILY_GEMM ? problem->gemm.dtype : problem->attention.dtype;
  const DeviceKernel kernel = KernelFor(dtype);
  cudaFunction_t function = nullptr;
  const cudaError_t status = cudaGetFuncBySymbol(&function, kernel.symbol);
  if (status != cudaSuccess) {
    Say(std::string("cudaGetFuncBySymbol(") + kernel.name + "): " + cudaGetErrorString(status));
    return FS_LAUNCH_PLUGIN_ERROR;
  }
  out[0] = fs_device_function{function, kernel.name, kBlockThreads, 0, 0};
  return 1;
}

const char* LastError(void*) { return message.c_str(); }

}  // namespace

extern "C" FLASHSCOPE_PLUGIN_EXPORT const fs_plugin* flashscope_plugin_v1(
    uint32_t host_abi_version) {
  static const fs_kernel kernels[] = {[] {
    fs_kernel k{};
    k.struct_size = sizeof(fs_kernel);
    k.id = "@ID@";  // stable: reports pair cases by it; a new revision gets a new id
    k.title = kTitle;
    k.changed = "first revision";
    k.family = kFamily;
    k.revision = 1;
    k.min_sm = 80;  // compiled for sm_80 and up (bf16)
    k.tile = kKernelTile;
    k.supports = Supports;
    k.launch = Launch;
    k.device_functions = DeviceFunctions;
    k.last_error = LastError;
    return k;
  }()};
  static const fs_plugin plugin{sizeof(fs_plugin), FLASHSCOPE_ABI_VERSION, "@NAME@",
                                FLASHSCOPE_PLUGIN_VERSION, 1, kernels};
  return host_abi_version == FLASHSCOPE_ABI_VERSION ? &plugin : nullptr;
}
)T";

constexpr char kTestHead[] =
    R"T(// Loads the built plugin the way flashscope does (dlopen, the entry symbol) and checks its table
// and its supports() rules on the CPU: no GPU needed. Usage: @NAME@_table_test PLUGIN.so
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

// The reason a kernel gives for `problem`, "" when it supports it.
std::string Reason(const fs_kernel& k, const fs_problem& problem) {
  const char* why = k.supports(k.user, &problem);
  return why == nullptr ? "" : why;
}

fs_problem Gemm(int64_t m, int64_t n, int64_t k, int32_t dtype) {
  fs_problem p{};
  p.family = FS_FAMILY_GEMM;
  p.gemm = fs_gemm_problem{m, n, k, dtype, 0};
  return p;
}

fs_problem Attention(int64_t head_dim, int32_t dtype) {
  fs_problem p{};
  p.family = FS_FAMILY_ATTENTION_FWD;
  p.attention = fs_attention_problem{2, 3, 17, 1000, head_dim, dtype, 1, 1, 0};
  return p;
}

const char* Name(int32_t dtype) {
  return dtype == FS_DTYPE_F16 ? "fp16" : dtype == FS_DTYPE_BF16 ? "bf16" : "fp32";
}
)T";

constexpr char kGemmTestChecks[] = R"T(
void CheckSupports(const fs_kernel& k) {
  for (int32_t dtype : {FS_DTYPE_F16, FS_DTYPE_BF16, FS_DTYPE_F32}) {
    for (const fs_problem& p : {Gemm(1000, 17, 333, dtype), Gemm(1, 1, 1, dtype)}) {
      const std::string why = Reason(k, p);
      Check(why.empty(), std::string("supports ") + Name(dtype) + " " +
                             std::to_string(p.gemm.m) + "x" + std::to_string(p.gemm.n) + "x" +
                             std::to_string(p.gemm.k) + " " + why);
    }
  }
  const std::string tall = Reason(k, Gemm(int64_t{1} << 21, 16, 16, FS_DTYPE_F16));
  Check(tall.find("65535 row tiles") != std::string::npos, "refuses m beyond the grid: " + tall);
  Check(Reason(k, Attention(64, FS_DTYPE_F16)) == "gemm only", "refuses an attention problem");
  const fs_problem ok = Gemm(256, 256, 256, FS_DTYPE_BF16);
  Check(k.device_functions(k.user, &ok, nullptr, 0) == 1, "launches one __global__ function");
}
)T";

constexpr char kAttentionTestChecks[] = R"T(
void CheckSupports(const fs_kernel& k) {
  for (int32_t dtype : {FS_DTYPE_F16, FS_DTYPE_BF16, FS_DTYPE_F32}) {
    for (int64_t d : {1, 64, 100, 128}) {
      const std::string why = Reason(k, Attention(d, dtype));
      Check(why.empty(),
            std::string("supports ") + Name(dtype) + " head_dim " + std::to_string(d) + " " + why);
    }
  }
  for (int64_t d : {0, 129, 256}) {
    const std::string why = Reason(k, Attention(d, FS_DTYPE_F16));
    Check(why == "head_dim " + std::to_string(d) + " not supported: 1 to 128",
          "refuses head_dim " + std::to_string(d) + ": \"" + why + "\"");
  }
  fs_problem huge = Attention(64, FS_DTYPE_F16);
  huge.attention.batch = int64_t{1} << 20, huge.attention.heads = 1 << 10;
  huge.attention.seq_q = 1 << 10;
  const std::string grid = Reason(k, huge);
  Check(grid.find("exceed a grid") != std::string::npos, "refuses a grid too large: " + grid);
  Check(Reason(k, Gemm(64, 64, 64, FS_DTYPE_F16)) == "attention_fwd only",
        "refuses a gemm problem");
  const fs_problem ok = Attention(128, FS_DTYPE_BF16);
  Check(k.device_functions(k.user, &ok, nullptr, 0) == 1, "launches one __global__ function");
}
)T";

constexpr char kTestMain[] = R"T(
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: @NAME@_table_test PLUGIN.so\n");
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
  Check(entry(FLASHSCOPE_ABI_VERSION + 1) == nullptr, "refuses an ABI version it was not built for");
  const fs_plugin* plugin = entry(FLASHSCOPE_ABI_VERSION);
  Check(plugin != nullptr && plugin->abi_version == FLASHSCOPE_ABI_VERSION,
        "serves this ABI version");
  if (plugin == nullptr) return 1;
  Check(std::strcmp(plugin->name, "@NAME@") == 0, std::string("is named @NAME@: ") + plugin->name);
  Check(plugin->version != nullptr && std::strlen(plugin->version) > 0,
        std::string("has a version: ") + (plugin->version ? plugin->version : "(null)"));
  Check(plugin->kernel_count == 1, "offers one kernel");
  if (plugin->kernel_count < 1) return 1;
  const fs_kernel& k = plugin->kernels[0];
  Check(std::strcmp(k.id, "@ID@") == 0 && k.revision == 1 && k.struct_size == sizeof(fs_kernel),
        std::string("its kernel is @ID@, revision 1: ") + k.id);
  Check(k.family == FS_FAMILY_@FAMILY_ENUM@, "of the family @FAMILY@");
  CheckSupports(k);
  std::printf("%s\n", failures == 0 ? "all checks passed" : "some checks FAILED");
  return failures == 0 ? 0 : 1;
}
)T";

}  // namespace

std::vector<ProjectFile> CudaProjectTemplates(bool attention) {
  std::string test =
      std::string(kTestHead) + (attention ? kAttentionTestChecks : kGemmTestChecks) + kTestMain;
  const std::string family_enum = attention ? "ATTENTION_FWD" : "GEMM";
  for (size_t at = test.find("@FAMILY_ENUM@"); at != std::string::npos;
       at = test.find("@FAMILY_ENUM@")) {
    test.replace(at, std::strlen("@FAMILY_ENUM@"), family_enum);
  }
  return {{"CMakeLists.txt", kCMakeLists},
          {"@NAME@.cu",
           std::string(kSourceHead) + (attention ? kAttentionSource : kGemmSource) + kSourceTail},
          {"tests/table_test.cc", test}};
}

}  // namespace flashscope::cli
