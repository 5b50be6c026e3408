#include "runner/host_threads.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"

namespace flashscope::runner {
namespace {

// Field 22 of /proc/.../stat (starttime). The name (field 2) is in parentheses and may hold
// spaces and parentheses itself: the fields after it start past the last ')'.
bool ReadStartTicks(const std::filesystem::path& stat, unsigned long long* ticks) {
  std::ifstream in(stat);
  std::string line;
  if (!std::getline(in, line)) return false;
  const size_t close = line.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream rest(line.substr(close + 1));
  std::string field;
  // After the name: field 3 (state) ... field 22 (starttime), i.e. the 20th token.
  for (int i = 3; i <= 22; ++i) {
    if (!(rest >> field)) return false;
  }
  try {
    *ticks = std::stoull(field);
  } catch (...) {
    return false;
  }
  return true;
}

std::string ReadName(const std::filesystem::path& comm) {
  std::ifstream in(comm);
  std::string name;
  std::getline(in, name);
  return name;
}

bool SameThread(const HostThread& a, const HostThread& b) {
  return a.tid == b.tid && a.start_ticks == b.start_ticks;
}

}  // namespace

std::vector<HostThread> ReadHostThreads(const std::string& task_dir) {
  std::vector<HostThread> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(task_dir, ec)) {
    HostThread t;
    try {
      t.tid = std::stoi(entry.path().filename().string());
    } catch (...) {
      continue;
    }
    if (!ReadStartTicks(entry.path() / "stat", &t.start_ticks)) continue;  // ended meanwhile
    t.name = ReadName(entry.path() / "comm");
    out.push_back(std::move(t));
  }
  std::sort(out.begin(), out.end(),
            [](const HostThread& a, const HostThread& b) { return a.tid < b.tid; });
  return out;
}

std::vector<HostThread> StartedSince(const std::vector<HostThread>& before,
                                     const std::vector<HostThread>& now) {
  std::vector<HostThread> out;
  for (const HostThread& t : now) {
    const bool known = std::any_of(before.begin(), before.end(),
                                   [&](const HostThread& b) { return SameThread(b, t); });
    if (!known) out.push_back(t);
  }
  return out;
}

bool IsHarnessCreator(const std::string& creator, const std::string& worker_exe) {
  if (creator.empty()) return false;
  if (!worker_exe.empty() && creator == worker_exe) return true;
  // The driver and its tools, and the CUDA libraries the built-in peers use (their threads run
  // NVIDIA's code, not a plugin's): libcuda.so.1, libcupti.so.13, libnvperf_target.so,
  // libcudart.so.13, libnvidia-ptxjitcompiler.so.580.x, libcublasLt.so.13, libcudnn_engines_
  // runtime_compiled.so.9, libnvrtc.so.13, libnvJitLink.so.13.
  static const std::regex kNvidia(
      "lib(cuda|cupti|nvperf_[a-z]+|cudart|cublas|cublasLt|cudnn(_[a-z_]+)?|nvrtc(-builtins)?|"
      "nvJitLink|nvidia-[a-z-]+)\\.so(\\.[0-9]+)*");
  return std::regex_match(std::filesystem::path(creator).filename().string(), kNvidia);
}

std::vector<LeftThread> ThreadsLeftRunning(const std::vector<HostThread>& before,
                                           const std::function<std::vector<HostThread>()>& read_now,
                                           const std::function<std::string(int tid)>& creator_of,
                                           const std::string& worker_exe,
                                           std::chrono::milliseconds grace) {
  auto classify = [&](const std::vector<HostThread>& started) {
    std::vector<LeftThread> left;
    for (const HostThread& t : started) {
      const std::string creator = creator_of(t.tid);
      left.push_back({t, creator, IsHarnessCreator(creator, worker_exe)});
    }
    return left;
  };
  std::vector<LeftThread> left = classify(StartedSince(before, read_now()));
  const auto deadline = std::chrono::steady_clock::now() + grace;
  while (AnyCaseThread(left) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    left = classify(StartedSince(before, read_now()));
  }
  return left;
}

bool AnyCaseThread(const std::vector<LeftThread>& left) {
  return std::any_of(left.begin(), left.end(), [](const LeftThread& t) { return !t.harness; });
}

std::vector<std::string> DescribeLeftThreads(const std::vector<LeftThread>& left) {
  std::vector<std::string> out;
  for (const LeftThread& t : left) {
    const std::string who =
        t.creator.empty() ? std::string("code that did not go through pthread_create") : t.creator;
    const std::string thread = absl::StrCat("host thread ", t.thread.tid, " '", t.thread.name, "'");
    if (t.harness) {
      out.push_back(absl::StrCat(thread, " started during the case by ", who,
                                 " (the CUDA driver's, CUPTI's or the worker's own: not a "
                                 "violation)"));
    } else {
      out.push_back(absl::StrCat(
          thread, " started during the case by ", who, " is still running ", kThreadGrace.count(),
          " ms after its launches were synchronised: it could launch work into later cases; "
          "the next case runs in a fresh worker"));
    }
  }
  return out;
}

}  // namespace flashscope::runner
