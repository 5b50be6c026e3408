// The ab half of the CPU stand-in for flashscope-worker (fake_worker.cc, fake_worker_ab.cc).
#pragma once

#include "suites/worker_protocol.h"

#include <string>

// The environment variable `name`, "" when unset (fake_worker.cc).
std::string Env(const char* name);
// The bytes of the file at `path`, "" when it cannot be read (fake_worker.cc).
std::string ReadFile(const std::string& path);

// `plan` with --base and --new: both sides' plans.
int FakeAbPlan(const flashscope::suites::protocol::WorkerRequest& r);
// `ab`: the pairs of both journals, with synthetic interleaved samples.
int FakeAbRun(const flashscope::suites::protocol::WorkerRequest& r);
