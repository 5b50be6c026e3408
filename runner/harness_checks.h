// The verdicts of the two checks that guard the harness itself rather than judge the kernel's
// numbers (docs/trust.md, "isolation" and "integrity"), free of CUDA so that CPU tests cover them:
//   isolation  what a case left changed in the device state every case shares (device limits,
//              cache preference, the launch stream's attributes, the current device), read back
//              after its launches and compared with the state the worker started with
//              (runner/case_isolation.h reads and restores it), and the host threads it left
//              running (runner/host_threads.h);
//   integrity  whether a launch wrote into a buffer it must leave alone (its inputs, the
//              references) or past the end of any buffer it was given (the guard bytes of
//              verify/device_buffer.h), found on the GPU (runner/buffer_integrity.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reports/trust_record.h"
#include "runner/host_threads.h"

namespace flashscope::runner {

// One setting of the shared device state, as read.
struct DeviceSetting {
  std::string name;              // "cudaLimitStackSize", "launch stream access-policy window"
  bool readable = false;         // false: the driver refused to read it (not compared)
  std::string value;             // as the report shows it ("1024 bytes", "none")
  uint64_t number = 0;           // for settings the driver itself raises (see grows_on_demand)
  bool grows_on_demand = false;  // the driver raises it for a kernel that needs more (stack
                                 // size): an increase is restored, recorded and not a failure
};

struct DeviceState {
  std::vector<DeviceSetting> settings;
};

// A setting that differs from the worker's starting state.
struct StateChange {
  std::string name;
  std::string before, after;
  bool violation = true;  // false for a driver-made increase of a grows_on_demand setting
};

// What differs between `start` (the worker's state before any kernel) and `now`, setting by
// setting (matched by name; a setting readable in one and not the other is a change too).
std::vector<StateChange> DiffDeviceState(const DeviceState& start, const DeviceState& now);

// The isolation check of one case: `changes` found after its launches; `restore_error` non-empty
// when putting the state back failed (the worker is then replaced before the next case);
// `threads` the host threads started during the case and still running at its end
// (runner/host_threads.h): each of the case's own is a violation, the harness's are noted.
reports::TrustCheckRecord CheckIsolation(const std::vector<StateChange>& changes,
                                         const std::string& restore_error, double cost_s,
                                         const std::vector<LeftThread>& threads = {});

// One watched region after a case's launches.
struct RegionVerdict {
  std::string buffer;  // "input q (set 0)", "reference (set 1)", "output o"
  std::string part;    // "content", "guard before", "guard after"
  uint64_t bytes = 0;
  bool changed = false;
  std::string launch;  // the earliest launch after which the change was seen
  // Content: the first changed chunk's byte offset; guard: the first changed byte, relative to
  // the buffer's start (negative before it, >= bytes past its end).
  int64_t offset = 0;
};

// The integrity check of one case over every region it watched, `checks` the number of times
// they were checked (after each verified and timed launch, and once after profiling).
reports::TrustCheckRecord CheckIntegrity(const std::vector<RegionVerdict>& regions, int checks,
                                         uint64_t chunk_bytes, double cost_s);

}  // namespace flashscope::runner
