#include "kernels/peers/cudnn_graph.h"

#include <utility>

namespace flashscope::kernels::cudnn {

std::string StatusText(cudnnStatus_t status, const std::string& what) {
  if (status == CUDNN_STATUS_SUCCESS) return "";
  char last[1024] = {0};
  cudnnGetLastErrorString(last, sizeof(last));
  std::string text = what + ": " + cudnnGetErrorString(status);
  if (last[0] != '\0') text += ": " + std::string(last);
  return text;
}

Descriptor::~Descriptor() {
  if (desc_ != nullptr) cudnnBackendDestroyDescriptor(desc_);
}

Descriptor& Descriptor::operator=(Descriptor&& other) noexcept {
  if (this != &other) {
    if (desc_ != nullptr) cudnnBackendDestroyDescriptor(desc_);
    desc_ = other.desc_;
    other.desc_ = nullptr;
  }
  return *this;
}

std::string Descriptor::Create(cudnnBackendDescriptorType_t type, const std::string& what) {
  if (desc_ != nullptr) {
    cudnnBackendDestroyDescriptor(desc_);
    desc_ = nullptr;
  }
  return StatusText(cudnnBackendCreateDescriptor(type, &desc_), "create " + what);
}

std::string SetAttr(const Descriptor& d, cudnnBackendAttributeName_t name,
                    cudnnBackendAttributeType_t type, int64_t count, const void* values,
                    const std::string& what) {
  return StatusText(cudnnBackendSetAttribute(d.get(), name, type, count, values),
                    "set attribute " + std::to_string(static_cast<int>(name)) + " of " + what);
}

std::string Finalize(const Descriptor& d, const std::string& what) {
  return StatusText(cudnnBackendFinalize(d.get()), "finalize " + what);
}

std::vector<int64_t> PackedStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * dims[i + 1];
  return s;
}

int GraphBuilder::Tensor(const TensorSpec& spec) {
  if (!ok()) return -1;
  const std::string what = "tensor uid " + std::to_string(spec.uid);
  Descriptor d;
  std::string e = d.Create(CUDNN_BACKEND_TENSOR_DESCRIPTOR, what);
  const int64_t alignment = 16;
  const int64_t rank = static_cast<int64_t>(spec.dims.size());
  if (e.empty()) {
    e = SetAttr(d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &spec.dtype, what);
  }
  if (e.empty()) {
    e = SetAttr(d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, rank, spec.dims.data(), what);
  }
  if (e.empty()) {
    e = SetAttr(d, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, rank, spec.strides.data(), what);
  }
  if (e.empty()) e = SetAttr(d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &spec.uid, what);
  if (e.empty()) {
    e = SetAttr(d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment, what);
  }
  if (e.empty() && spec.is_virtual) {
    const bool v = true;
    e = SetAttr(d, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &v, what);
  }
  if (e.empty() && spec.by_value) {
    const bool v = true;
    e = SetAttr(d, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &v, what);
  }
  if (e.empty()) e = Finalize(d, what);
  if (!e.empty()) {
    Fail(e);
    return -1;
  }
  specs_.push_back(spec);
  tensors_.push_back(std::move(d));
  return static_cast<int>(tensors_.size()) - 1;
}

int GraphBuilder::VirtualShaped(const std::vector<int64_t>& dims, cudnnDataType_t dtype) {
  TensorSpec s;
  s.uid = next_virtual_uid_++;
  s.dtype = dtype;
  s.dims = dims;
  s.strides = PackedStrides(dims);
  s.is_virtual = true;
  return Tensor(s);
}

int GraphBuilder::VirtualLike(int like, cudnnDataType_t dtype) {
  if (!ok() || like < 0) return -1;
  return VirtualShaped(specs_[like].dims, dtype);
}

void GraphBuilder::Matmul(int a, int b, int c, const std::string& name) {
  if (!ok()) return;
  Descriptor mm, op;
  const cudnnDataType_t comp = CUDNN_DATA_FLOAT;
  std::string e = mm.Create(CUDNN_BACKEND_MATMUL_DESCRIPTOR, name);
  if (e.empty()) e = SetAttr(mm, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &comp, name);
  if (e.empty()) e = Finalize(mm, name);
  if (e.empty()) e = op.Create(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR, name);
  auto set_desc = [&](cudnnBackendAttributeName_t attr, cudnnBackendDescriptor_t d) {
    if (e.empty()) e = SetAttr(op, attr, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &d, name);
  };
  set_desc(CUDNN_ATTR_OPERATION_MATMUL_ADESC, tensors_[a].get());
  set_desc(CUDNN_ATTR_OPERATION_MATMUL_BDESC, tensors_[b].get());
  set_desc(CUDNN_ATTR_OPERATION_MATMUL_CDESC, tensors_[c].get());
  set_desc(CUDNN_ATTR_OPERATION_MATMUL_DESC, mm.get());
  if (e.empty()) e = Finalize(op, name);
  if (!e.empty()) return Fail(e);
  op_attrs_.push_back(std::move(mm));
  ops_.push_back(std::move(op));
}

void GraphBuilder::Pointwise(cudnnPointwiseMode_t mode, cudnnDataType_t math, int x, int b, int t,
                             int y, const std::string& name, int64_t axis) {
  if (!ok()) return;
  Descriptor pw, op;
  std::string e = pw.Create(CUDNN_BACKEND_POINTWISE_DESCRIPTOR, name);
  if (e.empty())
    e = SetAttr(pw, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode, name);
  if (e.empty())
    e = SetAttr(pw, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &math, name);
  if (e.empty() && axis >= 0) {
    e = SetAttr(pw, CUDNN_ATTR_POINTWISE_AXIS, CUDNN_TYPE_INT64, 1, &axis, name);
  }
  if (e.empty()) e = Finalize(pw, name);
  if (e.empty()) e = op.Create(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, name);
  auto set_desc = [&](cudnnBackendAttributeName_t attr, cudnnBackendDescriptor_t d) {
    if (e.empty()) e = SetAttr(op, attr, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &d, name);
  };
  set_desc(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, pw.get());
  set_desc(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, tensors_[x].get());
  if (b >= 0) set_desc(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, tensors_[b].get());
  if (t >= 0) set_desc(CUDNN_ATTR_OPERATION_POINTWISE_TDESC, tensors_[t].get());
  set_desc(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, tensors_[y].get());
  if (e.empty()) e = Finalize(op, name);
  if (!e.empty()) return Fail(e);
  op_attrs_.push_back(std::move(pw));
  ops_.push_back(std::move(op));
}

void GraphBuilder::Reduction(cudnnReduceTensorOp_t reduce, int x, int y, const std::string& name) {
  if (!ok()) return;
  Descriptor red, op;
  const cudnnDataType_t comp = CUDNN_DATA_FLOAT;
  std::string e = red.Create(CUDNN_BACKEND_REDUCTION_DESCRIPTOR, name);
  if (e.empty()) {
    e = SetAttr(red, CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &reduce,
                name);
  }
  if (e.empty())
    e = SetAttr(red, CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &comp, name);
  if (e.empty()) e = Finalize(red, name);
  if (e.empty()) e = op.Create(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR, name);
  auto set_desc = [&](cudnnBackendAttributeName_t attr, cudnnBackendDescriptor_t d) {
    if (e.empty()) e = SetAttr(op, attr, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &d, name);
  };
  set_desc(CUDNN_ATTR_OPERATION_REDUCTION_XDESC, tensors_[x].get());
  set_desc(CUDNN_ATTR_OPERATION_REDUCTION_YDESC, tensors_[y].get());
  set_desc(CUDNN_ATTR_OPERATION_REDUCTION_DESC, red.get());
  if (e.empty()) e = Finalize(op, name);
  if (!e.empty()) return Fail(e);
  op_attrs_.push_back(std::move(red));
  ops_.push_back(std::move(op));
}

void GraphBuilder::BuildGraph(cudnnHandle_t handle) {
  if (!ok()) return;
  std::vector<cudnnBackendDescriptor_t> raw;
  for (const auto& op : ops_) raw.push_back(op.get());
  const std::string what = "operation graph";
  std::string e = graph_.Create(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, what);
  if (e.empty()) {
    e = SetAttr(graph_, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                static_cast<int64_t>(raw.size()), raw.data(), what);
  }
  if (e.empty())
    e = SetAttr(graph_, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle, what);
  if (e.empty()) e = Finalize(graph_, what);
  Fail(e);
}

bool GraphBuilder::TryPlan(cudnnHandle_t handle, cudnnBackendHeurMode_t mode, std::string* tries) {
  const std::string mode_name = mode == CUDNN_HEUR_MODE_A ? "heuristics A" : "fallback heuristics";
  Descriptor heur;
  std::string e = heur.Create(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, mode_name);
  cudnnBackendDescriptor_t g = graph_.get();
  if (e.empty()) {
    e = SetAttr(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g,
                mode_name);
  }
  if (e.empty())
    e = SetAttr(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode, mode_name);
  if (e.empty()) e = Finalize(heur, mode_name);
  constexpr int kMaxConfigs = 16;
  std::vector<Descriptor> configs(kMaxConfigs);
  std::vector<cudnnBackendDescriptor_t> raw(kMaxConfigs, nullptr);
  for (int i = 0; e.empty() && i < kMaxConfigs; ++i) {
    e = configs[i].Create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, "engine config");
    raw[i] = configs[i].get();
  }
  int64_t count = 0;
  if (e.empty()) {
    e = StatusText(
        cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                 CUDNN_TYPE_BACKEND_DESCRIPTOR, kMaxConfigs, &count, raw.data()),
        "get " + mode_name + " results");
  }
  if (!e.empty()) {
    *tries += "[" + e + "] ";
    return false;
  }
  if (count == 0) *tries += "[" + mode_name + ": no engine configuration] ";
  for (int64_t i = 0; i < count && i < kMaxConfigs; ++i) {
    Descriptor plan;
    const std::string what = mode_name + " config " + std::to_string(i);
    cudnnBackendDescriptor_t cfg = configs[i].get();
    std::string pe = plan.Create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, what);
    if (pe.empty())
      pe = SetAttr(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle, what);
    if (pe.empty()) {
      pe = SetAttr(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                   &cfg, what);
    }
    if (pe.empty()) pe = Finalize(plan, what);
    int64_t ws = 0, got = 0;
    if (pe.empty()) {
      pe = StatusText(cudnnBackendGetAttribute(plan.get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                               CUDNN_TYPE_INT64, 1, &got, &ws),
                      "get workspace size of " + what);
    }
    if (!pe.empty()) {
      *tries += "[" + pe + "] ";
      continue;
    }
    plan_ = std::move(plan);
    workspace_bytes_ = ws;
    engine_description_ = what;
    configs_ = std::move(configs);
    return true;
  }
  return false;
}

void GraphBuilder::BuildPlan(cudnnHandle_t handle) {
  if (!ok()) return;
  std::string tries;
  if (TryPlan(handle, CUDNN_HEUR_MODE_A, &tries)) return;
  if (TryPlan(handle, CUDNN_HEUR_MODE_FALLBACK, &tries)) return;
  Fail("cuDNN has no engine for this graph: " + tries);
}

}  // namespace flashscope::kernels::cudnn
