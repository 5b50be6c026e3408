// The ab half of the CPU stand-in for flashscope-worker (fake_worker.cc, fake_worker_ab.cc).
#pragma once

#include "suites/worker_protocol.h"

// `plan` with --base and --new: both sides' plans.
int FakeAbPlan(const flashscope::suites::protocol::WorkerRequest& r);
// `ab`: the pairs of both journals, with synthetic interleaved samples.
int FakeAbRun(const flashscope::suites::protocol::WorkerRequest& r);
