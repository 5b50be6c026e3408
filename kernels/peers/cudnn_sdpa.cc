// peer.cudnn_sdpa: cuDNN's fused flash-attention forward, reached through the C backend graph API.
//
// The graph is the one cuDNN's fused-attention engines recognise (its "composite" SDPA pattern):
//   S  = matmul(Q, Kᵀ)                     fp32, Kᵀ expressed by strides over K [B,H,Sk,D]
//   S  = S · scale                         scale passed by value
//   [causal] row = genIndex(axis 2) + Sk − Sq, col = genIndex(axis 3), S = row >= col ? S : lowest
//   M  = max over keys, E = exp(S − M), L = Σ E
//   stats = M + log(L)                     fp32 [B,H,Sq,1]: the natural-log LSE of the contract
//   P  = E / L                             in the I/O dtype, as the engine requires for bmm2
//   O  = matmul(P, V)
// cuDNN fuses all of it into one flash-attention kernel; nothing of size Sq×Sk reaches memory.
//
// Rows that see no key (causal with Sq > Sk) would, with a finite mask value, average every key
// instead of giving the contract's zeros and -inf; supports() refuses those problems.
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/device_scratch.h"
#include "kernels/peers/cudnn_graph.h"
#include "kernels/registry.h"

namespace flashscope::kernels {
namespace {

// Unique ids of the tensors the variant pack binds.
enum Uid : int64_t {
  kQ = 1,
  kK = 2,
  kV = 3,
  kO = 4,
  kStats = 5,
  kScale = 6,
  kMaskValue = 7,
  kSeqK = 8,
  kSeqQ = 9
};

// want_lse is not part of the key: the graph always has the stats output (see BuildSdpaGraph).
using PlanKey = std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, int, bool, int>;

PlanKey KeyOf(const AttentionProblem& p, int device) {
  return {p.batch,  p.heads, p.seq_q, p.seq_k, p.head_dim, static_cast<int>(p.dtype),
          p.causal, device};
}

struct SdpaPlan {
  std::unique_ptr<cudnn::GraphBuilder> graph;  // owns the plan and every descriptor it refers to
  std::string error;                           // why no plan, from cuDNN
};

struct CudnnState {
  std::mutex mu;
  std::map<int, cudnnHandle_t> handles;  // per device, created once, never destroyed
  std::map<PlanKey, std::shared_ptr<SdpaPlan>> plans;
  // The plan's workspace and the statistics' scratch, per device.
  DeviceScratch workspace{"peer.cudnn_sdpa's workspace", 0};
};

CudnnState& State() {
  static CudnnState* s = new CudnnState();  // never destroyed: no teardown order issues at exit
  return *s;
}

std::string HandleFor(CudnnState& st, int device, cudnnHandle_t* out) {
  auto it = st.handles.find(device);
  if (it != st.handles.end()) {
    *out = it->second;
    return "";
  }
  cudnnHandle_t h = nullptr;
  std::string e = cudnn::StatusText(cudnnCreate(&h), "cudnnCreate");
  if (!e.empty()) return e;
  st.handles[device] = h;
  *out = h;
  return "";
}

std::unique_ptr<cudnn::GraphBuilder> BuildSdpaGraph(const AttentionProblem& p,
                                                    cudnnHandle_t handle) {
  auto g = std::make_unique<cudnn::GraphBuilder>();
  const int64_t b = p.batch, h = p.heads, sq = p.seq_q, sk = p.seq_k, d = p.head_dim;
  const cudnnDataType_t io = p.dtype == DType::kBF16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF;
  const cudnnDataType_t f32 = CUDNN_DATA_FLOAT;

  cudnn::TensorSpec q{kQ, io, {b, h, sq, d}, {h * sq * d, sq * d, d, 1}};
  // Kᵀ [B,H,D,Sk] over K's memory [B,H,Sk,D]: the last two strides swap.
  cudnn::TensorSpec kt{kK, io, {b, h, d, sk}, {h * sk * d, sk * d, 1, d}};
  cudnn::TensorSpec v{kV, io, {b, h, sk, d}, {h * sk * d, sk * d, d, 1}};
  cudnn::TensorSpec o{kO, io, {b, h, sq, d}, {h * sq * d, sq * d, d, 1}};
  auto scalar = [](int64_t uid, cudnnDataType_t t) {
    cudnn::TensorSpec s{uid, t, {1, 1, 1, 1}, {1, 1, 1, 1}};
    s.by_value = true;
    return s;
  };
  const int tq = g->Tensor(q), tk = g->Tensor(kt), tv = g->Tensor(v), to = g->Tensor(o);
  const int tscale = g->Tensor(scalar(kScale, f32));

  const std::vector<int64_t> s_dims{b, h, sq, sk};
  const std::vector<int64_t> row_dims{b, h, sq, 1};
  const int s_raw = g->VirtualShaped(s_dims, f32);
  g->Matmul(tq, tk, s_raw, "bmm1 (S = Q K^T)");
  int s = g->VirtualShaped(s_dims, f32);
  g->Pointwise(CUDNN_POINTWISE_MUL, f32, s_raw, tscale, -1, s, "attention scale");

  if (p.causal) {
    const int tmask = g->Tensor(scalar(kMaskValue, f32));
    const int tsk = g->Tensor(scalar(kSeqK, CUDNN_DATA_INT32));
    const int tsq = g->Tensor(scalar(kSeqQ, CUDNN_DATA_INT32));
    const int row = g->VirtualShaped(s_dims, CUDNN_DATA_INT32);
    g->Pointwise(CUDNN_POINTWISE_GEN_INDEX, CUDNN_DATA_INT32, s, -1, -1, row, "row index", 2);
    // Bottom-right alignment: shift the row index by Sk − Sq (as two ops, Sk then Sq, the form the
    // fused engines match).
    const int row_plus = g->VirtualShaped(s_dims, CUDNN_DATA_INT32);
    g->Pointwise(CUDNN_POINTWISE_ADD, CUDNN_DATA_INT32, row, tsk, -1, row_plus, "row + Sk");
    const int row_shift = g->VirtualShaped(s_dims, CUDNN_DATA_INT32);
    g->Pointwise(CUDNN_POINTWISE_SUB, CUDNN_DATA_INT32, row_plus, tsq, -1, row_shift, "row - Sq");
    const int col = g->VirtualShaped(s_dims, CUDNN_DATA_INT32);
    g->Pointwise(CUDNN_POINTWISE_GEN_INDEX, CUDNN_DATA_INT32, s, -1, -1, col, "column index", 3);
    const int keep = g->VirtualShaped(s_dims, CUDNN_DATA_BOOLEAN);
    g->Pointwise(CUDNN_POINTWISE_CMP_GE, CUDNN_DATA_BOOLEAN, row_shift, col, -1, keep,
                 "row >= column");
    const int masked = g->VirtualShaped(s_dims, f32);
    g->Pointwise(CUDNN_POINTWISE_BINARY_SELECT, f32, s, tmask, keep, masked, "causal select");
    s = masked;
  }

  const int m = g->VirtualShaped(row_dims, f32);
  g->Reduction(CUDNN_REDUCE_TENSOR_MAX, s, m, "row max");
  const int z = g->VirtualShaped(s_dims, f32);
  g->Pointwise(CUDNN_POINTWISE_SUB, f32, s, m, -1, z, "S - max");
  const int e = g->VirtualShaped(s_dims, f32);
  g->Pointwise(CUDNN_POINTWISE_EXP, f32, z, -1, -1, e, "exp");
  const int l = g->VirtualShaped(row_dims, f32);
  g->Reduction(CUDNN_REDUCE_TENSOR_ADD, e, l, "row sum");
  // The stats output is always part of the graph: cuDNN 9.14 finds no engine for the non-causal
  // graph without it (checked on the H200), and writing B·H·Sq floats is what FlashAttention does
  // anyway. When the problem does not ask for the LSE, it goes to scratch space after the
  // workspace.
  const int lg = g->VirtualShaped(row_dims, f32);
  g->Pointwise(CUDNN_POINTWISE_LOG, f32, l, -1, -1, lg, "log sum");
  cudnn::TensorSpec stats{kStats, f32, row_dims, {h * sq, sq, 1, 1}};
  const int tstats = g->Tensor(stats);
  g->Pointwise(CUDNN_POINTWISE_ADD, f32, m, lg, -1, tstats, "stats = max + log sum");
  const int prob = g->VirtualShaped(s_dims, io);
  g->Pointwise(CUDNN_POINTWISE_DIV, f32, e, l, -1, prob, "P = E / sum");
  g->Matmul(prob, tv, to, "bmm2 (O = P V)");

  g->BuildGraph(handle);
  g->BuildPlan(handle);
  return g;
}

std::string StaticSupports(const AttentionProblem& p) {
  if (p.dtype != DType::kF16 && p.dtype != DType::kBF16) {
    return "cuDNN's fused attention takes fp16 or bf16 inputs, not " +
           std::string(DTypeName(p.dtype));
  }
  if (p.head_dim % 8 != 0 || p.head_dim > 256) {
    return "cuDNN's fused attention needs head_dim a multiple of 8 and at most 256 (got " +
           std::to_string(p.head_dim) + ")";
  }
  if (p.batch < 1 || p.heads < 1 || p.seq_q < 1 || p.seq_k < 1) {
    return "every dimension must be at least 1";
  }
  if (p.causal && p.seq_q > p.seq_k) {
    return "causal with seq_q > seq_k leaves query rows with no visible key; cuDNN's mask gives "
           "them "
           "an average of all keys instead of the contract's zeros and -inf LSE";
  }
  return "";
}

// The plan for `p` on the current device, built on first use and cached (failures too, with
// cuDNN's message). Called with st.mu held.
std::shared_ptr<SdpaPlan> PlanFor(CudnnState& st, const AttentionProblem& p, int device,
                                  cudnnHandle_t handle) {
  const PlanKey key = KeyOf(p, device);
  auto it = st.plans.find(key);
  if (it != st.plans.end()) return it->second;
  auto plan = std::make_shared<SdpaPlan>();
  plan->graph = BuildSdpaGraph(p, handle);
  if (!plan->graph->ok())
    plan->error = "cuDNN rejected " + ProblemKey(p) + ": " + plan->graph->error();
  st.plans[key] = plan;
  return plan;
}

// Shared by supports() and the launch: "" with the plan and handle, else the reason.
std::string Prepare(CudnnState& st, const AttentionProblem& p, std::shared_ptr<SdpaPlan>* plan,
                    cudnnHandle_t* handle) {
  int device = 0;
  cudaError_t ce = cudaGetDevice(&device);
  if (ce != cudaSuccess) return std::string("cudaGetDevice: ") + cudaGetErrorString(ce);
  std::string e = HandleFor(st, device, handle);
  if (!e.empty()) return e;
  *plan = PlanFor(st, p, device, *handle);
  return (*plan)->error;
}

bool HaveDevice() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

std::string SupportsSdpa(const AttentionProblem& p) {
  std::string why = StaticSupports(p);
  if (!why.empty()) return why;
  // With a GPU present, ask cuDNN itself: building (and caching) the plan here turns "no engine"
  // into a skip with cuDNN's reason instead of an error at launch. Without a GPU (CI, planning on a
  // laptop) only the static rules above apply.
  if (!HaveDevice()) return "";
  CudnnState& st = State();
  std::lock_guard<std::mutex> lock(st.mu);
  std::shared_ptr<SdpaPlan> plan;
  cudnnHandle_t handle = nullptr;
  return Prepare(st, p, &plan, &handle);
}

cudaError_t LaunchSdpa(const AttentionProblem& p, const AttentionArgs& a, cudaStream_t stream) {
  const std::string why = StaticSupports(p);
  if (!why.empty()) {
    std::fprintf(stderr, "flashscope peer.cudnn_sdpa: unsupported problem %s: %s\n",
                 ProblemKey(p).c_str(), why.c_str());
    return cudaErrorNotSupported;
  }
  if (p.want_lse && a.lse == nullptr) {
    std::fprintf(stderr,
                 "flashscope peer.cudnn_sdpa: the problem asks for the LSE but args.lse is null\n");
    return cudaErrorInvalidValue;
  }
  CudnnState& st = State();
  std::lock_guard<std::mutex> lock(st.mu);
  std::shared_ptr<SdpaPlan> plan;
  cudnnHandle_t handle = nullptr;
  std::string e = Prepare(st, p, &plan, &handle);
  if (!e.empty()) {
    std::fprintf(stderr, "flashscope peer.cudnn_sdpa: %s\n", e.c_str());
    return cudaErrorNotSupported;
  }
  // The plan's workspace, then (when the LSE is not asked for) scratch for the stats output.
  const size_t plan_ws = (static_cast<size_t>(plan->graph->workspace_bytes()) + 255) / 256 * 256;
  const size_t need = plan_ws + (p.want_lse ? 0 : static_cast<size_t>(p.LseElements()) * 4);
  void* ws = nullptr;
  const cudaError_t ce = st.workspace.Get(need, &ws);
  if (ce != cudaSuccess) return ce;
  e = cudnn::StatusText(cudnnSetStream(handle, stream), "cudnnSetStream");

  // By-value scalars are read from host memory when the plan executes.
  float scale = a.softmax_scale != 0.f ? a.softmax_scale : 1.f / std::sqrt(float(p.head_dim));
  float mask_value = std::numeric_limits<float>::lowest();
  int32_t seq_k = static_cast<int32_t>(p.seq_k), seq_q = static_cast<int32_t>(p.seq_q);
  std::vector<int64_t> uids{kQ, kK, kV, kO, kScale};
  std::vector<void*> ptrs{const_cast<void*>(a.q), const_cast<void*>(a.k), const_cast<void*>(a.v),
                          a.o, &scale};
  if (p.causal) {
    uids.insert(uids.end(), {kMaskValue, kSeqK, kSeqQ});
    ptrs.insert(ptrs.end(), {&mask_value, &seq_k, &seq_q});
  }
  uids.push_back(kStats);
  ptrs.push_back(p.want_lse ? static_cast<void*>(a.lse)
                            : static_cast<void*>(static_cast<char*>(ws) + plan_ws));
  cudnn::Descriptor pack;
  const std::string what = "variant pack";
  if (e.empty()) e = pack.Create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, what);
  if (e.empty()) {
    e = cudnn::SetAttr(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64,
                       static_cast<int64_t>(uids.size()), uids.data(), what);
  }
  if (e.empty()) {
    e = cudnn::SetAttr(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR,
                       static_cast<int64_t>(ptrs.size()), ptrs.data(), what);
  }
  if (e.empty())
    e = cudnn::SetAttr(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws, what);
  if (e.empty()) e = cudnn::Finalize(pack, what);
  if (e.empty()) {
    e = cudnn::StatusText(cudnnBackendExecute(handle, plan->graph->plan().get(), pack.get()),
                          "cudnnBackendExecute");
  }
  if (!e.empty()) {
    std::fprintf(stderr, "flashscope peer.cudnn_sdpa: %s: %s\n", ProblemKey(p).c_str(), e.c_str());
    return cudaErrorLaunchFailure;
  }
  return cudaGetLastError();
}

}  // namespace

KernelEntry MakeCudnnSdpa() {
  KernelEntry e;
  const size_t v = cudnnGetVersion();  // the library loaded at run time, not the headers
  const std::string version = std::to_string(v / 10000) + "." + std::to_string((v / 100) % 100) +
                              "." + std::to_string(v % 100);
  e.info.id = "peer.cudnn_sdpa";
  e.info.family = Family::kAttentionFwd;
  e.info.revision = 1002;
  e.info.title = "cuDNN " + version + " fused SDPA forward (backend graph API)";
  e.info.changed = "NVIDIA's fused flash attention: one cuDNN engine for the whole graph";
  e.info.min_sm = 80;
  e.info.is_peer = true;
  e.info.idempotent = true;
  e.attention_supports = SupportsSdpa;
  e.attention_launch = LaunchSdpa;
  e.device_functions = [](const Problem&) { return std::vector<DeviceFunction>{}; };
  return e;
}

}  // namespace flashscope::kernels
