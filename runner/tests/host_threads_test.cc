// Host threads a case leaves running (runner/host_threads.h) and who started them
// (runner/thread_origin.h), with real threads of this test process: this executable links
// fs_runner as flashscope-worker does, so its pthread_create is the recording one.
#include "runner/host_threads.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "runner/harness_checks.h"
#include "runner/thread_origin.h"

namespace flashscope::runner {
namespace {

// A thread that runs until told to stop, and says its tid once it runs.
class Parked {
 public:
  Parked() : thread_([this] { Run(); }) {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [this] { return tid_ != 0; });
  }
  ~Parked() { Stop(); }
  void Stop() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  int tid() const { return tid_; }

 private:
  void Run() {
    std::unique_lock<std::mutex> lock(m_);
    tid_ = static_cast<int>(gettid());
    cv_.notify_all();
    cv_.wait(lock, [this] { return stop_; });
  }
  std::mutex m_;
  std::condition_variable cv_;
  int tid_ = 0;
  bool stop_ = false;
  std::thread thread_;
};

// The harness's creators when the worker is `worker`.
std::function<bool(const std::string&)> HarnessIs(const std::string& worker) {
  return [worker](const std::string& creator) { return IsHarnessCreator(creator, worker); };
}

bool Has(const std::vector<HostThread>& threads, int tid) {
  for (const HostThread& t : threads) {
    if (t.tid == tid) return true;
  }
  return false;
}

TEST(ReadHostThreadsTest, SeesThisThreadWithItsNameAndAThreadStartedSince) {
  const std::vector<HostThread> before = ReadHostThreads();
  ASSERT_TRUE(Has(before, static_cast<int>(gettid())));
  for (const HostThread& t : before) {
    EXPECT_GT(t.start_ticks, 0u);
    EXPECT_FALSE(t.name.empty());
  }
  Parked parked;
  const std::vector<HostThread> started = StartedSince(before, ReadHostThreads());
  ASSERT_EQ(started.size(), 1u);
  EXPECT_EQ(started[0].tid, parked.tid());
  parked.Stop();
  // join() returns once the kernel clears the thread's tid, which can be a moment before its
  // /proc/self/task entry goes (seen on a loaded 2-core CI machine): poll, as the harness's
  // grace period does, for up to 2 s.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  std::vector<HostThread> left = StartedSince(before, ReadHostThreads());
  while (!left.empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    left = StartedSince(before, ReadHostThreads());
  }
  EXPECT_TRUE(left.empty()) << "a joined thread still listed after 2 s: tid " << left[0].tid;
}

TEST(StartedSinceTest, AReusedTidWithAnotherStartTimeIsANewThread) {
  const std::vector<HostThread> before = {{100, 5000, "worker"}, {101, 5001, "cuda-EvtHandlr"}};
  const std::vector<HostThread> now = {{100, 5000, "worker"}, {101, 9000, "worker"}};
  const std::vector<HostThread> started = StartedSince(before, now);
  ASSERT_EQ(started.size(), 1u);
  EXPECT_EQ(started[0].tid, 101);
  EXPECT_EQ(started[0].start_ticks, 9000u);
}

TEST(IsHarnessCreatorTest, TheWorkerAndNvidiaLibrariesOnly) {
  const std::string worker = "/opt/flashscope/bin/flashscope-worker";
  EXPECT_TRUE(IsHarnessCreator(worker, worker));
  EXPECT_TRUE(IsHarnessCreator("/usr/lib/x86_64-linux-gnu/libcuda.so.1", worker));
  EXPECT_TRUE(IsHarnessCreator("/usr/local/cuda/lib64/libcupti.so.13", worker));
  EXPECT_TRUE(IsHarnessCreator("/usr/local/cuda/lib64/libnvperf_target.so", worker));
  EXPECT_TRUE(IsHarnessCreator("/usr/lib/libnvidia-ptxjitcompiler.so.580.159.04", worker));
  EXPECT_TRUE(IsHarnessCreator("/usr/lib/libcudnn_engines_runtime_compiled.so.9", worker));
  EXPECT_FALSE(IsHarnessCreator("/tmp/plugins/libtest_plugin.so", worker));
  EXPECT_FALSE(IsHarnessCreator("/tmp/plugins/libcuda_attention.so", worker));
  EXPECT_FALSE(IsHarnessCreator("/tmp/plugins/libcuda.so.evil", worker));
  EXPECT_FALSE(IsHarnessCreator("/usr/lib/libpython3.11.so.1.0", worker));
  EXPECT_FALSE(IsHarnessCreator("/usr/lib/x86_64-linux-gnu/libc.so.6", worker));
  EXPECT_FALSE(IsHarnessCreator("", worker));  // not started through pthread_create
  // A library merely named like the worker elsewhere is not the worker.
  EXPECT_FALSE(IsHarnessCreator("/tmp/evil/flashscope-worker", worker));
}

TEST(ThreadOriginTest, ThisProcessRecordsWhoStartsItsThreads) {
  ASSERT_TRUE(ThreadOriginsRecorded())
      << "pthread_create is not exported from this executable (fs_runner's --dynamic-list)";
  Parked parked;
  // std::thread goes through libstdc++: the creator is the code that asked for the thread.
  EXPECT_EQ(ThreadCreator(parked.tid()), ThisExecutable());
}

TEST(ThreadOriginTest, LibrariesOfTheWorkersStartAndTheInjectedToolAreKnown) {
  // libstdc++ is one of this executable's own dependencies, loaded before main.
  Dl_info info{};
  ASSERT_NE(dladdr(reinterpret_cast<void*>(&std::thread::hardware_concurrency), &info), 0);
  ASSERT_NE(info.dli_fname, nullptr);
  EXPECT_TRUE(LoadedByTheWorkersStart(info.dli_fname)) << info.dli_fname;
  EXPECT_FALSE(LoadedByTheWorkersStart("/tmp/plugins/libtest_plugin.so"));
  EXPECT_FALSE(LoadedByTheWorkersStart(""));
  setenv("CUDA_INJECTION64_PATH", "/opt/tool/libinjection.so", 1);
  EXPECT_TRUE(LoadedByTheWorkersStart("/opt/tool/libinjection.so"));
  unsetenv("CUDA_INJECTION64_PATH");
  EXPECT_FALSE(LoadedByTheWorkersStart("/opt/tool/libinjection.so"));
}

void* WaitForStop(void* arg) {
  auto* stop = static_cast<std::atomic<bool>*>(arg);
  while (!stop->load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return nullptr;
}

TEST(ThreadOriginTest, AThreadStartedPastTheRecordingPthreadCreateHasNoCreator) {
  using Create = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
  auto libc_create = reinterpret_cast<Create>(dlsym(RTLD_NEXT, "pthread_create"));
  ASSERT_NE(libc_create, nullptr);
  const std::vector<HostThread> before = ReadHostThreads();
  std::atomic<bool> stop{false};
  pthread_t t;
  ASSERT_EQ(libc_create(&t, nullptr, &WaitForStop, &stop), 0);
  const std::vector<LeftThread> left = ThreadsLeftRunning(
      before, [] { return ReadHostThreads(); }, ThreadCreator, HarnessIs(ThisExecutable()),
      std::chrono::milliseconds(20));
  stop = true;
  pthread_join(t, nullptr);
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].creator, "");
  EXPECT_FALSE(left[0].harness);
  EXPECT_TRUE(AnyCaseThread(left));
}

TEST(ThreadsLeftRunningTest, AThreadThatEndsWithinTheGraceIsNotLeftRunning) {
  const std::vector<HostThread> before = ReadHostThreads();
  std::thread brief([] { std::this_thread::sleep_for(std::chrono::milliseconds(30)); });
  brief.detach();
  // The test executable plays a plugin here: the "worker" is another file.
  const std::vector<LeftThread> left = ThreadsLeftRunning(
      before, [] { return ReadHostThreads(); }, ThreadCreator, HarnessIs("/not/this/worker"),
      std::chrono::milliseconds(1000));
  EXPECT_TRUE(left.empty());
}

TEST(ThreadsLeftRunningTest, AThreadStillRunningAfterTheGraceIsTheCasesWithItsCreator) {
  const std::vector<HostThread> before = ReadHostThreads();
  Parked parked;
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<LeftThread> left = ThreadsLeftRunning(
      before, [] { return ReadHostThreads(); }, ThreadCreator, HarnessIs("/not/this/worker"),
      std::chrono::milliseconds(50));
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(50));
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].thread.tid, parked.tid());
  EXPECT_EQ(left[0].creator, ThisExecutable());
  EXPECT_FALSE(left[0].harness);
  // The same thread as the worker's own: noted, not waited for.
  const auto t1 = std::chrono::steady_clock::now();
  const std::vector<LeftThread> own = ThreadsLeftRunning(
      before, [] { return ReadHostThreads(); }, ThreadCreator, HarnessIs(ThisExecutable()),
      std::chrono::milliseconds(1000));
  EXPECT_LT(std::chrono::steady_clock::now() - t1, std::chrono::milliseconds(500));
  ASSERT_EQ(own.size(), 1u);
  EXPECT_TRUE(own[0].harness);
  EXPECT_FALSE(AnyCaseThread(own));
}

TEST(CheckIsolationThreadsTest, ACaseThreadFailsNamingItAndAHarnessThreadIsANote) {
  const LeftThread plugin{{4242, 1, "flashscope-work"}, "/tmp/libtest_plugin.so", false};
  const LeftThread cupti{{4243, 2, "cupti-worker"}, "/usr/local/cuda/lib64/libcupti.so.13", true};
  const reports::TrustCheckRecord failed = CheckIsolation({}, "", 0, {plugin, cupti});
  EXPECT_EQ(failed.status, "failed");
  ASSERT_EQ(failed.findings.size(), 2u);
  EXPECT_NE(failed.findings[0].find("host thread 4242 'flashscope-work'"), std::string::npos);
  EXPECT_NE(failed.findings[0].find("/tmp/libtest_plugin.so"), std::string::npos);
  EXPECT_NE(failed.findings[0].find("fresh worker"), std::string::npos);
  EXPECT_NE(failed.findings[1].find("not a violation"), std::string::npos);
  const reports::TrustCheckRecord passed = CheckIsolation({}, "", 0, {cupti});
  EXPECT_EQ(passed.status, "passed");
  for (const reports::TrustValue& v : failed.values) {
    if (v.name == "threads_left_running") EXPECT_EQ(v.value, 1);
    if (v.name == "changed_settings") EXPECT_EQ(v.value, 0);
  }
}

}  // namespace
}  // namespace flashscope::runner
