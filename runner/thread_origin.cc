#include "runner/thread_origin.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <new>
#include <unordered_map>

namespace flashscope::runner {
namespace {

// Return addresses kept per thread: the wrapper, then up to this many callers (std::thread goes
// through two or three frames of libstdc++ before the code that asked for the thread).
constexpr int kFrames = 8;

struct Origin {
  std::array<void*, kFrames> frames{};
  int count = 0;
};

std::mutex& RegistryMutex() {
  static std::mutex* m = new std::mutex;  // never destroyed: threads may start during exit
  return *m;
}

std::unordered_map<int, Origin>& Registry() {
  static auto* r = new std::unordered_map<int, Origin>;
  return *r;
}

using PthreadCreate = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);

PthreadCreate RealPthreadCreate() {
  static const PthreadCreate real =
      reinterpret_cast<PthreadCreate>(dlsym(RTLD_NEXT, "pthread_create"));
  return real;
}

struct Start {
  void* (*routine)(void*);
  void* arg;
  Origin origin;
};

void* StartRecorded(void* p) {
  Start start = *static_cast<Start*>(p);
  delete static_cast<Start*>(p);
  {
    std::lock_guard<std::mutex> lock(RegistryMutex());
    Registry()[static_cast<int>(gettid())] = start.origin;
  }
  return start.routine(start.arg);
}

// Libraries a thread request passes through on its way from the code that wants the thread.
bool PassesThrough(const std::string& file) {
  const std::string base = std::filesystem::path(file).filename().string();
  for (const char* prefix : {"libc.so", "libc-", "libpthread", "libstdc++", "libgcc_s"}) {
    if (base.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

// backtrace() loads the unwinder on its first call: done once at start, not inside the first
// pthread_create (which a library constructor may call while the loader is busy).
[[maybe_unused]] const bool kUnwinderLoaded = [] {
  void* frame[1];
  return backtrace(frame, 1) >= 0;
}();

}  // namespace

std::string ThisExecutable() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("the worker executable") : exe.string();
}

std::string ThreadCreator(int tid) {
  Origin origin;
  {
    std::lock_guard<std::mutex> lock(RegistryMutex());
    auto it = Registry().find(tid);
    if (it == Registry().end()) return "";
    origin = it->second;
  }
  Dl_info self{};
  dladdr(reinterpret_cast<void*>(&ThreadCreator), &self);
  std::string last;
  // Frame 0 is pthread_create below: the callers start at 1.
  for (int i = 1; i < origin.count; ++i) {
    Dl_info info{};
    if (dladdr(origin.frames[i], &info) == 0 || info.dli_fname == nullptr) return "";
    if (info.dli_fbase == self.dli_fbase) return ThisExecutable();
    last = info.dli_fname;
    if (!PassesThrough(last)) return last;
  }
  return last;  // only runtime libraries: a thread the C library started for someone
}

bool ThreadOriginsRecorded() {
  return dlsym(RTLD_DEFAULT, "pthread_create") == reinterpret_cast<void*>(&pthread_create) &&
         RealPthreadCreate() != nullptr &&
         RealPthreadCreate() != reinterpret_cast<PthreadCreate>(&pthread_create);
}

}  // namespace flashscope::runner

// The process's pthread_create (see thread_origin.h): the caller's return addresses, then the C
// library's own. Kept small: the CUDA driver and CUPTI start their threads through it.
extern "C" int pthread_create(pthread_t* thread, const pthread_attr_t* attr,
                              void* (*routine)(void*), void* arg) {
  using flashscope::runner::RealPthreadCreate;
  auto real = RealPthreadCreate();
  if (real == nullptr) return EAGAIN;  // no C library behind us: nothing can start a thread
  auto* start = new (std::nothrow) flashscope::runner::Start{routine, arg, {}};
  if (start == nullptr) return real(thread, attr, routine, arg);
  start->origin.count = backtrace(start->origin.frames.data(), flashscope::runner::kFrames);
  const int rc = real(thread, attr, &flashscope::runner::StartRecorded, start);
  if (rc != 0) delete start;
  return rc;
}
