// The reports the viewer shows, loaded through the reports library (the viewer parses nothing
// itself), with live reload: each file's modification time and size are polled and the file is
// read again when either changes. A load that fails keeps the last good version on screen and
// records the error for the error panel; it never ends the program.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "reports/report.h"

namespace flashscope::viewer {

struct LoadedReport {
  std::string path;  // empty for a report held in memory
  std::string name;  // shown in the UI: the path, or the in-memory report's name
  std::shared_ptr<const reports::Report> report;  // last good version, null if none yet
  std::string error;                              // the last load's error (empty when it succeeded)
  uint64_t generation = 0;                        // changes whenever `report` is replaced
  int64_t mtime_ns = -1;                          // of the file when last read (-1: could not stat)
  int64_t size = -1;
  int loads = 0;  // successful loads, for the status line
};

class Session {
 public:
  // `paths` in the order given on the command line: the first is the base of comparisons.
  explicit Session(std::vector<std::string> paths);

  // Loads every file; returns the number that failed.
  int LoadAll();
  // Stats each file and reloads those that changed since they were read; returns how many were
  // reloaded (successfully or not). Cheap: one stat per file; call it every ~0.5 s.
  int PollForChanges();

  // Adds a report held in memory (no file, never reloaded); for tests and generated reports.
  void AddInMemory(std::string name, reports::Report report);

  const std::vector<LoadedReport>& reports() const { return reports_; }
  int ErrorCount() const;

 private:
  void Load(LoadedReport& r);
  std::vector<LoadedReport> reports_;
  uint64_t next_generation_ = 1;
};

// Describes what to do about a load error: the message from the reports library plus a hint.
std::string ErrorHint(const std::string& error);

}  // namespace flashscope::viewer
