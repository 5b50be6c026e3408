// The per-case phase trace of a worker (runner/phase_trace.h): off unless asked for, one JSON line
// per case whose segments add up to the case's span and name the wait, the phases and the journal.
#include "runner/phase_trace.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "nlohmann/json.hpp"

namespace flashscope::runner {
namespace {

namespace fs = std::filesystem;

std::string TempPath(const std::string& name) {
  return (fs::temp_directory_path() / (name + std::to_string(::getpid()))).string();
}

TEST(PhaseTraceTest, OffUnlessTheEnvironmentNamesAFile) {
  ::unsetenv("FLASHSCOPE_PHASE_TRACE");
  EXPECT_EQ(PhaseTrace::FromEnvironment(0), nullptr);
  ::setenv("FLASHSCOPE_PHASE_TRACE", "", 1);
  EXPECT_EQ(PhaseTrace::FromEnvironment(0), nullptr);
  ::setenv("FLASHSCOPE_PHASE_TRACE", "/nonexistent-folder/trace.jsonl", 1);
  EXPECT_EQ(PhaseTrace::FromEnvironment(0), nullptr) << "an unopenable file traces nothing";
  ::unsetenv("FLASHSCOPE_PHASE_TRACE");
}

TEST(PhaseTraceTest, OneLinePerCaseWithSegmentsThatAddUpToItsSpan) {
  const std::string path = TempPath("phase_trace_");
  fs::remove(path);
  ::setenv("FLASHSCOPE_PHASE_TRACE", path.c_str(), 1);
  {
    auto trace = PhaseTrace::FromEnvironment(3);
    ASSERT_NE(trace, nullptr);
    for (const char* key : {"a", "b"}) {
      trace->Mark("wait");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      trace->CaseBegins(key);
      trace->Mark("journal_started");
      trace->Mark("timing");
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
      trace->Mark("journal_finished");
      trace->CaseEnds();
    }
  }
  ::unsetenv("FLASHSCOPE_PHASE_TRACE");
  std::ifstream in(path);
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) {
    const auto j = nlohmann::json::parse(line);
    EXPECT_EQ(j.at("key"), lines == 0 ? "a" : "b");
    EXPECT_EQ(j.at("device"), 3);
    const auto& seg = j.at("segments");
    EXPECT_GE(seg.at("wait").get<double>(), 0.015);
    EXPECT_GE(seg.at("timing").get<double>(), 0.025);
    EXPECT_TRUE(seg.contains("journal_started") && seg.contains("journal_finished"));
    double sum = 0;
    for (const auto& [name, s] : seg.items()) sum += s.get<double>();
    EXPECT_NEAR(sum, j.at("total_s").get<double>(), 0.005) << line;
    ++lines;
  }
  EXPECT_EQ(lines, 2);
  fs::remove(path);
}

}  // namespace
}  // namespace flashscope::runner
