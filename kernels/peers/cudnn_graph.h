// A thin, owning layer over cuDNN's C backend API (cudnnBackend* descriptors), enough to describe
// an operation graph of tensors, matmuls, pointwise ops and reductions, and to turn it into an
// execution plan. Written against cudnn_graph.h directly (no cudnn-frontend): every call's status
// is checked and failures come back as text that carries cuDNN's own message
// (cudnnGetLastErrorString), so that a skipped or failed case says why in the report.
#pragma once

#include <cudnn.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace flashscope::kernels::cudnn {

// "" on success, else "<what>: <status name>: <cuDNN's last error message>".
std::string StatusText(cudnnStatus_t status, const std::string& what);

// Owns one backend descriptor; destroyed with the object. Move-only.
class Descriptor {
 public:
  Descriptor() = default;
  ~Descriptor();
  Descriptor(Descriptor&& other) noexcept : desc_(other.desc_) { other.desc_ = nullptr; }
  Descriptor& operator=(Descriptor&& other) noexcept;
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;

  // Creates a descriptor of `type`; returns "" or the error text.
  std::string Create(cudnnBackendDescriptorType_t type, const std::string& what);
  cudnnBackendDescriptor_t get() const { return desc_; }

 private:
  cudnnBackendDescriptor_t desc_ = nullptr;
};

// Sets one attribute; returns "" or the error text naming `what`.
std::string SetAttr(const Descriptor& d, cudnnBackendAttributeName_t name,
                    cudnnBackendAttributeType_t type, int64_t count, const void* values,
                    const std::string& what);
std::string Finalize(const Descriptor& d, const std::string& what);

struct TensorSpec {
  int64_t uid = 0;
  cudnnDataType_t dtype = CUDNN_DATA_FLOAT;
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;
  bool is_virtual = false;  // an intermediate that never reaches memory
  bool by_value = false;    // a host scalar passed in the variant pack
};

// Strides of a packed tensor whose last dimension is contiguous.
std::vector<int64_t> PackedStrides(const std::vector<int64_t>& dims);

// Collects finalized tensors and operations, then builds the operation graph and a plan. Not
// thread-safe; one builder per graph.
class GraphBuilder {
 public:
  // Each returns the index of the created tensor (for use as an operand), or -1 after an error;
  // the first error is kept in error() and makes later calls no-ops.
  int Tensor(const TensorSpec& spec);
  // A virtual tensor shaped like `like`, of type `dtype`, with a fresh uid.
  int VirtualLike(int like, cudnnDataType_t dtype);
  int VirtualShaped(const std::vector<int64_t>& dims, cudnnDataType_t dtype);

  void Matmul(int a, int b, int c, const std::string& name);
  // y = mode(x [, b] [, t]); `axis` only for CUDNN_POINTWISE_GEN_INDEX.
  void Pointwise(cudnnPointwiseMode_t mode, cudnnDataType_t math, int x, int b, int t, int y,
                 const std::string& name, int64_t axis = -1);
  void Reduction(cudnnReduceTensorOp_t op, int x, int y, const std::string& name);

  // Finalizes the operation graph on `handle`.
  void BuildGraph(cudnnHandle_t handle);

  // Asks the heuristics (mode A, then the fallback list) for engine configurations and keeps the
  // first that finalizes into a plan. On failure, error() lists what each try answered.
  void BuildPlan(cudnnHandle_t handle);

  const std::string& error() const { return error_; }
  bool ok() const { return error_.empty(); }
  const Descriptor& plan() const { return plan_; }
  int64_t workspace_bytes() const { return workspace_bytes_; }
  std::string engine_description() const { return engine_description_; }

 private:
  void Fail(const std::string& e) {
    if (error_.empty()) error_ = e;
  }
  bool TryPlan(cudnnHandle_t handle, cudnnBackendHeurMode_t mode, std::string* tries);

  std::vector<TensorSpec> specs_;
  std::vector<Descriptor> tensors_;
  std::vector<Descriptor> ops_;
  std::vector<Descriptor> op_attrs_;  // matmul/pointwise/reduction descriptors the ops refer to
  Descriptor graph_;
  std::vector<Descriptor> configs_;  // heuristics results, kept alive beside the chosen plan
  Descriptor plan_;
  int64_t workspace_bytes_ = 0;
  int64_t next_virtual_uid_ = 1000;
  std::string engine_description_;
  std::string error_;
};

}  // namespace flashscope::kernels::cudnn
