// Who started each host thread of the worker (docs/trust.md, "isolation"): the worker defines
// pthread_create itself (thread_origin.cc; flashscope-worker exports the symbol, so the CUDA
// driver, CUPTI, a plugin and its libraries all start their threads through it), records the
// return addresses of the call, and hands the thread over to the C library's pthread_create.
// A case's host threads are then told apart by the code that started them: the CUDA driver's,
// CUPTI's and the worker's own (started when the harness first traces or profiles, in the middle
// of a case) against a plugin's (runner/host_threads.h). A thread started without
// pthread_create (a raw clone, a pthread_create looked up past this one) has no origin.
#pragma once

#include <string>

namespace flashscope::runner {

// The file of the code that started thread `tid` (its creator: the first caller outside the C
// and C++ runtime libraries, which std::thread and the like go through), "" when the thread was
// not started through this process's pthread_create or the file cannot be found.
std::string ThreadCreator(int tid);

// This process's executable (/proc/self/exe), as ThreadCreator names it.
std::string ThisExecutable();

// True once this process's pthread_create is the one threads are started through (the worker
// and the tests that link thread_origin.cc with the symbol exported).
bool ThreadOriginsRecorded();

}  // namespace flashscope::runner
