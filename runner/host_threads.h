// Host threads a case leaves running (docs/trust.md, "isolation"). A plugin shares the worker's
// process: a thread it starts in one case can launch GPU work during the next (issue 29 measured
// it: test.cheat_host_thread's thread ran a kernel inside the honest case after it). The worker
// reads its thread set (/proc/self/task) when a case starts and again when it ends; a thread
// started in between that is still alive after a device synchronisation and a grace period, and
// that was not started by the CUDA driver, CUPTI or the worker itself (runner/thread_origin.h),
// fails the case's isolation check, and the worker ends after that case so that the next case
// runs in a fresh process. Free of CUDA: the CPU tests cover it.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace flashscope::runner {

struct HostThread {
  int tid = 0;
  // Start time in clock ticks since boot (/proc/.../stat field 22): a tid the kernel reused for
  // a new thread is a different thread.
  unsigned long long start_ticks = 0;
  std::string name;  // /proc/.../comm
};

// The threads of this process (`task_dir`: /proc/self/task, or another process's in tests),
// ordered by tid. A thread that ends while it is read is left out.
std::vector<HostThread> ReadHostThreads(const std::string& task_dir = "/proc/self/task");

// The threads of `now` that are not in `before` (same tid and start time).
std::vector<HostThread> StartedSince(const std::vector<HostThread>& before,
                                     const std::vector<HostThread>& now);

// A thread a case started and left running, and who started it.
struct LeftThread {
  HostThread thread;
  std::string creator;   // the file whose code started it; "" when unknown
  bool harness = false;  // started by the CUDA driver, CUPTI or the worker: not the case's
};

// True when `creator` (ThreadCreator's answer) is the harness's own: the worker executable
// `worker_exe`, or a library of the CUDA driver or its tools (libcuda, libcupti, libnvperf,
// libcudart, libnvidia-*), which start threads of their own when the harness first traces or
// profiles, inside a case. An unknown creator is not the harness's.
bool IsHarnessCreator(const std::string& creator, const std::string& worker_exe);

// How long a thread the case started may take to end after its launches were synchronised: it
// has nothing left to wait for, so one it is still running after this is left running. Linux's
// scheduler runs every runnable thread within one scheduling period (sched_latency: 6 ms x
// (1 + log2(CPUs)), 24 ms on 8+ CPUs); four periods cover a loaded host. Waited only when a
// case's thread is alive at the end (never for an honest case).
inline constexpr std::chrono::milliseconds kThreadGrace{100};

// The threads started since `before` that are alive now, each with its creator
// (`creator_of(tid)`) and whether it is the harness's. The case's own ones get until `grace` to
// end (polled every millisecond through `read_now`); those that end drop out.
std::vector<LeftThread> ThreadsLeftRunning(const std::vector<HostThread>& before,
                                           const std::function<std::vector<HostThread>()>& read_now,
                                           const std::function<std::string(int tid)>& creator_of,
                                           const std::string& worker_exe,
                                           std::chrono::milliseconds grace);

// True when any of `left` is the case's (not the harness's).
bool AnyCaseThread(const std::vector<LeftThread>& left);

// One isolation finding per thread: "host thread 4242 'worker' started during the case by
// /x/libplugin.so is still running after its launches (...)", or for the harness's own a note.
std::vector<std::string> DescribeLeftThreads(const std::vector<LeftThread>& left);

}  // namespace flashscope::runner
