#include "runner/phase_trace.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "nlohmann/json.hpp"

namespace flashscope::runner {
namespace {

double UnixSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

std::unique_ptr<PhaseTrace> PhaseTrace::FromEnvironment(int device) {
  const char* path = std::getenv("FLASHSCOPE_PHASE_TRACE");
  if (path == nullptr || *path == '\0') return nullptr;
  const int fd = ::open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    std::fprintf(stderr, "flashscope-worker: FLASHSCOPE_PHASE_TRACE=%s: %s; not tracing phases\n",
                 path, std::strerror(errno));
    return nullptr;
  }
  return std::unique_ptr<PhaseTrace>(new PhaseTrace(fd, device));
}

PhaseTrace::~PhaseTrace() { ::close(fd_); }

void PhaseTrace::Mark(const std::string& segment) {
  const Clock::time_point now = Clock::now();
  if (!segment_.empty()) {
    segments_[segment_] += std::chrono::duration<double>(now - segment_start_).count();
  }
  segment_ = segment;
  segment_start_ = now;
}

void PhaseTrace::CaseBegins(const std::string& key) {
  key_ = key;
  // The wait for this case's RUN line began before the case: the case's span starts with it.
  case_start_ = segment_.empty() ? Clock::now() : segment_start_;
  case_start_unix_s_ =
      UnixSeconds() - std::chrono::duration<double>(Clock::now() - case_start_).count();
}

void PhaseTrace::CaseEnds() {
  Mark("");
  const double total = std::chrono::duration<double>(Clock::now() - case_start_).count();
  const std::string line = FormatLine(key_, device_, static_cast<long>(::getpid()),
                                      case_start_unix_s_, total, segments_) +
                           "\n";
  // A diagnostic: a short or failed write loses a line of it, never the run.
  if (::write(fd_, line.data(), line.size()) < 0) {
    std::fprintf(stderr, "flashscope-worker: phase trace: %s\n", std::strerror(errno));
  }
  segments_.clear();
  key_.clear();
}

std::string PhaseTrace::FormatLine(const std::string& key, int device, long pid,
                                   double start_unix_s, double total_s,
                                   const std::map<std::string, double>& segments) {
  nlohmann::json j = {{"key", key},         {"device", device},
                      {"pid", pid},         {"start_unix_s", start_unix_s},
                      {"total_s", total_s}, {"segments", segments}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace flashscope::runner
