// The shipped Python kernels through the bridge on a GPU: triton.fa_fwd and the torch.sdpa_*
// peers get flashscope-style buffers (cudaMalloc, poisoned outputs, fp16 and bf16), run on a
// stream the test owns, and must match the double-precision CPU reference; the launch must be
// enqueued on that stream (a stream held back by a host function keeps the output poisoned) and
// give the same bytes when repeated. Needs FLASHSCOPE_PYTHON naming a python3 with torch and
// triton (on the lent GPU machine /opt/torch/.venv/bin/python3); prints the one-time (prepare)
// cost and a hot per-launch time, which the harness's own runs measure properly. Carried to
// another machine: FLASHSCOPE_TEST_BRIDGE=/path/to/libflashscope_python.so (modules beside it).
#include <cuda_runtime_api.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/problem.h"
#include "python/tests/bridge_test_util.h"
#include "verify/cpu_reference.h"
#include "verify/half_convert.h"

namespace flashscope::python_bridge::testing {
namespace {

#define CUDA_OK(x) ASSERT_EQ((x), cudaSuccess) << #x << ": " << cudaGetErrorString(x)

const fs_plugin* LoadShipped(const std::string& file) {
  Entry entry = BridgeEntry();
  const char* why = nullptr;
  const fs_plugin* p =
      entry ? entry(FLASHSCOPE_ABI_VERSION, (PluginDir() + "/" + file).c_str(), &why) : nullptr;
  EXPECT_NE(p, nullptr) << (why ? why : "")
                        << "\n(set FLASHSCOPE_PYTHON to a python3 with torch "
                           "and triton)";
  return p;
}

struct Device {
  void* q = nullptr;
  void* k = nullptr;
  void* v = nullptr;
  void* o = nullptr;
  float* lse = nullptr;
  ~Device() {
    for (void* p : {q, k, v, o, static_cast<void*>(lse)}) cudaFree(p);
  }
};

void HoldStream(void*) { usleep(300 * 1000); }

bool AllPoisoned(const std::vector<uint8_t>& bytes) {
  for (uint8_t b : bytes) {
    if (b != 0xFF) return false;
  }
  return true;
}

// Runs `id` on `p`; fails the test when the output does not match the reference.
void RunAndCheck(const fs_kernel& k, const AttentionProblem& p) {
  SCOPED_TRACE(std::string(k.id) + " " + ProblemKey(p));
  const fs_dtype dtype = p.dtype == DType::kBF16 ? FS_DTYPE_BF16 : FS_DTYPE_F16;
  const fs_problem problem =
      Attention(p.batch, p.heads, p.seq_q, p.seq_k, p.head_dim, dtype, p.causal, p.want_lse);
  const char* reason = k.supports(k.user, &problem);
  ASSERT_TRUE(reason == nullptr || *reason == '\0') << reason;
  std::mt19937 rng(17);
  std::normal_distribution<float> normal;
  std::vector<float> q(p.QElements()), kk(p.KElements()), v(p.KElements());
  for (auto* x : {&q, &kk, &v}) {
    for (float& f : *x) f = verify::RoundToDType(normal(rng), p.dtype);
  }
  const size_t qb = q.size() * 2, kb = kk.size() * 2, lseb = p.LseElements() * sizeof(float);
  std::vector<uint8_t> host(std::max(qb, kb));
  Device d;
  CUDA_OK(cudaMalloc(&d.q, qb));
  CUDA_OK(cudaMalloc(&d.k, kb));
  CUDA_OK(cudaMalloc(&d.v, kb));
  CUDA_OK(cudaMalloc(&d.o, qb));
  if (p.want_lse) CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&d.lse), lseb));
  for (auto [src, dst, n] :
       {std::make_tuple(&q, d.q, q.size()), std::make_tuple(&kk, d.k, kk.size()),
        std::make_tuple(&v, d.v, v.size())}) {
    verify::ConvertFromFloat(src->data(), static_cast<int64_t>(n), p.dtype, host.data());
    CUDA_OK(cudaMemcpy(dst, host.data(), n * 2, cudaMemcpyHostToDevice));
  }
  cudaStream_t stream, reader;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CUDA_OK(cudaStreamCreateWithFlags(&reader, cudaStreamNonBlocking));
  fs_buffers b{};
  b.attention = {d.q, d.k, d.v, d.o, d.lse, 1.0f / std::sqrt(static_cast<float>(p.head_dim))};

  const char* note = nullptr;
  ASSERT_EQ(k.prepare(k.user, &problem, &b, stream, &note), 0) << k.last_error(k.user);
  std::printf("[ prepare  ] %s %s: %s\n", k.id, ProblemKey(p).c_str(), note ? note : "");
  // Poison, hold the stream back, launch: until the hold ends the output must stay poisoned.
  CUDA_OK(cudaMemset(d.o, 0xFF, qb));
  if (d.lse) CUDA_OK(cudaMemset(d.lse, 0xFF, lseb));
  CUDA_OK(cudaDeviceSynchronize());
  CUDA_OK(cudaLaunchHostFunc(stream, HoldStream, nullptr));
  ASSERT_EQ(k.launch(k.user, &problem, &b, stream), 0) << k.last_error(k.user);
  std::vector<uint8_t> early(qb);
  CUDA_OK(cudaMemcpyAsync(early.data(), d.o, qb, cudaMemcpyDeviceToHost, reader));
  CUDA_OK(cudaStreamSynchronize(reader));
  EXPECT_TRUE(AllPoisoned(early)) << "the kernel ran before the work queued ahead of it on "
                                     "flashscope's stream: it is not on that stream";
  CUDA_OK(cudaStreamSynchronize(stream));

  std::vector<uint8_t> out(qb), again(qb);
  CUDA_OK(cudaMemcpy(out.data(), d.o, qb, cudaMemcpyDeviceToHost));
  std::vector<float> got(q.size()), lse(p.LseElements());
  verify::ConvertToFloat(out.data(), p.dtype, static_cast<int64_t>(got.size()), got.data());
  if (d.lse) CUDA_OK(cudaMemcpy(lse.data(), d.lse, lseb, cudaMemcpyDeviceToHost));
  std::vector<double> want(q.size()), want_lse(p.LseElements());
  verify::AttentionReferenceCpu(p, q.data(), kk.data(), v.data(), want.data(), want_lse.data());
  double max_err = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double e = std::isfinite(got[i]) ? std::fabs(got[i] - want[i]) : INFINITY;
    max_err = std::max(max_err, e);
  }
  EXPECT_LT(max_err, p.dtype == DType::kBF16 ? 2e-2 : 3e-3) << "max |error| against the reference";
  for (size_t i = 0; d.lse && i < lse.size(); ++i) {
    if (std::isinf(want_lse[i])) {
      EXPECT_TRUE(std::isinf(lse[i]) && lse[i] < 0) << "lse row " << i;
    } else {
      ASSERT_NEAR(lse[i], want_lse[i], 1e-3 * (1 + std::fabs(want_lse[i]))) << "lse row " << i;
    }
  }
  // Relaunching gives the same bytes (the harness verifies the first launch, times the rest).
  ASSERT_EQ(k.launch(k.user, &problem, &b, stream), 0) << k.last_error(k.user);
  CUDA_OK(cudaStreamSynchronize(stream));
  CUDA_OK(cudaMemcpy(again.data(), d.o, qb, cudaMemcpyDeviceToHost));
  EXPECT_EQ(std::memcmp(out.data(), again.data(), qb), 0) << "a relaunch changed the output";

  cudaEvent_t start, stop;
  CUDA_OK(cudaEventCreate(&start));
  CUDA_OK(cudaEventCreate(&stop));
  constexpr int kLaunches = 20;
  CUDA_OK(cudaEventRecord(start, stream));
  for (int i = 0; i < kLaunches; ++i) ASSERT_EQ(k.launch(k.user, &problem, &b, stream), 0);
  CUDA_OK(cudaEventRecord(stop, stream));
  CUDA_OK(cudaEventSynchronize(stop));
  float ms = 0;
  CUDA_OK(cudaEventElapsedTime(&ms, start, stop));
  std::printf("[ measured ] %s %s: max |err| %.2e, %.4f ms a launch (hot, back to back)\n", k.id,
              ProblemKey(p).c_str(), max_err, ms / kLaunches);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaStreamDestroy(stream);
  cudaStreamDestroy(reader);
}

std::vector<AttentionProblem> Problems() {
  auto make = [](int64_t b, int64_t h, int64_t sq, int64_t sk, int64_t d, DType t, bool causal,
                 bool lse) { return AttentionProblem{b, h, sq, sk, d, t, causal, lse}; };
  return {make(2, 3, 256, 256, 64, DType::kBF16, false, false),
          make(1, 4, 512, 512, 128, DType::kF16, true, false),
          make(2, 2, 300, 300, 128, DType::kBF16, true, false),
          make(1, 3, 200, 333, 64, DType::kF16, true, true)};  // Sq != Sk, lse: triton only
}

TEST(PythonBridgeGpu, TritonFlashAttentionMatchesTheReference) {
  const fs_plugin* plugin = LoadShipped("triton_fa_fwd.py");
  ASSERT_NE(plugin, nullptr);
  const fs_kernel* k = FindKernel(plugin, "triton.fa_fwd");
  ASSERT_NE(k, nullptr);
  for (const AttentionProblem& p : Problems()) RunAndCheck(*k, p);
}

TEST(PythonBridgeGpu, TorchSdpaBackendsMatchTheReference) {
  const fs_plugin* plugin = LoadShipped("torch_sdpa.py");
  ASSERT_NE(plugin, nullptr);
  for (const char* id : {"torch.sdpa_flash", "torch.sdpa_cudnn", "torch.sdpa_efficient"}) {
    const fs_kernel* k = FindKernel(plugin, id);
    ASSERT_NE(k, nullptr) << id;
    for (const AttentionProblem& p : Problems()) {
      if (p.want_lse) continue;  // supports() says torch's SDPA does not return it
      RunAndCheck(*k, p);
    }
  }
}

}  // namespace
}  // namespace flashscope::python_bridge::testing
