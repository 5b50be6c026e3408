#include "viewer/session.h"

#include <sys/stat.h>

#include <exception>
#include <utility>

#include "reports/report_json.h"

namespace flashscope::viewer {
namespace {

bool StatFile(const std::string& path, int64_t* mtime_ns, int64_t* size) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  *mtime_ns = int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  *size = int64_t(st.st_size);
  return true;
}

bool Has(const std::string& s, const char* needle) { return s.find(needle) != std::string::npos; }

}  // namespace

Session::Session(std::vector<std::string> paths) {
  for (auto& p : paths) {
    LoadedReport r;
    r.name = p;
    r.path = std::move(p);
    reports_.push_back(std::move(r));
  }
}

void Session::Load(LoadedReport& r) {
  int64_t mtime = -1, size = -1;
  if (!StatFile(r.path, &mtime, &size)) {
    r.mtime_ns = -1;
    r.size = -1;
    r.error = r.path + ": cannot read the file (missing or no permission)";
    return;
  }
  r.mtime_ns = mtime;
  r.size = size;
  try {
    absl::StatusOr<reports::Report> loaded = reports::ReadReportFile(r.path);
    if (!loaded.ok()) {
      r.error = std::string(loaded.status().message());
      if (!Has(r.error, r.path.c_str())) r.error = r.path + ": " + r.error;
      return;
    }
    r.report = std::make_shared<const reports::Report>(*std::move(loaded));
  } catch (const std::exception& e) {
    // The reader reports errors as statuses; this guards the "never crash" promise regardless.
    r.error = r.path + ": unexpected exception while reading: " + e.what();
    return;
  }
  r.error.clear();
  r.generation = next_generation_++;
  ++r.loads;
}

int Session::LoadAll() {
  int failed = 0;
  for (auto& r : reports_) {
    if (r.path.empty()) continue;  // in-memory
    Load(r);
    failed += r.error.empty() ? 0 : 1;
  }
  return failed;
}

int Session::PollForChanges() {
  int reloaded = 0;
  for (auto& r : reports_) {
    if (r.path.empty()) continue;
    int64_t mtime = -1, size = -1;
    bool ok = StatFile(r.path, &mtime, &size);
    if (!ok && r.mtime_ns == -1) continue;  // still missing; error already shown
    if (ok && mtime == r.mtime_ns && size == r.size) continue;
    Load(r);
    ++reloaded;
  }
  return reloaded;
}

void Session::AddInMemory(std::string name, reports::Report report) {
  LoadedReport r;
  r.report = std::make_shared<const reports::Report>(std::move(report));
  r.generation = next_generation_++;
  r.loads = 1;
  r.name = std::move(name);
  reports_.push_back(std::move(r));
}

int Session::ErrorCount() const {
  int n = 0;
  for (const auto& r : reports_) n += r.error.empty() ? 0 : 1;
  return n;
}

std::string ErrorHint(const std::string& error) {
  if (Has(error, "JSON") || Has(error, "json") || Has(error, "syntax")) {
    return "The file is not valid JSON (truncated copy, or a run still writing it?). A run's "
           ".jsonl journal can be opened instead to see the cases finished so far.";
  }
  if (Has(error, "schema_version") || Has(error, "version")) {
    return "The report was written by a different flashscope version: open it with the "
           "matching viewer, or re-run the suite with this version.";
  }
  if (Has(error, "cannot read") || Has(error, "No such file") || Has(error, "missing")) {
    return "Check the path; the viewer keeps polling and loads the file when it appears.";
  }
  if (Has(error, "empty")) {
    return "The file is empty: a run may still be starting. It is reloaded when it changes.";
  }
  return "Fix or regenerate the report; the viewer reloads it when the file changes.";
}

}  // namespace flashscope::viewer
