#include "supervisor/sanitizer_output.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace flashscope::suites {
namespace {

bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// The first integer at or after `from` in `s`; -1 if none.
int64_t FirstInteger(const std::string& s, size_t from) {
  size_t i = from;
  while (i < s.size() && !std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i == s.size()) return -1;
  int64_t v = 0;
  for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) {
    if (v > (int64_t{1} << 56)) break;  // absurd counts stop growing rather than overflow
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

// Lines compute-sanitizer prints about itself or the application as a whole, not about a kernel.
bool IsToolStatusLine(const std::string& body) {
  static const char* const kPrefixes[] = {"COMPUTE-SANITIZER",
                                          "Target application",
                                          "Error: process didn't terminate",
                                          "Error: Target application",
                                          "Error: No attachable process",
                                          "Error: Could not",
                                          "Internal Sanitizer Error",
                                          "LEAK SUMMARY",
                                          "Note:",
                                          "Tool"};
  for (const char* p : kPrefixes) {
    if (StartsWith(body, p)) return true;
  }
  return false;
}

bool IsBacktraceLine(const std::string& detail) {
  return StartsWith(detail, "Saved host backtrace") || StartsWith(detail, "Host Frame") ||
         StartsWith(detail, "Device Frame") || StartsWith(detail, "in /") ||
         StartsWith(detail, "in [");
}

}  // namespace

const std::vector<std::string>& SanitizerTools() {
  static const std::vector<std::string> kTools = {"memcheck", "racecheck", "initcheck",
                                                  "synccheck"};
  return kTools;
}

absl::Status CheckSanitizerTool(const std::string& tool) {
  for (const std::string& t : SanitizerTools()) {
    if (t == tool) return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat("--sanitize=", tool,
                                                 ": unknown compute-sanitizer tool (expected ",
                                                 absl::StrJoin(SanitizerTools(), ", "), ")"));
}

absl::StatusOr<std::string> FindComputeSanitizer() {
  std::vector<std::string> looked;
  if (const char* path = std::getenv("PATH")) {
    for (absl::string_view dir : absl::StrSplit(path, ':', absl::SkipEmpty())) {
      std::string candidate = absl::StrCat(dir, "/compute-sanitizer");
      if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    looked.push_back("$PATH");
  }
  std::vector<std::string> dirs;
  if (const char* home = std::getenv("CUDA_HOME")) dirs.push_back(absl::StrCat(home, "/bin"));
  dirs.push_back("/usr/local/cuda/bin");
  for (const std::string& dir : dirs) {
    if (std::find(looked.begin(), looked.end(), dir) != looked.end()) continue;
    std::string candidate = dir + "/compute-sanitizer";
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    looked.push_back(dir);
  }
  return absl::NotFoundError(absl::StrCat(
      "compute-sanitizer not found (looked in ", absl::StrJoin(looked, ", "),
      "); it ships with the CUDA toolkit: put its bin folder on PATH or set CUDA_HOME"));
}

std::string SanitizerErrorKind(const std::string& headline) {
  std::string h = Trim(headline);
  if (StartsWith(h, "Leaked ")) return "Leaked device memory";
  // The kind ends where the details of this one instance begin: a size, a cause, a location, or
  // a second sentence ("Barrier error detected. Divergent thread(s) in warp").
  static const char* const kCuts[] = {" of size ", " due to ", " on CUDA API call", " at ", ". "};
  size_t cut = std::string::npos;
  for (const char* c : kCuts) {
    size_t at = h.find(c);
    if (at != std::string::npos && at > 0 && at < cut) cut = at;
  }
  if (cut != std::string::npos) h = h.substr(0, cut);
  while (!h.empty() && (h.back() == '.' || h.back() == ' ')) h.pop_back();
  return h;
}

std::string SanitizerKernelName(const std::string& location_line) {
  std::string s = Trim(location_line);
  size_t at = s.find("at ");
  if (at == std::string::npos) return "";
  s = s.substr(at + 3);
  // Racecheck appends "[N hazards]" to its location.
  if (size_t bracket = s.rfind(" ["); bracket != std::string::npos && s.back() == ']') {
    s = s.substr(0, bracket);
  }
  if (StartsWith(s, "0x")) {
    size_t in = s.find(" in ");
    if (in == std::string::npos) return "";
    std::string rest = s.substr(in + 4);
    // "path:line:function" when built with -lineinfo; else just the function.
    for (size_t colon = rest.find(':'); colon != std::string::npos;
         colon = rest.find(':', colon + 1)) {
      size_t d = colon + 1;
      while (d < rest.size() && std::isdigit(static_cast<unsigned char>(rest[d]))) ++d;
      if (d > colon + 1 && d < rest.size() && rest[d] == ':') return Trim(rest.substr(d + 1));
    }
    // "file.cu:12" alone names no function.
    if (rest.find('(') == std::string::npos && rest.find(':') != std::string::npos) return "";
    return Trim(rest);
  }
  size_t plus = s.rfind("+0x");
  if (plus == std::string::npos) return "";
  return Trim(s.substr(0, plus));
}

reports::SanitizerRecord ParseSanitizerOutput(const std::string& tool, const std::string& log) {
  reports::SanitizerRecord r;
  r.tool = tool;
  bool have_error_summary = false, have_race_summary = false;
  int64_t race_errors = 0;
  std::vector<std::string> status_lines;
  reports::SanitizerFinding* open = nullptr;  // the finding whose detail lines follow
  int open_details = 0;
  bool open_in_backtrace = false;

  std::istringstream in(log);
  std::string line;
  const std::string kPrefix = "=========";
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!StartsWith(line, kPrefix)) continue;  // the application's own output, if mixed in
    std::string body = line.substr(kPrefix.size());
    if (!body.empty() && body[0] == ' ') body.erase(0, 1);
    if (Trim(body).empty()) {
      open = nullptr;
      continue;
    }
    const bool detail = std::isspace(static_cast<unsigned char>(body[0]));
    body = Trim(body);
    if (detail) {
      if (open == nullptr) continue;
      if (IsBacktraceLine(body)) open_in_backtrace = true;
      if (open_in_backtrace) continue;
      if (open->kernel.empty() && StartsWith(body, "at ")) {
        open->kernel = SanitizerKernelName(body);
      }
      if (open_details < 3) {
        absl::StrAppend(&open->message, "\n", body);
        ++open_details;
      }
      continue;
    }
    open = nullptr;
    if (StartsWith(body, "ERROR SUMMARY:")) {
      have_error_summary = true;
      r.errors = std::max<int64_t>(0, FirstInteger(body, 14));
      continue;
    }
    if (StartsWith(body, "RACECHECK SUMMARY:")) {
      have_race_summary = true;
      size_t paren = body.find('(');
      race_errors =
          paren == std::string::npos ? 0 : std::max<int64_t>(0, FirstInteger(body, paren));
      continue;
    }
    if (IsToolStatusLine(body)) {
      if (!StartsWith(body, "COMPUTE-SANITIZER")) status_lines.push_back(body);
      continue;
    }
    // A finding's headline.
    const std::string kind = SanitizerErrorKind(body);
    r.kinds[kind] += 1;
    if (static_cast<int>(r.findings.size()) < kMaxSanitizerFindings) {
      reports::SanitizerFinding f;
      f.kind = kind;
      f.message = body;
      // Racecheck names the location in the headline itself.
      if (size_t at = body.find(" at "); at != std::string::npos) {
        f.kernel = SanitizerKernelName(body.substr(at + 1));
      }
      r.findings.push_back(std::move(f));
      open = &r.findings.back();
      open_details = 0;
      open_in_backtrace = false;
    }
  }
  if (have_error_summary) {
    r.ran = true;
  } else if (have_race_summary) {
    r.ran = true;
    r.errors = race_errors;
  } else {
    r.note = "compute-sanitizer printed no ERROR SUMMARY line: the tool did not finish";
  }
  if (!status_lines.empty()) {
    absl::StrAppend(&r.note, r.note.empty() ? "" : "; ", absl::StrJoin(status_lines, "; "));
  }
  return r;
}

}  // namespace flashscope::suites
