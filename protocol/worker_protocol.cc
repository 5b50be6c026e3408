#include "protocol/worker_protocol.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"
#include "reports/json_fields.h"
#include "reports/json_strict.h"
#include "reports/report_json.h"

namespace flashscope::suites::protocol {
namespace {

using Json = nlohmann::json;

const std::map<Command, std::string>& CommandNames() {
  static const std::map<Command, std::string> names = {{Command::kPlan, "plan"},
                                                       {Command::kRun, "run"},
                                                       {Command::kList, "list"},
                                                       {Command::kMetrics, "metrics"},
                                                       {Command::kAb, "ab"}};
  return names;
}

const std::map<Event, std::string>& EventTags() {
  static const std::map<Event, std::string> tags = {
      {Event::kLoad, "LOAD"},      {Event::kLoaded, "LOADED"},  {Event::kCaseStarted, "S"},
      {Event::kPhase, "P"},        {Event::kCaseFinished, "F"}, {Event::kSide, "SIDE"},
      {Event::kPairVerdict, "AB"}, {Event::kNote, "NOTE"},      {Event::kFatal, "FATAL"}};
  return tags;
}

// Text inside one line (or one tab-separated field): '%', newlines and tabs escaped.
std::string Escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '%') {
      out += "%25";
    } else if (c == '\n') {
      out += "%0A";
    } else if (c == '\r') {
      out += "%0D";
    } else if (c == '\t') {
      out += "%09";
    } else {
      out += c;
    }
  }
  return out;
}

std::string Unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      const std::string_view code = s.substr(i + 1, 2);
      const char c = code == "25"   ? '%'
                     : code == "0A" ? '\n'
                     : code == "0D" ? '\r'
                     : code == "09" ? '\t'
                                    : 0;
      if (c != 0) {
        out += c;
        i += 2;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

absl::Status BadArg(const std::string& arg, const std::string& why) {
  return absl::InvalidArgumentError(
      absl::StrCat("flashscope-worker: argument '", arg, "': ", why,
                   " (flashscope-worker is started by flashscope; it is not meant to be run by "
                   "hand)"));
}

}  // namespace

std::vector<std::string> WorkerArgv(const std::string& worker_exe, const WorkerRequest& r) {
  std::vector<std::string> argv = {worker_exe, CommandNames().at(r.command)};
  auto add = [&](const char* flag, const std::string& value) {
    argv.push_back(absl::StrCat("--", flag, "=", value));
  };
  if (r.progress_fd >= 0) add("progress_fd", std::to_string(r.progress_fd));
  for (const auto& p : r.plugins) add("plugin", p);
  for (const auto& l : r.lost_plugins) add("lost", Escape(l.path) + "\t" + Escape(l.reason));
  if (!r.ab_base.empty()) add("base", r.ab_base);
  if (!r.ab_new.empty()) add("new", r.ab_new);
  switch (r.command) {
    case Command::kPlan:
      add("suite", r.suite_path);
      add("kernels", r.kernels_filter);
      add("shard", r.shard);
      add("plan_out", r.plan_out);
      if (r.check_supports) argv.push_back("--check_supports");
      break;
    case Command::kAb:
      add("journal", r.journal_path);
      add("new_journal", r.new_journal);
      if (r.command_fd >= 0) add("command_fd", std::to_string(r.command_fd));
      add("device", std::to_string(r.device));
      add("metrics", r.metrics);
      add("ab_seed", std::to_string(r.ab_seed));
      add("ab_alpha", absl::StrFormat("%.17g", r.ab_alpha));
      add("ab_min_effect", absl::StrFormat("%.17g", r.ab_min_effect));
      add("ab_allowed_slowdown", absl::StrFormat("%.17g", r.ab_allowed_slowdown));
      break;
    case Command::kList:
      if (r.all) argv.push_back("--all");
      if (r.plugin_only) argv.push_back("--plugin_only");
      if (!r.kernels_filter.empty()) add("kernels", r.kernels_filter);
      break;
    case Command::kRun:
      add("journal", r.journal_path);
      if (r.command_fd >= 0) add("command_fd", std::to_string(r.command_fd));
      add("device", std::to_string(r.device));
      add("metrics", r.metrics);
      add("dump", r.dump_dir);
      for (const auto& k : r.only_keys) add("only", k);
      if (r.sanitize_rerun) argv.push_back("--sanitize_rerun");
      break;
    case Command::kMetrics:
      add("cc", std::to_string(r.cc));
      break;
  }
  return argv;
}

absl::StatusOr<WorkerRequest> ParseWorkerArgv(const std::vector<std::string>& argv) {
  WorkerRequest r;
  if (argv.size() < 2) return BadArg("", "no command (plan, run, ab, list or metrics)");
  bool known = false;
  for (const auto& [command, name] : CommandNames()) {
    if (argv[1] == name) r.command = command, known = true;
  }
  if (!known) return BadArg(argv[1], "not a command (plan, run, ab, list or metrics)");
  for (size_t i = 2; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (arg == "--all") {
      r.all = true;
      continue;
    }
    if (arg == "--sanitize_rerun") {
      r.sanitize_rerun = true;
      continue;
    }
    if (arg == "--plugin_only") {
      r.plugin_only = true;
      continue;
    }
    if (arg == "--check_supports") {
      r.check_supports = true;
      continue;
    }
    const size_t eq = arg.find('=');
    if (arg.rfind("--", 0) != 0 || eq == std::string::npos) return BadArg(arg, "not --flag=value");
    const std::string flag = arg.substr(2, eq - 2);
    const std::string value = arg.substr(eq + 1);
    const std::map<std::string, int*> integers = {{"progress_fd", &r.progress_fd},
                                                  {"cc", &r.cc},
                                                  {"command_fd", &r.command_fd},
                                                  {"device", &r.device}};
    if (auto integer = integers.find(flag); integer != integers.end()) {
      if (!absl::SimpleAtoi(value, integer->second)) return BadArg(arg, "not an integer");
    } else if (flag == "plugin") {
      r.plugins.push_back(value);
    } else if (flag == "lost") {
      const size_t tab = value.find('\t');
      if (tab == std::string::npos) return BadArg(arg, "expected PATH<tab>REASON");
      r.lost_plugins.push_back({Unescape(value.substr(0, tab)), Unescape(value.substr(tab + 1))});
    } else if (flag == "only") {
      r.only_keys.push_back(value);
    } else if (flag == "ab_seed") {
      if (!absl::SimpleAtoi(value, &r.ab_seed)) return BadArg(arg, "not an unsigned integer");
    } else if (flag == "ab_alpha" || flag == "ab_min_effect" || flag == "ab_allowed_slowdown") {
      double& d = flag == "ab_alpha"        ? r.ab_alpha
                  : flag == "ab_min_effect" ? r.ab_min_effect
                                            : r.ab_allowed_slowdown;
      if (!absl::SimpleAtod(value, &d)) return BadArg(arg, "not a number");
    } else {
      const std::map<std::string, std::string*> text = {
          {"suite", &r.suite_path},       {"kernels", &r.kernels_filter}, {"shard", &r.shard},
          {"plan_out", &r.plan_out},      {"journal", &r.journal_path},   {"metrics", &r.metrics},
          {"dump", &r.dump_dir},          {"base", &r.ab_base},           {"new", &r.ab_new},
          {"new_journal", &r.new_journal}};
      auto it = text.find(flag);
      if (it == text.end()) return BadArg(arg, "unknown flag");
      *it->second = value;
    }
  }
  return r;
}

std::string FormatMessage(const Message& m) {
  const std::string& tag = EventTags().at(m.event);
  switch (m.event) {
    case Event::kCaseStarted:
      return absl::StrCat(tag, " ", Escape(m.key));
    case Event::kCaseFinished:
      return absl::StrCat(tag, " ", Escape(m.status), " ", Escape(m.key));
    case Event::kPhase:
      // Escape leaves spaces (a key has them) but never a tab: the key's separator.
      if (!m.key.empty()) return absl::StrCat(tag, " ", Escape(m.text), "\t", Escape(m.key));
      return absl::StrCat(tag, " ", Escape(m.text));
    default:
      return absl::StrCat(tag, " ", Escape(m.text));
  }
}

std::optional<Message> ParseMessage(std::string_view line) {
  const size_t space = line.find(' ');
  const std::string_view tag = line.substr(0, space);
  const std::string_view rest = space == std::string_view::npos ? "" : line.substr(space + 1);
  for (const auto& [event, name] : EventTags()) {
    if (tag != name) continue;
    Message m;
    m.event = event;
    if (event == Event::kCaseStarted) {
      m.key = Unescape(rest);
    } else if (event == Event::kCaseFinished) {
      const size_t sp = rest.find(' ');
      if (sp == std::string_view::npos) return std::nullopt;
      m.status = Unescape(rest.substr(0, sp));
      m.key = Unescape(rest.substr(sp + 1));
    } else if (const size_t tab = rest.find('\t');
               event == Event::kPhase && tab != std::string_view::npos) {
      m.text = Unescape(rest.substr(0, tab));
      m.key = Unescape(rest.substr(tab + 1));
    } else {
      m.text = Unescape(rest);
    }
    return m;
  }
  return std::nullopt;
}

int SideIndex(std::string_view name) {
  for (int side = 0; side < 2; ++side) {
    if (name == kSideNames[side]) return side;
  }
  return -1;
}

std::string FormatRunCommand(const std::string& key) { return "RUN " + Escape(key); }

std::optional<std::string> ParseRunCommand(std::string_view line) {
  constexpr std::string_view kTag = "RUN ";
  if (line.substr(0, kTag.size()) != kTag) return std::nullopt;
  return Unescape(line.substr(kTag.size()));
}

std::optional<std::string> CommandReader::BufferedLine() {
  const size_t nl = buffer_.find('\n');
  if (nl == std::string::npos) return std::nullopt;
  std::string line = buffer_.substr(0, nl);
  buffer_.erase(0, nl + 1);
  return line;
}

std::optional<std::string> CommandReader::Next() {
  std::string key;
  if (NextWithin(-1, &key) == CommandWait::kCommand) return key;
  return std::nullopt;
}

bool CommandReader::Fill(int wait_ms) {
  pollfd pfd{fd_, POLLIN, 0};
  const int ready = poll(&pfd, 1, wait_ms);
  if (ready == 0) return false;
  if (ready < 0 && errno == EINTR) return true;  // interrupted: the caller looks again
  char buf[4096];
  const ssize_t got = ready < 0 ? -1 : read(fd_, buf, sizeof buf);
  if (got < 0 && errno == EINTR) return true;
  if (got <= 0) {
    ended_ = true;  // the supervisor closed the channel (or died)
  } else {
    buffer_.append(buf, static_cast<size_t>(got));
  }
  return true;
}

bool CommandReader::StopBuffered() const {
  const std::string stop = std::string(kStopCommand) + "\n";
  return buffer_.compare(0, stop.size(), stop) == 0 ||
         buffer_.find("\n" + stop) != std::string::npos;
}

CommandWait CommandReader::NextWithin(int timeout_ms, std::string* key) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  while (true) {
    // Everything the channel holds first: a stop overtakes the cases sent before it, so that at
    // the deadline a worker holding a window of hundreds of cases records what it has and ends,
    // within the supervisor's drain time; what follows a stop is not to be run either.
    while (!ended_ && Fill(0)) {
    }
    if (StopBuffered()) {
      ended_ = true;
      buffer_.clear();
      return CommandWait::kEnd;
    }
    while (std::optional<std::string> line = BufferedLine()) {
      if (std::optional<std::string> command = ParseRunCommand(*line)) {
        *key = *std::move(command);
        return CommandWait::kCommand;
      }
      std::fprintf(stderr, "flashscope-worker: not a command, ignored: '%s'\n", line->c_str());
    }
    // A partial line without its end is dropped with the channel: the supervisor never sent it.
    if (ended_) return CommandWait::kEnd;
    int wait_ms = -1;
    if (timeout_ms >= 0) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
      wait_ms = static_cast<int>(std::max<int64_t>(0, left.count()));
    }
    if (!Fill(wait_ms)) return CommandWait::kNone;
  }
}

void Tell(int fd, const Message& m) {
  if (fd < 0) return;
  const std::string line = FormatMessage(m) + "\n";
  // One write: lines up to PIPE_BUF bytes reach the pipe whole.
  [[maybe_unused]] ssize_t n = write(fd, line.data(), line.size());
}

int TellFatal(int fd, const std::string& message, int exit_code) {
  Tell(fd, {Event::kFatal, "", "", message});
  if (fd < 0) std::fprintf(stderr, "flashscope-worker: %s\n", message.c_str());
  return exit_code;
}

std::string CrashReason(const std::string& phase, const reports::ProvenanceRecord* provenance,
                        const std::string& cause) {
  if (phase.empty()) {
    return absl::StrCat("the worker process died (", cause,
                        ") after this case started, before its first phase");
  }
  const bool kernel_code = phase == phase::kSupports || phase == phase::kPrepare ||
                           phase == phase::kLaunch || phase == phase::kTiming ||
                           phase == phase::kDeviceFunctions || phase == phase::kProfiling;
  if (!kernel_code) {
    return absl::StrCat("the worker process died (", cause, ") in phase ", phase,
                        " while running this case");
  }
  const std::string where = phase == phase::kSupports          ? "in supports()"
                            : phase == phase::kDeviceFunctions ? "in device_functions()"
                            : phase == phase::kPrepare         ? "in prepare()"
                            : phase == phase::kLaunch          ? "at launch"
                                                      : absl::StrCat("at launch (", phase, ")");
  if (provenance != nullptr && !provenance->builtin) {
    return absl::StrCat("plugin ", provenance->path, " (", provenance->plugin, " ",
                        provenance->version, ") crashed ", where, ": ", cause);
  }
  return absl::StrCat("the worker process died (", cause, ") ", where, " while running this case");
}

std::string PlanningResultToText(const PlanningResult& r) {
  Json device = {{"usable", r.device.usable},
                 {"name", r.device.name},
                 {"cc", r.device.cc},
                 {"reason", r.device.reason}};
  Json devices = Json::array();
  for (const reports::DeviceRecord& d : r.devices) devices.push_back(reports::DeviceToJson(d));
  Json j = {{"plan", reports::PlanToJson(r.plan)}, {"device", device}, {"devices", devices}};
  if (r.ab_new) j["ab_new"] = reports::PlanToJson(*r.ab_new);
  if (!r.refusals.empty()) j["refusals"] = r.refusals;
  return reports::jsonio::Dump(j);
}

absl::StatusOr<PlanningResult> PlanningResultFromText(const std::string& text) {
  absl::StatusOr<Json> parsed =
      reports::jsonio::ParseStrict(text, "the worker's planning result", "a plan");
  if (!parsed.ok()) return absl::DataLossError(parsed.status().message());
  Json j = *std::move(parsed);
  if (!j.is_object() || !j.contains("plan") || !j.contains("device")) {
    return absl::DataLossError(
        "the worker's planning result is not what flashscope-worker writes"
        " (a flashscope-worker of another version?)");
  }
  PlanningResult r;
  absl::StatusOr<reports::PlanRecord> plan = reports::PlanFromJson(j["plan"]);
  if (!plan.ok()) {
    return absl::DataLossError(absl::StrCat("the worker's plan: ", plan.status().message()));
  }
  r.plan = *std::move(plan);
  if (j.contains("ab_new")) {
    absl::StatusOr<reports::PlanRecord> next = reports::PlanFromJson(j["ab_new"]);
    if (!next.ok()) {
      return absl::DataLossError(
          absl::StrCat("the worker's plan of the new side: ", next.status().message()));
    }
    r.ab_new = *std::move(next);
  }
  const Json& d = j["device"];
  auto has = [&](const char* key, bool (Json::*is)() const noexcept) {
    return d.is_object() && d.contains(key) && (d[key].*is)();
  };
  if (!has("usable", &Json::is_boolean) || !has("name", &Json::is_string) ||
      !has("cc", &Json::is_number_integer) || !has("reason", &Json::is_string)) {
    return absl::DataLossError("the worker's planning result has no valid device record");
  }
  r.device.usable = d["usable"].get<bool>();
  r.device.name = d["name"].get<std::string>();
  r.device.cc = d["cc"].get<int>();
  r.device.reason = d["reason"].get<std::string>();
  if (j.contains("refusals")) {
    const Json& refusals = j["refusals"];
    if (!refusals.is_object()) {
      return absl::DataLossError("the worker's planning result: refusals is not an object");
    }
    for (const auto& [key, why] : refusals.items()) {
      if (!why.is_string()) {
        return absl::DataLossError("the worker's planning result: a refusal is not text");
      }
      r.refusals[key] = why.get<std::string>();
    }
  }
  if (j.contains("devices") && j["devices"].is_array()) {
    for (const Json& one : j["devices"]) {
      absl::StatusOr<reports::DeviceRecord> device = reports::DeviceFromJson(one);
      if (!device.ok()) {
        return absl::DataLossError(
            absl::StrCat("the worker's planning result: devices: ", device.status().message()));
      }
      r.devices.push_back(*std::move(device));
    }
  }
  return r;
}

}  // namespace flashscope::suites::protocol
