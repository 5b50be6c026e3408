#include "runner/fresh_inputs.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace flashscope::runner {
namespace {

// Checks held on the device before their counts are copied back in one go.
constexpr int kPendingChecks = 64;

}  // namespace

FreshLaunches::FreshLaunches(verify::Workspace& ws, SecretSeeds& seeds, cudaStream_t stream,
                             int samples)
    : ws_(ws), seeds_(seeds), stream_(stream), samples_(samples), rotation_(ws.num_slots()) {}

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
  if (absl::Status s = ws_.UseSlot(rotation_.Verified()); !s.ok()) return s;
  ws_.MarkRead();
  current_ = {"verified", launches_.verified, true, ws_.seed()};
  Count(current_.kind);
  return absl::OkStatus();
}

absl::Status FreshLaunches::Before(const char* kind, int index, bool poison) {
  // The slot and the inputs' seed are drawn apart: knowing one tells nothing of the other.
  const int slot = forced_slot_ >= 0 ? rotation_.Use(forced_slot_) : rotation_.Next(seeds_);
  forced_slot_ = -1;
  if (absl::Status s = ws_.UseSlot(slot); !s.ok()) return s;
  current_ = {kind, index, poison, seeds_.Next()};
  Count(current_.kind);
  if (absl::Status s = ws_.GenerateInputs(current_.input_seed, stream_); !s.ok()) return s;
  if (!poison) return absl::OkStatus();
  ++poisoned_;
  return ws_.PoisonOutputs(stream_);
}

absl::Status FreshLaunches::After() {
  if (pending_counts_.get() == nullptr) {
    if (absl::Status s = pending_counts_.Allocate(
            kPendingChecks * sizeof(verify::SampledCheckCounts), "sampled output check results");
        !s.ok()) {
      return s;
    }
  }
  if (static_cast<int>(pending_.size()) == kPendingChecks) {
    if (absl::Status s = Collect(); !s.ok()) return s;
  }
  auto* counts = static_cast<verify::SampledCheckCounts*>(pending_counts_.get()) + pending_.size();
  // The rows are drawn now, after the launch was enqueued: nothing the kernel saw names them. The
  // check reads the slot the launch was given (still the workspace's current one).
  if (absl::Status s = ws_.EnqueueSampledCheck(samples_, seeds_.Next(), bound_, counts, stream_);
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
          cudaMemcpyAsync(host.data(), pending_counts_.get(), host.size() * sizeof(host[0]),
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
  std::string out = absl::StrFormat(
      "fresh inputs for each of %d launches (%d verified, %d warm-up, %d timed, %d traced, %d "
      "profiled), generated on the GPU from seeds the harness drew before each launch (%d "
      "redraw(s) of the verified inputs with their full reference); %d sampled rows (gemm: "
      "entries) checked after each launch; output re-poisoned before %d launches, left stale "
      "before the rest; ",
      launches_.total(), launches_.verified, launches_.warmup, launches_.timed, launches_.traced,
      launches_.profiled, redraws_, samples_, poisoned_);
  if (rotation_.slots() == 1) {
    absl::StrAppend(&out, "buffers not rotated: ", ws_.slots_note(),
                    ", every launch given the same addresses");
    return out;
  }
  absl::StrAppend(&out, "buffers rotated: ", ws_.slots_note(),
                  ", each launch given a slot drawn before it (launches per slot: ",
                  absl::StrJoin(rotation_.launches(), ", "), "; the verified launch in slot 0)");
  return out;
}

}  // namespace flashscope::runner
