#include "verify/workspace.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <system_error>
#include <tuple>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "verify/half_convert.h"
#include "verify/input_generators.h"
#include "verify/npy.h"

namespace flashscope::verify {
int64_t Workspace::DeviceBytesNeeded(const Problem& p) {
  const BufferSizes s = BufferSizesOf(p);
  // One slot, the kept fp32 reference and, while it is drawn, the baseline (fp32) and the
  // reference lse.
  return s.SlotBytes() + 4 * s.output_elements + 4 * s.output_elements + 4 * s.lse_elements;
}

DType Workspace::output_dtype() const {
  if (const auto* a = std::get_if<AttentionProblem>(&problem_)) {
    return AttentionOutputDType(a->dtype);  // E4M3 attention writes BF16
  }
  return DType::kF32;
}

int64_t Workspace::output_elements() const { return BufferSizesOf(problem_).output_elements; }

const void* Workspace::input(int i, int slot) const {
  if (slot < 0 || slot >= num_slots()) return nullptr;
  return i >= 0 && i < num_inputs() ? slots_[slot].inputs[i].get() : nullptr;
}

void* Workspace::output(int slot) {
  return slot >= 0 && slot < num_slots() ? slots_[slot].output.get() : nullptr;
}

float* Workspace::lse(int slot) {
  return slot >= 0 && slot < num_slots() ? slots_[slot].lse.f32() : nullptr;
}

absl::Status Workspace::UseSlot(int slot) {
  if (slot < 0 || slot >= num_slots()) {
    return absl::InvalidArgumentError(
        absl::StrCat("no buffer slot ", slot, ": the workspace holds ", num_slots()));
  }
  current_ = slot;
  return absl::OkStatus();
}

std::string Workspace::reference_name() const {
  return std::holds_alternative<GemmProblem>(problem_)
             ? ReferencePrecisionName(ReferencePrecision::kFp64)
             : ReferencePrecisionName(options_.precision);
}

absl::StatusOr<std::unique_ptr<Workspace>> Workspace::Create(const Problem& p,
                                                             const WorkspaceOptions& options,
                                                             cudaStream_t stream) {
  const std::string key = ProblemKey(p);
  if (const auto* a = std::get_if<AttentionProblem>(&p)) {
    if (a->batch <= 0 || a->heads <= 0 || a->seq_q <= 0 || a->seq_k <= 0 || a->head_dim <= 0 ||
        a->head_dim > kReferenceMaxHeadDim) {
      return absl::InvalidArgumentError(absl::StrCat(
          key, ": the verifier supports positive sizes and head_dim up to ", kReferenceMaxHeadDim));
    }
  } else {
    const auto& g = std::get<GemmProblem>(p);
    if (g.m <= 0 || g.n <= 0 || g.k <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(key, ": M, N and K must be positive"));
    }
  }
  if (options.slots < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(key, ": slots must be >= 1, got ", options.slots));
  }
  size_t free_b = 0, total_b = 0;
  if (cudaError_t e = cudaMemGetInfo(&free_b, &total_b); e != cudaSuccess) {
    return CudaStatus(e, "cudaMemGetInfo (is there a usable GPU?)");
  }
  const int64_t needed = DeviceBytesNeeded(p);
  if (needed > static_cast<int64_t>(free_b)) {
    return absl::ResourceExhaustedError(absl::StrCat(
        key, " needs ", GiB(static_cast<double>(needed)), " of device memory to verify; ",
        GiB(static_cast<double>(free_b)), " free of ", GiB(static_cast<double>(total_b))));
  }
  const SlotPlan plan =
      PlanSlots(options.slots, BufferSizesOf(p).SlotBytes(), needed, static_cast<int64_t>(free_b));
  std::unique_ptr<Workspace> ws(new Workspace(p, options));
  ws->slots_note_ = plan.note;
  if (absl::Status s = ws->Initialise(plan.slots, stream); !s.ok()) {
    if (absl::IsResourceExhausted(s)) {
      return absl::ResourceExhaustedError(
          absl::StrCat(key, " needs ", GiB(static_cast<double>(needed)),
                       " of device memory to verify; ", s.message()));
    }
    return absl::Status(s.code(), absl::StrCat(key, ": ", s.message()));
  }
  return ws;
}

absl::Status Workspace::Initialise(int slots, cudaStream_t stream) {
  slots_.resize(static_cast<size_t>(slots));
  for (size_t i = 0; i < slots_.size(); ++i) {
    if (absl::Status st = AllocateSlot(slots_[i]); !st.ok()) {
      return slots_.size() == 1
                 ? st
                 : absl::Status(st.code(), absl::StrCat("buffer slot ", i, ": ", st.message()));
    }
  }
  if (absl::Status st = reference_device_.Allocate(4 * BufferSizesOf(problem_).output_elements,
                                                   "reference output");
      !st.ok()) {
    return st;
  }
  if (absl::Status st = AllocateHost(); !st.ok()) return st;
  seed_ = options_.seed;
  return Draw(stream);
}

absl::Status Workspace::AllocateHost() {
  const BufferSizes s = BufferSizesOf(problem_);
  const size_t out = static_cast<size_t>(4 * s.output_elements);
  const size_t lse = static_cast<size_t>(4 * s.lse_elements);
  // What verification compares with stays out of every kernel's reach (host_buffer.h, Pinning);
  // the kernel's own output and lse, copied after its launch, come back pinned.
  constexpr Pinning kSafe = Pinning::kPageable;
  for (auto [buffer, bytes, what, pinning] :
       {std::tuple{&reference_, out, "the reference", kSafe},
        std::tuple{&baseline_, out, "the baseline", kSafe},
        std::tuple{&reference_lse_, lse, "the reference lse", kSafe},
        std::tuple{&output_host_, static_cast<size_t>(s.output_bytes), "the kernel's output",
                   Pinning::kPinned},
        std::tuple{&lse_host_, lse, "the kernel's lse", Pinning::kPinned}}) {
    if (absl::Status st = buffer->Allocate(bytes, what, pinning); !st.ok()) return st;
  }
  return absl::OkStatus();
}

absl::Status Workspace::AllocateSlot(Slot& slot) {
  const BufferSizes s = BufferSizesOf(problem_);
  static const char* const kInputNames[2][3] = {{"q", "k", "v"}, {"a", "b", ""}};
  const bool attn = std::holds_alternative<AttentionProblem>(problem_);
  for (int i = 0; i < num_inputs(); ++i) {
    if (absl::Status st = slot.inputs[i].Allocate(s.input_bytes[i], kInputNames[attn ? 0 : 1][i]);
        !st.ok()) {
      return st;
    }
  }
  if (absl::Status st = slot.output.Allocate(s.output_bytes, "output"); !st.ok()) return st;
  return slot.lse.Allocate(4 * s.lse_elements, "lse");
}

absl::Status Workspace::Draw(cudaStream_t stream) {
  const BufferSizes s = BufferSizesOf(problem_);
  Slot& slot = slots_[0];
  baseline_stats_valid_ = false;
  const bool attn = std::holds_alternative<AttentionProblem>(problem_);
  DeviceBuffer& ref = reference_device_;
  DeviceBuffer ref_lse, base;
  if (absl::Status st = ref_lse.Allocate(4 * s.lse_elements, "reference lse"); !st.ok()) return st;
  if (absl::Status st = base.Allocate(4 * s.output_elements, "baseline output"); !st.ok())
    return st;
  const void* in[3] = {slot.inputs[0].get(), slot.inputs[1].get(), slot.inputs[2].get()};

  const std::string kind(InputKindName(options_.input));
  if (attn) {
    const auto& a = std::get<AttentionProblem>(problem_);
    if (absl::Status st =
            CudaStatus(GenerateAttentionInputs(a, options_.input, seed_, slot.inputs[0].get(),
                                               slot.inputs[1].get(), slot.inputs[2].get(), stream),
                       "generating " + kind + " attention inputs");
        !st.ok()) {
      return st;
    }
    if (absl::Status st =
            CudaStatus(AttentionReferenceGpu(a, in[0], in[1], in[2], options_.precision, ref.f32(),
                                             ref_lse.f32(), stream),
                       "attention reference");
        !st.ok()) {
      return st;
    }
    if (absl::Status st = CudaStatus(
            AttentionSamePrecisionBaselineGpu(a, in[0], in[1], in[2], base.f32(), stream),
            "attention same-precision baseline");
        !st.ok()) {
      return st;
    }
  } else {
    const auto& g = std::get<GemmProblem>(problem_);
    if (absl::Status st =
            CudaStatus(GenerateGemmInputs(g, options_.input, seed_, slot.inputs[0].get(),
                                          slot.inputs[1].get(), stream),
                       "generating " + kind + " gemm inputs");
        !st.ok()) {
      return st;
    }
    if (absl::Status st = CudaStatus(
            GemmReferenceGpu(g, in[0], in[1], ReferencePrecision::kFp64, ref.f32(), stream),
            "gemm reference (fp64)");
        !st.ok()) {
      return st;
    }
    // fp16/bf16/e4m3 gemms run on tensor cores, whose accumulation truncates: the baseline
    // follows (gpu_reference.h); fp32 inputs keep the in-order round-to-nearest fp32 sum.
    const bool tensor_core_inputs = g.dtype != DType::kF32;
    const cudaError_t base_error =
        tensor_core_inputs
            ? GemmTensorCoreBaselineGpu(g, in[0], in[1], base.f32(), stream)
            : GemmReferenceGpu(g, in[0], in[1], ReferencePrecision::kFp32, base.f32(), stream);
    if (absl::Status st =
            CudaStatus(base_error, tensor_core_inputs ? "gemm baseline (tensor-core accumulation)"
                                                      : "gemm baseline (fp32)");
        !st.ok()) {
      return st;
    }
  }
  // Into the workspace's own host buffers: no allocation, and no page faults where pinned.
  for (auto [from, to, what] :
       {std::tuple{ref.get(), &reference_, "copying the reference to the host"},
        std::tuple{base.get(), &baseline_, "copying the baseline to the host"},
        std::tuple{ref_lse.get(), &reference_lse_, "copying the reference lse to the host"}}) {
    if (to->bytes() == 0) continue;
    if (absl::Status st = CudaStatus(
            cudaMemcpyAsync(to->data(), from, to->bytes(), cudaMemcpyDeviceToHost, stream), what);
        !st.ok()) {
      return st;
    }
  }
  return CudaStatus(cudaStreamSynchronize(stream),
                    "synchronising the stream (a kernel before this copy failed?)");
}

absl::StatusOr<std::vector<float>> Workspace::ToHostFloat(const void* buf, DType t, int64_t n,
                                                          cudaStream_t stream) {
  std::vector<float> out(static_cast<size_t>(n));
  if (n == 0) return out;
  if (t == DType::kF32) {
    if (absl::Status st =
            CudaStatus(cudaMemcpyAsync(out.data(), buf, 4 * n, cudaMemcpyDeviceToHost, stream),
                       "copying a result to the host");
        !st.ok()) {
      return st;
    }
  } else {
    std::vector<unsigned char> raw(static_cast<size_t>(n) * DTypeBytes(t));  // 2 or 1 a value
    if (absl::Status st =
            CudaStatus(cudaMemcpyAsync(raw.data(), buf, raw.size(), cudaMemcpyDeviceToHost, stream),
                       "copying a result to the host");
        !st.ok()) {
      return st;
    }
    if (absl::Status st = CudaStatus(cudaStreamSynchronize(stream), "synchronising the stream");
        !st.ok()) {
      return st;
    }
    ConvertToFloat(raw.data(), t, n, out.data());
    return out;
  }
  if (absl::Status st = CudaStatus(cudaStreamSynchronize(stream),
                                   "synchronising the stream (a kernel before this copy failed?)");
      !st.ok()) {
    return st;
  }
  return out;
}

absl::Status Workspace::PoisonOutputs(cudaStream_t stream) {
  Slot& slot = slots_[current_];
  if (absl::Status st = CudaStatus(PoisonBytes(slot.output.get(), slot.output.bytes(), stream),
                                   "poisoning the output");
      !st.ok()) {
    return st;
  }
  if (slot.lse.get() == nullptr) return absl::OkStatus();
  return CudaStatus(PoisonBytes(slot.lse.get(), slot.lse.bytes(), stream),
                    "poisoning the lse output");
}

const ErrorStats& Workspace::BaselineStats(Tolerance tol) {
  if (!baseline_stats_valid_ || baseline_tol_.atol != tol.atol || baseline_tol_.rtol != tol.rtol) {
    baseline_stats_ = ComputeErrorStats(baseline_.data(), DType::kF32, reference_.floats().data(),
                                        output_elements(), tol);
    baseline_tol_ = tol;
    baseline_stats_valid_ = true;
  }
  return baseline_stats_;
}

absl::Status Workspace::EnqueueOutputCheck(const ElementBound& bound, OutputCheckCounts* counts,
                                           cudaStream_t stream) {
  const ElementBoundDevice b{bound.absolute ? 1 : 0, bound.max_abs, bound.atol, bound.rtol};
  return CudaStatus(
      LaunchOutputCheck(slots_[0].output.get(), output_dtype(), reference_device_.f32(),
                        output_elements(), b, counts, stream),
      "output check launch");
}

absl::StatusOr<VerificationResult> Workspace::Verify(const TolerancePolicy& policy,
                                                     const HeatmapOptions& heatmaps,
                                                     cudaStream_t stream) {
  const Slot& slot = slots_[0];
  if (absl::Status st =
          CudaStatus(cudaMemcpyAsync(output_host_.data(), slot.output.get(), output_host_.bytes(),
                                     cudaMemcpyDeviceToHost, stream),
                     "copying the kernel's output to the host");
      !st.ok()) {
    return st;
  }
  if (lse_host_.bytes() > 0) {
    if (absl::Status st =
            CudaStatus(cudaMemcpyAsync(lse_host_.data(), slot.lse.get(), lse_host_.bytes(),
                                       cudaMemcpyDeviceToHost, stream),
                       "copying the kernel's lse to the host");
        !st.ok()) {
      return st;
    }
  }
  if (absl::Status st = CudaStatus(cudaStreamSynchronize(stream),
                                   "synchronising after the kernel (did the kernel fault?)");
      !st.ok()) {
    return st;
  }
  VerificationResult r;
  r.policy = policy;
  r.reference_name = reference_name();
  const Tolerance tol{policy.atol, policy.rtol};
  // The heatmaps are accumulated in the statistics' own pass over the output (error_stats.h).
  std::optional<HeatmapAccumulator> maps;
  if (heatmaps.enabled) {
    if (const auto* a = std::get_if<AttentionProblem>(&problem_)) {
      maps = HeatmapAccumulator::ForAttention(*a, heatmaps.block_m, heatmaps.max_side);
    } else {
      maps = HeatmapAccumulator::ForGemm(std::get<GemmProblem>(problem_), heatmaps.block_m,
                                         heatmaps.block_n, heatmaps.max_side);
    }
  }
  r.stats = ComputeErrorStats(output_host_.data(), output_dtype(), reference_.floats().data(),
                              output_elements(), tol, maps ? &*maps : nullptr);
  if (maps) r.heatmaps = maps->Finish();
  r.has_baseline = true;
  r.baseline = BaselineStats(tol);
  r.ratio_to_baseline = r.baseline.max_abs > 0 ? r.stats.max_abs / r.baseline.max_abs : 0;
  r.verdict = Decide(r.stats, &r.baseline, policy);
  if (lse_host_.bytes() > 0) {
    r.lse_checked = true;
    const absl::Span<const float> lse = lse_host_.floats();
    r.lse = ComputeLseStats(lse.data(), reference_lse_.floats().data(),
                            static_cast<int64_t>(lse.size()), {policy.lse_atol, policy.lse_rtol});
    r.lse_max_abs = r.lse.max_abs;
    r.verdict = ApplyLseCheck(r.verdict, r.lse, policy);
  }
  return r;
}

absl::Status Workspace::DumpNpy(const std::string& dir, cudaStream_t stream) {
  const Slot& slot = slots_[0];
  const DeviceBuffer& output = slot.output;
  const DeviceBuffer& lse = slot.lse;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot create the dump directory ", dir, ": ", ec.message()));
  }
  const std::filesystem::path base(dir);
  nlohmann::json files = nlohmann::json::object();
  auto write = [&](const std::string& name, absl::Span<const float> data,
                   const std::vector<int64_t>& shape) -> absl::Status {
    const std::string file = name + ".npy";
    files[name] = {{"file", file}, {"shape", shape}};
    return WriteNpy((base / file).string(), data.data(), shape);
  };
  nlohmann::json meta;
  std::vector<int64_t> out_shape;
  std::vector<std::pair<std::string, std::vector<int64_t>>> inputs;
  if (const auto* a = std::get_if<AttentionProblem>(&problem_)) {
    out_shape = {a->batch, a->heads, a->seq_q, a->head_dim};
    const std::vector<int64_t> kv = {a->batch, a->heads, a->seq_k, a->head_dim};
    inputs = {{"q", out_shape}, {"k", kv}, {"v", kv}};
    meta = {{"batch", a->batch},
            {"heads", a->heads},
            {"seq_q", a->seq_q},
            {"seq_k", a->seq_k},
            {"head_dim", a->head_dim},
            {"causal", a->causal},
            {"want_lse", a->want_lse},
            {"softmax_scale", 1.0 / std::sqrt(static_cast<double>(a->head_dim))},
            {"causal_rule", "bottom-right: query i sees keys j <= i + seq_k - seq_q"}};
  } else {
    const auto& g = std::get<GemmProblem>(problem_);
    out_shape = {g.m, g.n};
    inputs = {{"a", {g.m, g.k}}, {"b", {g.k, g.n}}};
    meta = {{"m", g.m}, {"n", g.n}, {"k", g.k}};
  }
  const DType in_dtype = std::holds_alternative<AttentionProblem>(problem_)
                             ? std::get<AttentionProblem>(problem_).dtype
                             : std::get<GemmProblem>(problem_).dtype;
  absl::StatusOr<std::vector<float>> out =
      ToHostFloat(output.get(), output_dtype(), output_elements(), stream);
  if (!out.ok()) return out.status();
  if (absl::Status st = write("output", *out, out_shape); !st.ok()) return st;
  if (absl::Status st = write("reference", reference(), out_shape); !st.ok()) return st;
  if (absl::Status st = write("baseline", baseline(), out_shape); !st.ok()) return st;
  for (int i = 0; i < num_inputs(); ++i) {
    int64_t n = 1;
    for (int64_t d : inputs[i].second) n *= d;
    absl::StatusOr<std::vector<float>> values =
        ToHostFloat(slot.inputs[i].get(), in_dtype, n, stream);
    if (!values.ok()) return values.status();
    if (absl::Status st = write(inputs[i].first, *values, inputs[i].second); !st.ok()) return st;
  }
  if (lse.get() != nullptr) {
    const auto& a = std::get<AttentionProblem>(problem_);
    const std::vector<int64_t> shape = {a.batch, a.heads, a.seq_q};
    absl::StatusOr<std::vector<float>> l =
        ToHostFloat(lse.get(), DType::kF32, a.LseElements(), stream);
    if (!l.ok()) return l.status();
    if (absl::Status st = write("lse", *l, shape); !st.ok()) return st;
    if (absl::Status st = write("lse_reference", reference_lse(), shape); !st.ok()) return st;
  }
  nlohmann::json doc = {
      {"problem_key", ProblemKey(problem_)},
      {"family", std::string(FamilyName(FamilyOf(problem_)))},
      {"dtype", std::string(DTypeName(in_dtype))},
      {"output_dtype", std::string(DTypeName(output_dtype()))},
      {"shape", meta},
      {"input_kind", std::string(InputKindName(options_.input))},
      {"seed", seed_},
      {"reference", reference_name()},
      {"files", files},
      {"note",
       "float32 C-order arrays; inputs are the exact values the kernel read (converted from the "
       "problem's dtype), output is what it wrote (never-written elements read as NaN). "
       "In numpy: np.load(dir + '/output.npy') - np.load(dir + '/reference.npy')."}};
  const std::string json_path = (base / "problem.json").string();
  std::ofstream f(json_path);
  f << doc.dump(2) << "\n";
  f.close();
  if (!f) return absl::DataLossError(absl::StrCat("writing ", json_path, " failed"));
  return absl::OkStatus();
}

}  // namespace flashscope::verify
