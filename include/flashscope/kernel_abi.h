/* flashscope kernel SDK: the C ABI a plugin implements to offer kernels to flashscope.
 *
 * A plugin is a shared library that exports one function, `flashscope_plugin_v1`, returning a
 * table of kernels. flashscope loads it inside its worker processes (never in the process that
 * supervises a run), checks the ABI version, validates every entry, and then treats each kernel
 * exactly like its own ladder: poisoned-output verification, cold timing, hardware counters,
 * isolation. The guide, with what the harness guarantees a kernel and what it requires of one,
 * is docs/plugins.md.
 *
 * Why a C ABI: a plugin may be built with another compiler, another CUDA minor version, CUTLASS,
 * ThunderKittens or a Python bridge. Only plain C types cross the boundary: no C++ objects, no
 * exceptions, no CUDA runtime types (a stream is passed as the `void*` it is: a cudaStream_t is a
 * CUstream, valid in every CUDA runtime of the process because all of them share the device's
 * primary context).
 *
 * Compatibility rules:
 *  - `FLASHSCOPE_ABI_VERSION` changes only when a change breaks existing plugins; flashscope
 *    refuses a plugin whose `abi_version` differs from its own, naming both numbers.
 *  - Structs flashscope reads (fs_plugin, fs_kernel) begin with `struct_size`; fields are only
 *    ever appended, so a host reads what a plugin built against an older header filled in.
 *  - The structs that cross the other way, or that are written into arrays flashscope owns
 *    (fs_problem, fs_buffers, fs_device_function) and fs_tile (embedded in fs_kernel), carry no
 *    size: their layout is frozen for an ABI version, and changing it changes
 *    FLASHSCOPE_ABI_VERSION.
 *  - Every enum starts at 1: a zeroed field is always invalid and caught at load.
 */
#ifndef FLASHSCOPE_KERNEL_ABI_H_
#define FLASHSCOPE_KERNEL_ABI_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FLASHSCOPE_ABI_VERSION 1u

#if defined(_WIN32)
#define FLASHSCOPE_PLUGIN_EXPORT __declspec(dllexport)
#else
#define FLASHSCOPE_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* ---- problems -------------------------------------------------------------------------- */

typedef enum fs_family { FS_FAMILY_ATTENTION_FWD = 1, FS_FAMILY_GEMM = 2 } fs_family;

/* FS_DTYPE_E4M3 (appended after ABI 1 shipped; the version did not change): OCP FP8 E4M3 ("FN":
 * no infinities, max 448, torch.float8_e4m3fn), one byte an element, unscaled (a tensor's values
 * are the stored FP8 numbers; a plugin that wants per-tensor scales folds them in itself). An
 * E4M3 attention problem has Q, K, V in E4M3 and O in BF16; an E4M3 gemm has A and B in E4M3 and
 * C in fp32 as always. flashscope offers E4M3 problems only to kernels that set
 * FS_KERNEL_ACCEPTS_FP8, so a plugin built before the value existed is never asked about one. */
typedef enum fs_dtype {
  FS_DTYPE_F32 = 1,
  FS_DTYPE_F16 = 2,
  FS_DTYPE_BF16 = 3,
  FS_DTYPE_E4M3 = 4
} fs_dtype;

/* O = softmax(Q·Kᵀ·scale [+ causal mask]) · V.
 * Q, O: [batch, heads, seq_q, head_dim]; K, V: [batch, heads, seq_k, head_dim]; contiguous,
 * row-major, elements of `dtype` (O in BF16 when `dtype` is FS_DTYPE_E4M3). The optional
 * log-sum-exp output is fp32 [batch, heads, seq_q], natural log. Causal masking is bottom-right
 * aligned: query i sees keys j <= i + (seq_k - seq_q) (FlashAttention 2.1+); a query row that sees
 * no key outputs zeros and a log-sum-exp of -inf. */
typedef struct fs_attention_problem {
  int64_t batch;
  int64_t heads;
  int64_t seq_q;
  int64_t seq_k;
  int64_t head_dim;
  int32_t dtype;    /* fs_dtype */
  int32_t causal;   /* 0 or 1 */
  int32_t want_lse; /* 1: write the log-sum-exp to fs_attention_buffers.lse */
  int32_t reserved; /* 0 */
} fs_attention_problem;

/* C[m, n] = sum_k A[m, k] · B[k, n]; A and B row-major in `dtype`, C row-major fp32. */
typedef struct fs_gemm_problem {
  int64_t m;
  int64_t n;
  int64_t k;
  int32_t dtype;    /* fs_dtype */
  int32_t reserved; /* 0 */
} fs_gemm_problem;

/* One problem: `family` says which member is meaningful (the other is zeroed). flashscope asks a
 * kernel only about problems of its own family. */
typedef struct fs_problem {
  int32_t family;   /* fs_family */
  int32_t reserved; /* 0 */
  fs_attention_problem attention;
  fs_gemm_problem gemm;
} fs_problem;

/* ---- buffers of one launch ------------------------------------------------------------- */

/* Device pointers, each 256-byte aligned, laid out as fs_attention_problem says. Outputs hold a
 * poison pattern before a verified launch: every element must be written. */
typedef struct fs_attention_buffers {
  const void* q;
  const void* k;
  const void* v;
  void* o;
  float* lse; /* NULL unless problem.want_lse */
  float softmax_scale;
} fs_attention_buffers;

typedef struct fs_gemm_buffers {
  const void* a;
  const void* b;
  float* c;
} fs_gemm_buffers;

/* The member matching the problem's family is set; the other is zeroed. */
typedef struct fs_buffers {
  fs_attention_buffers attention;
  fs_gemm_buffers gemm;
} fs_buffers;

/* ---- kernels --------------------------------------------------------------------------- */

/* The work one thread block does. attention: block_m query rows × block_n keys per step; gemm:
 * block_m × block_n of C with a k step of block_k. The verifier folds errors onto block_m rows
 * (the "tile fold" heatmap); use 1 where a value does not apply. */
typedef struct fs_tile {
  int32_t block_m;
  int32_t block_n;
  int32_t block_k;
  int32_t threads;
} fs_tile;

/* fs_kernel.flags */
enum {
  /* A library implementation (cuBLAS, cuDNN, PyTorch) rather than one of the author's rungs. */
  FS_KERNEL_PEER = 1u << 0,
  /* Relaunching does not give the same output or touches more than its outputs (accumulates
   * into C, keeps state between launches). Such a kernel is profiled with CUPTI's kernel replay,
   * which saves and restores memory, instead of being relaunched once per counter pass. */
  FS_KERNEL_NOT_IDEMPOTENT = 1u << 1,
  /* Deliberately broken or cheating kernels that exist to test flashscope itself. They take part
   * in a run only when asked for by a pattern that starts with "test.". */
  FS_KERNEL_TEST_ONLY = 1u << 2,
  /* The kernel may be asked about FS_DTYPE_E4M3 problems (its supports() still decides which).
   * Without the flag flashscope never offers it one: FP8 came after ABI 1, and a plugin written
   * before it could read an unknown dtype as one of its own. */
  FS_KERNEL_ACCEPTS_FP8 = 1u << 3
};

/* One __global__ function a kernel launches for a problem, for resource usage (registers,
 * shared and local memory) and theoretical occupancy. `cu_function` is the driver's CUfunction,
 * which every CUDA runtime in the process understands; from a __global__ function `f` in the
 * plugin's own code: `cudaGetFuncBySymbol((cudaFunction_t*)&out->cu_function, (const void*)f)`. */
typedef struct fs_device_function {
  void* cu_function; /* CUfunction */
  const char* name;  /* as shown in reports; static storage */
  int32_t block_threads;
  int32_t reserved; /* 0 */
  uint64_t dynamic_smem_bytes;
} fs_device_function;

/* One kernel. All strings are NUL-terminated UTF-8 in storage that lives as long as the plugin
 * stays loaded. Callbacks may be called from any one thread at a time; `user` is passed back
 * unchanged. */
typedef struct fs_kernel {
  uint32_t struct_size; /* sizeof(fs_kernel) of the header the plugin was built with */
  uint32_t flags;       /* FS_KERNEL_* */
  /* Stable and unique across every plugin of a run: "my.attn_v2". Letters, digits and ._- only;
   * the prefix "test." is reserved for FS_KERNEL_TEST_ONLY kernels. */
  const char* id;
  const char* title;   /* one line: "FlashAttention-2 style, 128x64 tiles" */
  const char* changed; /* one line: what this revision changed against the previous one */
  int32_t family;      /* fs_family */
  int32_t revision;    /* order within the family's ladder; peers use 1000+ */
  int32_t min_sm;      /* minimum compute capability × 10 (80 = sm_80) */
  int32_t exact_sm;    /* > 0: arch-specific code (sm_90a) that runs on this capability only */
  fs_tile tile;
  void* user;

  /* NULL (or "") when the kernel supports `problem`, else the reason it does not, in words
   * ("head_dim 96 not supported: 64 and 128 only"); the string must stay valid until the next
   * call of any callback on this thread. Must not launch work or allocate device memory. */
  const char* (*supports)(void* user, const fs_problem* problem);

  /* Enqueues the work on `stream` (a cudaStream_t) and returns 0 (cudaSuccess) or a CUDA error
   * code, typically cudaGetLastError() after the launch. Every piece of GPU work must be
   * enqueued on `stream`; no host synchronisation; scratch memory may be allocated on the first
   * launch of a shape and kept. Returning FS_LAUNCH_PLUGIN_ERROR says the plugin itself failed
   * (a Python exception, a missing library): `last_error` then gives the message. */
  int32_t (*launch)(void* user, const fs_problem* problem, const fs_buffers* buffers, void* stream);

  /* Optional (NULL: none reported, as for library peers whose kernels are not the author's).
   * Writes at most `capacity` entries to `out` and returns how many there are in all; flashscope
   * calls again with a larger array when the count exceeds `capacity`. */
  int32_t (*device_functions)(void* user, const fs_problem* problem, fs_device_function* out,
                              int32_t capacity);

  /* Optional: the message of the last failing call on this thread (a traceback for a Python
   * kernel), valid until the next call of any callback on this thread. */
  const char* (*last_error)(void* user);

  /* Optional (NULL: nothing to prepare; a plugin built before this field was appended reads as
   * NULL). Called once per case after supports() and before the verified launch, with the case's
   * buffers and stream: the place for one-time work no timed launch may pay (JIT compilation,
   * autotuning, building library plans). It may synchronise, allocate and write the outputs
   * (flashscope poisons them after it). Returns like launch(); on success sets `*note` to one
   * line saying what it did ("compiled and autotuned in 1.93 s; then 0.41 ms a call"), or NULL,
   * valid until the next callback on this thread. flashscope records its wall time and the note
   * in the case result. A plugin must still work when the host never calls it (an older host):
   * the Python bridge then prepares inside the first launch of each problem, which is the
   * untimed, verified one. */
  int32_t (*prepare)(void* user, const fs_problem* problem, const fs_buffers* buffers, void* stream,
                     const char** note);
} fs_kernel;

/* launch() return value for a failure of the plugin rather than of CUDA. */
#define FS_LAUNCH_PLUGIN_ERROR (-1)

/* What a plugin exports. */
typedef struct fs_plugin {
  uint32_t struct_size; /* sizeof(fs_plugin) of the header the plugin was built with */
  uint32_t abi_version; /* FLASHSCOPE_ABI_VERSION of that header */
  const char* name;     /* short name shown in reports: "my-attention" */
  /* The plugin's own version, e.g. its git revision ("3f2c1ab-dirty"): recorded in every case
   * beside the plugin file's content hash, apart from flashscope's own revision. */
  const char* version;
  int32_t kernel_count;
  /* `kernel_count` entries, each `kernels[0].struct_size` bytes apart: flashscope steps through
   * the array by the plugin's own sizeof(fs_kernel), so every entry must carry the same
   * struct_size (they do when the table is a plain C array of fs_kernel). */
  const fs_kernel* kernels;
} fs_plugin;

/* The one symbol a plugin exports. flashscope passes its own ABI version; a plugin that cannot
 * serve that version returns NULL. Called once per process, before any other callback. The
 * returned table stays valid while the plugin is loaded. */
#define FLASHSCOPE_PLUGIN_ENTRY_NAME "flashscope_plugin_v1"
typedef const fs_plugin* (*fs_plugin_entry_fn)(uint32_t host_abi_version);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* FLASHSCOPE_KERNEL_ABI_H_ */
