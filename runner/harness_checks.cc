#include "runner/harness_checks.h"

#include <map>

#include "absl/strings/str_cat.h"

namespace flashscope::runner {

std::vector<StateChange> DiffDeviceState(const DeviceState& start, const DeviceState& now) {
  std::map<std::string, const DeviceSetting*> before;
  for (const DeviceSetting& s : start.settings) before[s.name] = &s;
  std::vector<StateChange> out;
  for (const DeviceSetting& s : now.settings) {
    auto it = before.find(s.name);
    if (it == before.end()) continue;  // nothing to compare with
    const DeviceSetting& b = *it->second;
    if (!b.readable && !s.readable) continue;
    const std::string was = b.readable ? b.value : "unreadable";
    const std::string is = s.readable ? s.value : "unreadable";
    if (b.readable && s.readable && b.value == s.value) continue;
    StateChange c{s.name, was, is, true};
    if (s.grows_on_demand && b.readable && s.readable && s.number > b.number) c.violation = false;
    out.push_back(std::move(c));
  }
  return out;
}

reports::TrustCheckRecord CheckIsolation(const std::vector<StateChange>& changes,
                                         const std::string& restore_error, double cost_s,
                                         const std::vector<LeftThread>& threads) {
  reports::TrustCheckRecord r;
  r.check = "isolation";
  r.rule =
      "after the case's launches, the device state every case shares (device limits, cache "
      "preference, persisting-L2 set-aside, the launch stream's access-policy window and "
      "synchronisation policy, the current device) equals the state the worker started with; it is "
      "restored (and persisting L2 lines reset) before every case; and no host thread the case "
      "started (other than the CUDA driver's, CUPTI's or the worker's own) is still running after "
      "its launches were synchronised and a grace period";
  int violations = 0;
  for (const StateChange& c : changes) {
    const std::string line = absl::StrCat(c.name, ": ", c.before, " -> ", c.after);
    if (c.violation) {
      ++violations;
      r.findings.push_back(line);
    } else {
      r.findings.push_back(
          absl::StrCat(line,
                       " (raised by the driver for a kernel that needs it; restored, not a "
                       "violation)"));
    }
  }
  const std::vector<std::string> thread_lines = DescribeLeftThreads(threads);
  int left_running = 0;
  for (size_t i = 0; i < threads.size(); ++i) {
    if (!threads[i].harness) ++left_running;
    r.findings.push_back(thread_lines[i]);
  }
  violations += left_running;
  if (!restore_error.empty()) {
    r.findings.push_back(absl::StrCat("could not restore the device state (", restore_error,
                                      "): the next case runs in a fresh worker"));
  }
  r.status = violations > 0 ? "failed" : "passed";
  r.values.push_back(
      {"changed_settings", static_cast<double>(violations - left_running), "settings"});
  r.values.push_back({"threads_left_running", static_cast<double>(left_running), "threads"});
  r.values.push_back({"cost_s", cost_s, "s"});
  return r;
}

reports::TrustCheckRecord CheckIntegrity(const std::vector<RegionVerdict>& regions, int checks,
                                         uint64_t chunk_bytes, double cost_s) {
  reports::TrustCheckRecord r;
  r.check = "integrity";
  r.rule = absl::StrCat(
      "no launch changes its inputs or the references (hashed on the GPU in ", chunk_bytes,
      "-byte chunks around the launches, outside the timing events), nor a byte of the guards "
      "before and after every buffer it is given");
  int changed = 0;
  for (const RegionVerdict& v : regions) {
    if (!v.changed) continue;
    ++changed;
    if (v.part == "content") {
      r.findings.push_back(absl::StrCat(v.launch, " changed ", v.buffer, " (", v.bytes,
                                        " bytes): first in bytes ", v.offset, "..",
                                        v.offset + static_cast<int64_t>(chunk_bytes) - 1));
    } else {
      r.findings.push_back(absl::StrCat(v.launch, " wrote out of bounds of ", v.buffer, " (",
                                        v.bytes, " bytes): the ", v.part,
                                        " changed at byte offset ", v.offset,
                                        v.offset < 0 ? " (before its start)" : " (past its end)"));
    }
  }
  r.status = changed > 0 ? "failed" : "passed";
  r.values.push_back({"regions_watched", static_cast<double>(regions.size()), "regions"});
  r.values.push_back({"checks", static_cast<double>(checks), "checks"});
  r.values.push_back({"regions_changed", static_cast<double>(changed), "regions"});
  r.values.push_back({"cost_s", cost_s, "s"});
  return r;
}

}  // namespace flashscope::runner
