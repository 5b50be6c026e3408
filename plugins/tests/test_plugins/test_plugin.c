/* Small plugins for the host's tests, in plain C (which also proves the SDK header is C). One
 * source, built several times with one defect macro each (plugins/CMakeLists.txt):
 *   (none)                 a good plugin: two kernels, ids PREFIX "attn_v1" and PREFIX "gemm_v1"
 *   FS_TEST_NO_ENTRY       exports the entry under another name
 *   FS_TEST_ABI_VERSION=N  claims ABI version N
 *   FS_TEST_BAD_ID         an id with a space
 *   FS_TEST_BAD_FAMILY     family 7
 *   FS_TEST_BAD_STRUCT_SIZE  fs_kernel.struct_size 12
 *   FS_TEST_V1_STRUCT_SIZE fs_kernel.struct_size as version 1 first had it (before `prepare`),
 *                          as a plugin built then declares it; one kernel (the stride is short)
 *   FS_TEST_NULL_LAUNCH    launch is NULL
 *   FS_TEST_SNEAKY_TEST_ID an id "test.sneaky" without FS_KERNEL_TEST_ONLY
 *   FS_TEST_CRASH_LOAD_SEGV / FS_TEST_CRASH_LOAD_ABORT   the entry function crashes
 *   FS_TEST_CRASH_SUPPORTS supports() crashes
 *   FS_TEST_CRASH_LAUNCH   launch() crashes (reached on a GPU only: after inputs are made)
 *   FS_TEST_GEMM_BF16      the gemm kernel supports bf16 as well as fp16
 *   FS_TEST_REFUSE_ALL     both supports() refuse every problem
 *   FS_TEST_TEST_ONLY      both kernels flagged FS_KERNEL_TEST_ONLY (use with FS_TEST_PREFIX
 * "test.")
 *   FS_TEST_ACCEPTS_FP8    both kernels flagged FS_KERNEL_ACCEPTS_FP8, supporting E4M3 too
 * Every variant counts the supports() calls that asked about an E4M3 problem in the exported
 * fs_test_e4m3_questions, so that a test can tell that the host never asked. They have no GPU code:
 * launch() reports a plugin error, which CPU tests never reach. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "flashscope/kernel_abi.h"

#ifndef FS_TEST_PREFIX
#define FS_TEST_PREFIX "good."
#endif
#ifndef FS_TEST_NAME
#define FS_TEST_NAME "test-plugin"
#endif
#ifndef FS_TEST_ABI_VERSION
#define FS_TEST_ABI_VERSION FLASHSCOPE_ABI_VERSION
#endif

static char reason[128];

FLASHSCOPE_PLUGIN_EXPORT int fs_test_e4m3_questions = 0;

/* Counts an E4M3 question; NULL when the variant accepts FP8, else the refusal it would give (a
 * plugin that reads E4M3 as a dtype of its own is what the host must never meet). */
static const char* AskedAboutE4M3(int32_t dtype) {
  if (dtype != FS_DTYPE_E4M3) return NULL;
  ++fs_test_e4m3_questions;
#ifdef FS_TEST_ACCEPTS_FP8
  return NULL;
#else
  return "supports() was asked about e4m3 without FS_KERNEL_ACCEPTS_FP8";
#endif
}

static void CrashHere(void) {
  volatile int* nowhere = (volatile int*)0;
  *nowhere = 1; /* SIGSEGV */
}

static const char* AttentionSupports(void* user, const fs_problem* p) {
  (void)user;
#ifdef FS_TEST_CRASH_SUPPORTS
  CrashHere();
#endif
#ifdef FS_TEST_REFUSE_ALL
  (void)p;
  return "refuses everything (FS_TEST_REFUSE_ALL)";
#endif
  if (p->attention.dtype == FS_DTYPE_E4M3) return AskedAboutE4M3(p->attention.dtype);
  if (p->attention.head_dim != 64 && p->attention.head_dim != 128) {
    snprintf(reason, sizeof reason, "head_dim %lld not supported: 64 and 128 only",
             (long long)p->attention.head_dim);
    return reason;
  }
  return NULL;
}

static const char* GemmSupports(void* user, const fs_problem* p) {
  (void)user;
  if (p->gemm.dtype == FS_DTYPE_E4M3) return AskedAboutE4M3(p->gemm.dtype);
#ifdef FS_TEST_REFUSE_ALL
  (void)p;
  return "refuses everything (FS_TEST_REFUSE_ALL)";
#elif defined(FS_TEST_GEMM_BF16)
  return p->gemm.dtype == FS_DTYPE_F16 || p->gemm.dtype == FS_DTYPE_BF16 ? NULL
                                                                         : "fp16 and bf16 only";
#else
  return p->gemm.dtype == FS_DTYPE_F16 ? NULL : "fp16 only";
#endif
}

static int32_t Launch(void* user, const fs_problem* p, const fs_buffers* b, void* stream) {
  (void)user, (void)p, (void)b, (void)stream;
#ifdef FS_TEST_CRASH_LAUNCH
  CrashHere();
#endif
  return FS_LAUNCH_PLUGIN_ERROR;
}

static const char* LastError(void* user) {
  (void)user;
  return "this test plugin has no GPU code";
}

#ifdef FS_TEST_BAD_ID
#define FS_TEST_ATTN_ID FS_TEST_PREFIX "attn v1"
#elif defined(FS_TEST_SNEAKY_TEST_ID)
#define FS_TEST_ATTN_ID "test.sneaky"
#else
#define FS_TEST_ATTN_ID FS_TEST_PREFIX "attn_v1"
#endif
#ifdef FS_TEST_BAD_FAMILY
#define FS_TEST_ATTN_FAMILY 7
#else
#define FS_TEST_ATTN_FAMILY FS_FAMILY_ATTENTION_FWD
#endif
#ifdef FS_TEST_BAD_STRUCT_SIZE
#define FS_TEST_KERNEL_SIZE 12
#elif defined(FS_TEST_V1_STRUCT_SIZE)
#define FS_TEST_KERNEL_SIZE offsetof(fs_kernel, prepare)
#else
#define FS_TEST_KERNEL_SIZE sizeof(fs_kernel)
#endif
#ifdef FS_TEST_TEST_ONLY
#define FS_TEST_FLAGS FS_KERNEL_TEST_ONLY
#elif defined(FS_TEST_ACCEPTS_FP8)
#define FS_TEST_FLAGS FS_KERNEL_ACCEPTS_FP8
#else
#define FS_TEST_FLAGS 0
#endif
#ifdef FS_TEST_NULL_LAUNCH
#define FS_TEST_LAUNCH NULL
#else
#define FS_TEST_LAUNCH Launch
#endif

/* The attention kernel's prepare(): says what it prepared. Built into every variant; the
 * v1_struct_size one declares a struct_size that ends before it, so the host must never call it. */
static char gNote[64];
static int32_t Prepare(void* user, const fs_problem* problem, const fs_buffers* buffers,
                       void* stream, const char** note) {
  (void)user;
  (void)buffers;
  (void)stream;
  snprintf(gNote, sizeof gNote, "prepared for head_dim %lld",
           (long long)problem->attention.head_dim);
  *note = gNote;
  return 0;
}

static const fs_kernel kKernels[] = {
    {FS_TEST_KERNEL_SIZE,
     FS_TEST_FLAGS,
     FS_TEST_ATTN_ID,
     "Test attention kernel",
     "first revision",
     FS_TEST_ATTN_FAMILY,
     1,
     80,
     0,
     {64, 64, 1, 128},
     NULL,
     AttentionSupports,
     FS_TEST_LAUNCH,
     NULL,
     LastError,
     Prepare},
    {FS_TEST_KERNEL_SIZE,
     FS_KERNEL_NOT_IDEMPOTENT | FS_TEST_FLAGS,
     FS_TEST_PREFIX "gemm_v1",
     "Test gemm kernel",
     "",
     FS_FAMILY_GEMM,
     1,
     90,
     90,
     {128, 128, 32, 256},
     NULL,
     GemmSupports,
     Launch,
     NULL,
     NULL,
     NULL},
};

#ifdef FS_TEST_V1_STRUCT_SIZE
#define FS_TEST_KERNEL_COUNT 1
#else
#define FS_TEST_KERNEL_COUNT 2
#endif

static const fs_plugin kPlugin = {sizeof(fs_plugin), FS_TEST_ABI_VERSION,  FS_TEST_NAME,
                                  "1.2.3",           FS_TEST_KERNEL_COUNT, kKernels};

#ifdef FS_TEST_NO_ENTRY
#define FS_TEST_ENTRY flashscope_plugin_v0
#else
#define FS_TEST_ENTRY flashscope_plugin_v1
#endif

FLASHSCOPE_PLUGIN_EXPORT const fs_plugin* FS_TEST_ENTRY(uint32_t host_abi_version) {
  (void)host_abi_version;
#ifdef FS_TEST_CRASH_LOAD_SEGV
  CrashHere();
#endif
#ifdef FS_TEST_CRASH_LOAD_ABORT
  abort();
#endif
  return &kPlugin;
}
