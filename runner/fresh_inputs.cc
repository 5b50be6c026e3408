#include "runner/fresh_inputs.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace flashscope::runner {
namespace {

// Checks held on the device before their counts are copied back in one go.
constexpr int kSlots = 64;

}  // namespace

FreshLaunches::FreshLaunches(verify::Workspace& ws, SecretSeeds& seeds, cudaStream_t stream,
                             int samples)
    : ws_(ws), seeds_(seeds), stream_(stream), samples_(samples) {}

void FreshLaunches::Count(const std::string& kind) {
  if (kind == "verified") ++launches_.verified;
  if (kind == "warm-up") ++launches_.warmup;
  if (kind == "timed") ++launches_.timed;
  if (kind == "traced") ++launches_.traced;
  if (kind == "profiled") ++launches_.profiled;
}

absl::Status FreshLaunches::BeforeVerified() {
  if (!ws_.unread()) {
    if (absl::Status s = ws_.Redraw(seeds_.Next(), stream_); !s.ok()) return s;
    ++redraws_;
  }
  ws_.MarkRead();
  current_ = {"verified", launches_.verified, true, ws_.seed_of(0)};
  Count(current_.kind);
  return absl::OkStatus();
}

absl::Status FreshLaunches::Before(const char* kind, int index, bool poison) {
  current_ = {kind, index, poison, seeds_.Next()};
  Count(current_.kind);
  if (absl::Status s = ws_.GenerateInputs(current_.input_seed, stream_); !s.ok()) return s;
  if (!poison) return absl::OkStatus();
  ++poisoned_;
  return ws_.PoisonOutputs(stream_);
}

absl::Status FreshLaunches::After() {
  if (slots_.get() == nullptr) {
    if (absl::Status s = slots_.Allocate(kSlots * sizeof(verify::SampledCheckCounts),
                                         "sampled output check results");
        !s.ok()) {
      return s;
    }
  }
  if (static_cast<int>(pending_.size()) == kSlots) {
    if (absl::Status s = Collect(); !s.ok()) return s;
  }
  auto* slot = static_cast<verify::SampledCheckCounts*>(slots_.get()) + pending_.size();
  // The rows are drawn now, after the launch was enqueued: nothing the kernel saw names them.
  if (absl::Status s = ws_.EnqueueSampledCheck(samples_, seeds_.Next(), bound_, slot, stream_);
      !s.ok()) {
    return s;
  }
  pending_.push_back(current_);
  return absl::OkStatus();
}

absl::Status FreshLaunches::Collect() {
  if (pending_.empty()) return absl::OkStatus();
  std::vector<verify::SampledCheckCounts> host(pending_.size());
  if (absl::Status s = verify::CudaStatus(
          cudaMemcpyAsync(host.data(), slots_.get(), host.size() * sizeof(host[0]),
                          cudaMemcpyDeviceToHost, stream_),
          "copying sampled output checks to the host");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = verify::CudaStatus(cudaStreamSynchronize(stream_), "sampled output checks");
      !s.ok()) {
    return s;
  }
  for (size_t i = 0; i < host.size(); ++i) {
    // The rule on this launch's own inputs (verify/sampled_verdict.h).
    const verify::SampledCheckCounts h = verify::ApplyDrawBaseline(host[i], rule_);
    reports::LaunchOutputCheck c;
    c.kind = pending_[i].kind;
    c.launch = pending_[i].index;
    c.poisoned_before = pending_[i].poisoned;
    c.input_seed = pending_[i].input_seed;
    c.rows = static_cast<int64_t>(h.rows);
    c.bad = static_cast<int64_t>(h.bad);
    c.never_written = static_cast<int64_t>(h.never_written);
    c.nonfinite = static_cast<int64_t>(h.nonfinite);
    c.lse_bad = static_cast<int64_t>(h.lse_bad);
    c.bad_rows = static_cast<int64_t>(h.bad_rows);
    c.max_abs = verify::BitsToFloat(h.max_abs_bits);
    checks_.push_back(c);
  }
  pending_.clear();
  return absl::OkStatus();
}

std::string FreshLaunches::Describe() const {
  return absl::StrFormat(
      "fresh inputs for each of %d launches (%d verified, %d warm-up, %d timed, %d traced, %d "
      "profiled), generated on the GPU from seeds the harness drew before each launch (%d "
      "redraw(s) of the verified inputs with their full reference); %d sampled rows (gemm: "
      "entries) checked after each launch; output re-poisoned before %d launches, left stale "
      "before the rest",
      launches_.total(), launches_.verified, launches_.warmup, launches_.timed, launches_.traced,
      launches_.profiled, redraws_, samples_, poisoned_);
}

}  // namespace flashscope::runner
