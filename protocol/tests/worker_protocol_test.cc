// The supervisor and the worker speak through protocol/worker_protocol.h only: every request and
// message must survive the trip, whatever bytes paths, keys and reasons hold.
#include "protocol/worker_protocol.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <functional>
#include <thread>

namespace flashscope::suites::protocol {
namespace {

WorkerRequest RoundTrip(const WorkerRequest& r) {
  auto parsed = ParseWorkerArgv(WorkerArgv("/opt/fs/flashscope-worker", r));
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? *parsed : WorkerRequest{};
}

TEST(WorkerProtocol, PlanRequestRoundTrips) {
  WorkerRequest r;
  r.command = Command::kPlan;
  r.progress_fd = 7;
  r.suite_path = "suites/my suite.json";
  r.plugins = {"/a/liba.so", "/b b/libb.so"};
  r.lost_plugins = {{"/c/lib%c\t.so", "plugin /c crashed while loading: signal 11\nsecond line"}};
  r.kernels_filter = "attn.a1*,my.*";
  r.shard = "2/4";
  r.plan_out = "/tmp/p/plan.json";
  r.check_supports = true;
  const WorkerRequest back = RoundTrip(r);
  EXPECT_TRUE(back.check_supports);
  EXPECT_EQ(back.command, Command::kPlan);
  EXPECT_EQ(back.progress_fd, 7);
  EXPECT_EQ(back.suite_path, r.suite_path);
  EXPECT_EQ(back.plugins, r.plugins);
  ASSERT_EQ(back.lost_plugins.size(), 1u);
  EXPECT_EQ(back.lost_plugins[0].path, r.lost_plugins[0].path);
  EXPECT_EQ(back.lost_plugins[0].reason, r.lost_plugins[0].reason);
  EXPECT_EQ(back.kernels_filter, r.kernels_filter);
  EXPECT_EQ(back.shard, r.shard);
  EXPECT_EQ(back.plan_out, r.plan_out);
}

TEST(WorkerProtocol, RunListAndMetricsRequestsRoundTrip) {
  WorkerRequest run;
  run.command = Command::kRun;
  run.journal_path = "/tmp/j.jsonl";
  run.metrics = "basic";
  run.dump_dir = "/tmp/d";
  run.only_keys = {"attn.a01_scalar attention_fwd{B=1,H=1,S=17,D=64,fp16}"};
  run.sanitize_rerun = true;
  run.command_fd = 9;
  run.device = 3;
  const WorkerRequest r = RoundTrip(run);
  EXPECT_EQ(r.command_fd, 9);
  EXPECT_EQ(r.device, 3);
  EXPECT_EQ(r.command, Command::kRun);
  EXPECT_EQ(r.journal_path, run.journal_path);
  EXPECT_EQ(r.metrics, "basic");
  EXPECT_EQ(r.dump_dir, "/tmp/d");
  EXPECT_EQ(r.only_keys, run.only_keys);
  EXPECT_TRUE(r.sanitize_rerun);
  WorkerRequest list;
  list.command = Command::kList;
  list.all = true;
  list.plugins = {"/x.so"};
  EXPECT_TRUE(RoundTrip(list).all);
  EXPECT_EQ(RoundTrip(list).plugins, list.plugins);
  EXPECT_FALSE(RoundTrip(list).plugin_only);
  EXPECT_EQ(RoundTrip(list).kernels_filter, "");
  list.plugin_only = true;
  list.kernels_filter = "my.*,other.a?";
  EXPECT_TRUE(RoundTrip(list).plugin_only);
  EXPECT_EQ(RoundTrip(list).kernels_filter, "my.*,other.a?");
  WorkerRequest metrics;
  metrics.command = Command::kMetrics;
  metrics.cc = 80;
  EXPECT_EQ(RoundTrip(metrics).cc, 80);
}

TEST(WorkerProtocol, AbRequestsRoundTrip) {
  WorkerRequest plan;
  plan.command = Command::kPlan;
  plan.suite_path = "s.json";
  plan.ab_base = "/old/lib old.so";
  plan.ab_new = "/new/lib%new.so";
  const WorkerRequest p = RoundTrip(plan);
  EXPECT_EQ(p.ab_base, plan.ab_base);
  EXPECT_EQ(p.ab_new, plan.ab_new);
  EXPECT_TRUE(p.plugins.empty());
  WorkerRequest ab;
  ab.command = Command::kAb;
  ab.journal_path = "/o/base.json.journal.jsonl";
  ab.new_journal = "/o/new.json.journal.jsonl";
  ab.ab_base = plan.ab_base;
  ab.ab_new = plan.ab_new;
  ab.metrics = "basic";
  ab.ab_seed = 18446744073709551557ull;
  ab.ab_alpha = 0.0123456789012345;
  ab.ab_min_effect = 0.004;
  ab.ab_allowed_slowdown = 0.03;
  ab.command_fd = 7;  // the scheduler hands pairs out as it hands out run's cases
  ab.device = 3;
  const WorkerRequest r = RoundTrip(ab);
  EXPECT_EQ(r.command, Command::kAb);
  EXPECT_EQ(r.journal_path, ab.journal_path);
  EXPECT_EQ(r.new_journal, ab.new_journal);
  EXPECT_EQ(r.ab_base, ab.ab_base);
  EXPECT_EQ(r.ab_new, ab.ab_new);
  EXPECT_EQ(r.metrics, "basic");
  EXPECT_EQ(r.ab_seed, ab.ab_seed);
  EXPECT_EQ(r.ab_alpha, ab.ab_alpha) << "doubles cross exactly";
  EXPECT_EQ(r.ab_min_effect, 0.004);
  EXPECT_EQ(r.ab_allowed_slowdown, 0.03);
  EXPECT_EQ(r.command_fd, 7);
  EXPECT_EQ(r.device, 3);
  EXPECT_FALSE(ParseWorkerArgv({"flashscope-worker", "ab", "--ab_seed=-1"}).ok());
  EXPECT_FALSE(ParseWorkerArgv({"flashscope-worker", "ab", "--ab_alpha=often"}).ok());
}

TEST(WorkerProtocol, BadArgumentsAreNamed) {
  auto none = ParseWorkerArgv({"flashscope-worker"});
  ASSERT_FALSE(none.ok());
  auto bad = ParseWorkerArgv({"flashscope-worker", "fly"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("'fly'"), std::string::npos);
  auto flag = ParseWorkerArgv({"flashscope-worker", "run", "--colour=red"});
  ASSERT_FALSE(flag.ok());
  EXPECT_NE(std::string(flag.status().message()).find("unknown flag"), std::string::npos);
  auto fd = ParseWorkerArgv({"flashscope-worker", "run", "--progress_fd=x"});
  ASSERT_FALSE(fd.ok());
}

TEST(WorkerProtocol, MessagesRoundTrip) {
  const std::string key = "my.k attention_fwd{B=1,H=1,S=17,D=64,fp16}";
  for (const Message& m :
       {Message{Event::kCaseStarted, key, "", ""}, Message{Event::kCaseFinished, key, "passed", ""},
        Message{Event::kPhase, "", "", "supports"}, Message{Event::kPhase, key, "", "profiling"},
        Message{Event::kPhase, "", "", "a phase with spaces"},
        Message{Event::kPhase, "odd\tkey 100%", "", "odd\tphase\nname"},
        Message{Event::kLoad, "", "", "/p/lib 100%\nx.so"},
        Message{Event::kLoaded, "", "", "/p/lib.so"},
        Message{Event::kFatal, "", "", "no GPU: cudaErrorNoDevice"},
        Message{Event::kNote, "", "", "measuring device peaks"},
        Message{Event::kSide, "", "", "new"},
        Message{Event::kPairVerdict, "", "", "slower  +1.02% [+0.95%, +1.10%]  p 2e-09"}}) {
    const std::string line = FormatMessage(m);
    EXPECT_EQ(line.find('\n'), std::string::npos) << line;
    auto back = ParseMessage(line);
    ASSERT_TRUE(back.has_value()) << line;
    EXPECT_EQ(back->event, m.event);
    EXPECT_EQ(back->key, m.key);
    EXPECT_EQ(back->status, m.status);
    EXPECT_EQ(back->text, m.text);
  }
  EXPECT_FALSE(ParseMessage("hello world").has_value());
  EXPECT_FALSE(ParseMessage("F passed").has_value());
  for (int side = 0; side < 2; ++side) EXPECT_EQ(SideIndex(kSideNames[side]), side);
  EXPECT_EQ(SideIndex("old"), -1);
}

TEST(WorkerProtocol, RunCommandsRoundTripThroughTheChannel) {
  const std::string key = "my.k attention_fwd{B=1,H=1,S=17,D=64,fp16} 100%\nodd";
  EXPECT_EQ(ParseRunCommand(FormatRunCommand(key)), key);
  EXPECT_EQ(FormatRunCommand(key).find('\n'), std::string::npos);
  EXPECT_FALSE(ParseRunCommand("S some key").has_value());
  // The worker's reader: keys in order, in pieces as a socket delivers them, then the end.
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const std::string lines = FormatRunCommand("a b") + "\n" + FormatRunCommand(key) + "\n";
  ASSERT_EQ(write(fds[1], lines.data(), 5), 5);
  ASSERT_EQ(write(fds[1], lines.data() + 5, lines.size() - 5),
            static_cast<ssize_t>(lines.size() - 5));
  close(fds[1]);
  CommandReader reader(fds[0]);
  EXPECT_EQ(reader.Next(), "a b");
  EXPECT_EQ(reader.Next(), key);
  EXPECT_EQ(reader.Next(), std::nullopt) << "the supervisor closed the channel: no more cases";
  close(fds[0]);
}

TEST(WorkerProtocol, KeyedPhaseLinesKeepTheKeylessFormAndReadBack) {
  const std::string key = "my.k attention_fwd{B=1,H=1,S=17,D=64,fp16}";
  // Keyless: exactly the line it always was, so older readers and writers agree.
  EXPECT_EQ(FormatMessage({Event::kPhase, "", "", phase::kTiming}), "P timing");
  EXPECT_EQ(FormatMessage({Event::kPhase, key, "", phase::kConcluding}), "P concluding\t" + key);
  // A keyless phase with spaces is not read as a phase and a key.
  auto spaced = ParseMessage("P two words");
  ASSERT_TRUE(spaced.has_value());
  EXPECT_EQ(spaced->text, "two words");
  EXPECT_EQ(spaced->key, "");
  // Only P lines have the keyed form: a tab in another line is its text.
  auto note = ParseMessage("NOTE a\tb");
  ASSERT_TRUE(note.has_value());
  EXPECT_EQ(note->text, "a\tb");
  EXPECT_EQ(note->key, "");
}

// A pipe with what `chunks` holds written into it, in that many writes.
std::array<int, 2> PipeWith(const std::vector<std::string>& chunks) {
  std::array<int, 2> fds{-1, -1};
  EXPECT_EQ(pipe(fds.data()), 0);
  for (const std::string& c : chunks) {
    EXPECT_EQ(write(fds[1], c.data(), c.size()), static_cast<ssize_t>(c.size()));
  }
  return fds;
}

double MillisecondsOf(const std::function<void()>& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

TEST(WorkerProtocol, NextWithinWaitsAtMostItsTimeForACommand) {
  std::array<int, 2> fds = PipeWith({});
  CommandReader reader(fds[0]);
  std::string key = "untouched";
  CommandWait got = CommandWait::kCommand;
  const double waited = MillisecondsOf([&] { got = reader.NextWithin(50, &key); });
  EXPECT_EQ(got, CommandWait::kNone);
  EXPECT_EQ(key, "untouched");
  EXPECT_GE(waited, 45) << "it returned before its time was up";
  EXPECT_LT(waited, 2000);
  EXPECT_EQ(reader.NextWithin(0, &key), CommandWait::kNone) << "0 ms: only what is there";
  // A line written later, while it waits.
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    const std::string line = FormatRunCommand("late one") + "\n";
    EXPECT_EQ(write(fds[1], line.data(), line.size()), static_cast<ssize_t>(line.size()));
  });
  EXPECT_EQ(reader.NextWithin(5000, &key), CommandWait::kCommand);
  EXPECT_EQ(key, "late one");
  writer.join();
  close(fds[1]);
  EXPECT_EQ(reader.NextWithin(5000, &key), CommandWait::kEnd);
  EXPECT_EQ(reader.NextWithin(0, &key), CommandWait::kEnd) << "the end stays the end";
  EXPECT_EQ(reader.Next(), std::nullopt);
  close(fds[0]);
}

TEST(WorkerProtocol, StopOvertakesTheCommandsNotYetStarted) {
  // The deadline passed with RUN lines still unread (a worker holds a window of hundreds of
  // cases): the worker runs none of them, neither those sent before the stop nor after it.
  const std::string before = FormatRunCommand("before") + "\n";
  const std::string after = FormatRunCommand("after") + "\n";
  std::array<int, 2> fds = PipeWith({before + kStopCommand + "\n" + after});
  CommandReader reader(fds[0]);
  std::string key;
  EXPECT_EQ(reader.NextWithin(1000, &key), CommandWait::kEnd);
  EXPECT_EQ(reader.NextWithin(0, &key), CommandWait::kEnd) << "the end stays the end";
  EXPECT_EQ(reader.Next(), std::nullopt);
  close(fds[1]);
  close(fds[0]);
}

TEST(WorkerProtocol, CommandsBeforeAStopThatHasNotArrivedRun) {
  const std::string first = FormatRunCommand("first") + "\n";
  std::array<int, 2> fds = PipeWith({first});
  CommandReader reader(fds[0]);
  std::string key;
  ASSERT_EQ(reader.NextWithin(1000, &key), CommandWait::kCommand);
  EXPECT_EQ(key, "first");
  const std::string stop = std::string(kStopCommand) + "\n";
  ASSERT_EQ(write(fds[1], stop.data(), stop.size()), static_cast<ssize_t>(stop.size()));
  EXPECT_EQ(reader.NextWithin(1000, &key), CommandWait::kEnd);
  close(fds[1]);
  close(fds[0]);
}

TEST(WorkerProtocol, NextWithinGivesBufferedCommandsFirstAndJoinsPartialLines) {
  const std::string a = FormatRunCommand("a b") + "\n", b = FormatRunCommand("c d") + "\n";
  // Two lines in one write, then half of a third.
  std::array<int, 2> fds = PipeWith({a + b + "RUN e"});
  CommandReader reader(fds[0]);
  std::string key;
  ASSERT_EQ(reader.NextWithin(0, &key), CommandWait::kCommand);
  EXPECT_EQ(key, "a b");
  // The second line is already read: no time needed, none waited for.
  ASSERT_EQ(reader.NextWithin(0, &key), CommandWait::kCommand);
  EXPECT_EQ(key, "c d");
  EXPECT_EQ(reader.NextWithin(20, &key), CommandWait::kNone) << "half a line is no command";
  const std::string rest = " f\nnot a command\n" + FormatRunCommand("g") + "\n";
  ASSERT_EQ(write(fds[1], rest.data(), rest.size()), static_cast<ssize_t>(rest.size()));
  ASSERT_EQ(reader.NextWithin(0, &key), CommandWait::kCommand);
  EXPECT_EQ(key, "e f");
  ::testing::internal::CaptureStderr();
  ASSERT_EQ(reader.NextWithin(0, &key), CommandWait::kCommand) << "a bad line is skipped";
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("not a command"), std::string::npos);
  EXPECT_EQ(key, "g");
  // The channel closes with half a line in it: the end, the half line never a command.
  ASSERT_EQ(write(fds[1], "RUN h", 5), 5);
  close(fds[1]);
  EXPECT_EQ(reader.NextWithin(-1, &key), CommandWait::kEnd);
  close(fds[0]);
}

TEST(WorkerProtocol, CrashReasonsNameThePluginAndThePhase) {
  reports::ProvenanceRecord plugin{false, "foo", "1.2", "/x/libfoo.so", "ab"};
  EXPECT_EQ(CrashReason(phase::kSupports, &plugin, "signal 11 (Segmentation fault)"),
            "plugin /x/libfoo.so (foo 1.2) crashed in supports(): signal 11 (Segmentation fault)");
  EXPECT_EQ(CrashReason(phase::kLaunch, &plugin, "signal 6 (Aborted)"),
            "plugin /x/libfoo.so (foo 1.2) crashed at launch: signal 6 (Aborted)");
  EXPECT_NE(CrashReason(phase::kTiming, &plugin, "signal 6").find("at launch (timing)"),
            std::string::npos);
  reports::ProvenanceRecord builtin{true, "built-in", "abc", "", ""};
  const std::string ours = CrashReason(phase::kLaunch, &builtin, "signal 11 (Segmentation fault)");
  EXPECT_EQ(ours.find("plugin"), std::string::npos) << ours;
  EXPECT_NE(ours.find("the worker process died (signal 11"), std::string::npos) << ours;
  EXPECT_NE(CrashReason(phase::kInputs, &plugin, "signal 9").find("in phase inputs"),
            std::string::npos)
      << "our own phases are not the plugin's fault";
  EXPECT_NE(CrashReason("", nullptr, "signal 9").find("before"), std::string::npos);
  // Deciding the trust checks after the counters is ours, not the kernel's.
  EXPECT_NE(CrashReason(phase::kConcluding, &plugin, "signal 11").find("in phase concluding"),
            std::string::npos);
  EXPECT_NE(CrashReason(phase::kProfiling, &plugin, "signal 11").find("plugin /x/libfoo.so"),
            std::string::npos);
}

TEST(WorkerProtocol, PlanningResultRoundTrips) {
  PlanningResult r;
  r.plan.suite_path = "s.json";
  r.plan.suite_sha256 = "00ff";
  r.plan.plugins.push_back({true, "built-in", "rev", "", ""});
  reports::PlannedCaseRecord c;
  c.kernel_id = "k";
  c.problem = GemmProblem{8, 8, 8, DType::kF16};
  c.key = "k " + ProblemKey(c.problem);
  c.error = "plugin /x crashed while loading: signal 11 (Segmentation fault)";
  r.plan.cases.push_back(c);
  r.device = {false, "", 0, "cudaErrorNoDevice: no CUDA-capable device is detected"};
  reports::DeviceRecord gpu;
  gpu.index = 1;
  gpu.uuid = "GPU-8932f937-d72c-4106-c12f-20bd9faed9f6";
  gpu.pci_bus_id = "0000:3B:00.0";
  gpu.name = "NVIDIA H200";
  r.devices = {gpu};
  auto back = PlanningResultFromText(PlanningResultToText(r));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(reports::PlanDifference(r.plan, back->plan), "");
  EXPECT_EQ(back->plan.cases[0].error, c.error);
  EXPECT_FALSE(back->device.usable);
  EXPECT_EQ(back->device.reason, r.device.reason);
  ASSERT_EQ(back->devices.size(), 1u);
  EXPECT_EQ(back->devices[0].index, 1);
  EXPECT_EQ(back->devices[0].uuid, gpu.uuid);
  EXPECT_EQ(back->devices[0].pci_bus_id, gpu.pci_bus_id);
  EXPECT_FALSE(back->ab_new.has_value());
  EXPECT_TRUE(back->refusals.empty());
  r.refusals = {{c.key, "head_dim 32 not supported:\n64 and 128 only"}};
  auto with_refusals = PlanningResultFromText(PlanningResultToText(r));
  ASSERT_TRUE(with_refusals.ok()) << with_refusals.status();
  EXPECT_EQ(with_refusals->refusals, r.refusals);
  r.refusals.clear();
  std::string bad = PlanningResultToText(r);  // a JSON object: its refusals added as a list
  bad.insert(bad.size() - 1, R"(,"refusals":[1])");
  auto refused = PlanningResultFromText(bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("refusals is not an object"), std::string::npos);
  r.ab_new = r.plan;
  r.ab_new->suite_sha256 = "11ee";
  auto ab = PlanningResultFromText(PlanningResultToText(r));
  ASSERT_TRUE(ab.ok()) << ab.status();
  ASSERT_TRUE(ab->ab_new.has_value());
  EXPECT_EQ(ab->ab_new->suite_sha256, "11ee");
  EXPECT_FALSE(PlanningResultFromText("{}").ok());
  EXPECT_FALSE(PlanningResultFromText("not json").ok());
}

}  // namespace
}  // namespace flashscope::suites::protocol
