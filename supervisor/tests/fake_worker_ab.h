// The ab half of the CPU stand-in for flashscope-worker (fake_worker.cc, fake_worker_ab.cc).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reports/plan.h"
#include "reports/report.h"
#include "suites/suite.h"
#include "protocol/worker_protocol.h"

// The environment variable `name`, "" when unset (fake_worker.cc).
std::string Env(const char* name);
// The bytes of the file at `path`, "" when it cannot be read (fake_worker.cc).
std::string ReadFile(const std::string& path);

// The GPUs FAKE_DEVICES names (fake_worker.cc).
std::vector<flashscope::reports::DeviceRecord> FakeDevices();
// The GPU this process runs on: the one CUDA_VISIBLE_DEVICES pins it to, else the first; none
// when it names a GPU FAKE_DEVICES does not (fake_worker.cc).
std::optional<flashscope::reports::DeviceRecord> MyDevice();
// The plan's cases: each of `suite`'s problems with each planned kernel, problem-major
// (fake_worker.cc).
void AddCases(const flashscope::suites::Suite& suite, flashscope::reports::PlanRecord* plan);
// Writes `result` to r.plan_out with the GPUs FAKE_DEVICES names, or none under FAKE_NO_GPU;
// returns the exit code (fake_worker.cc).
int WritePlanningResult(const flashscope::suites::protocol::WorkerRequest& r,
                        flashscope::suites::protocol::PlanningResult result);
// Appends a line to the FAKE_EVENTS file, if set (fake_worker.cc).
void Event(const std::string& line);

// `plan` with --base and --new: both sides' plans.
int FakeAbPlan(const flashscope::suites::protocol::WorkerRequest& r);
// `ab`: the pairs of both journals, with synthetic interleaved samples.
int FakeAbRun(const flashscope::suites::protocol::WorkerRequest& r);
