#include "cli/args.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace flashscope::cli {

Flag::Flag(std::string name, Kind kind, std::string value_name, std::string help)
    : name_(std::move(name)),
      kind_(kind),
      value_name_(std::move(value_name)),
      help_(std::move(help)) {}

Flag Flag::String(std::string name, std::string value_name, std::string help) {
  return Flag(std::move(name), Kind::kString, std::move(value_name), std::move(help));
}

Flag Flag::Bool(std::string name, std::string help) {
  return Flag(std::move(name), Kind::kBool, "", std::move(help));
}

Flag Flag::Int(std::string name, std::string value_name, std::string help, int default_value) {
  Flag f(std::move(name), Kind::kInt, std::move(value_name), std::move(help));
  f.default_text_ = std::to_string(default_value);
  return f;
}

Flag Flag::Double(std::string name, std::string value_name, std::string help,
                  double default_value) {
  Flag f(std::move(name), Kind::kDouble, std::move(value_name), std::move(help));
  f.default_text_ = absl::StrFormat("%g", default_value);
  return f;
}

Flag Flag::List(std::string name, std::string value_name, std::string help) {
  return Flag(std::move(name), Kind::kList, std::move(value_name), std::move(help));
}

Flag& Flag::Choices(std::vector<std::string> choices) {
  choices_ = std::move(choices);
  if (default_text_.empty() && kind_ == Kind::kString) default_text_ = choices_.front();
  return *this;
}

Flag& Flag::Alias(std::string alias, std::string choice) {
  aliases_[std::move(alias)] = std::move(choice);
  return *this;
}

Flag& Flag::ImplicitValue(std::string value) {
  implicit_value_ = std::move(value);
  return *this;
}

Flag& Flag::Check(std::function<std::string(double)> check) {
  check_ = std::move(check);
  return *this;
}

Flag& Flag::Hidden() {
  hidden_ = true;
  return *this;
}

std::string Flag::Synopsis() const {
  if (kind_ == Kind::kBool) return "--" + name_;
  if (implicit_value_) return absl::StrCat("--", name_, "[=", value_name_, "]");
  return absl::StrCat("--", name_, " ", value_name_);
}

std::string Flag::Describe() const {
  std::string out = help_;
  if (!choices_.empty()) absl::StrAppend(&out, " (", absl::StrJoin(choices_, ", "), ")");
  if (kind_ == Kind::kList) absl::StrAppend(&out, " (repeatable)");
  if ((kind_ == Kind::kInt || kind_ == Kind::kDouble || !choices_.empty()) &&
      !default_text_.empty()) {
    absl::StrAppend(&out, "; default ", default_text_);
  }
  return out;
}

std::function<std::string(double)> AtLeast(double lo) {
  return [lo](double v) {
    if (!(v >= lo)) return absl::StrFormat("must be at least %g", lo);
    return std::string();
  };
}

bool Args::Given(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) {
    std::fprintf(stderr, "flashscope %s: internal error: flag --%s is not declared\n",
                 command_.c_str(), name.c_str());
    std::abort();
  }
  return it->second.given;
}

const Args::Value& Args::Get(const std::string& name, Flag::Kind kind) const {
  auto it = values_.find(name);
  if (it == values_.end() || it->second.kind != kind) {
    std::fprintf(stderr,
                 "flashscope %s: internal error: flag --%s is not declared with this type\n",
                 command_.c_str(), name.c_str());
    std::abort();
  }
  return it->second;
}

const std::string& Args::String(const std::string& name) const {
  return Get(name, Flag::Kind::kString).text;
}
bool Args::Bool(const std::string& name) const { return Get(name, Flag::Kind::kBool).b; }
int Args::Int(const std::string& name) const { return Get(name, Flag::Kind::kInt).i; }
double Args::Double(const std::string& name) const { return Get(name, Flag::Kind::kDouble).d; }
const std::vector<std::string>& Args::List(const std::string& name) const {
  return Get(name, Flag::Kind::kList).list;
}

Command& Command::Add(Flag flag) {
  flags.push_back(std::move(flag));
  return *this;
}

const Flag* Command::FindFlag(const std::string& flag_name) const {
  for (const Flag& f : flags) {
    if (f.name() == flag_name) return &f;
  }
  return nullptr;
}

namespace {

// `text` broken at spaces into lines of at most `width` columns, every line after the first
// indented by `indent` spaces.
std::string Wrap(const std::string& text, size_t indent, size_t width) {
  std::string out, line;
  for (absl::string_view word : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    if (!line.empty() && indent + line.size() + 1 + word.size() > width) {
      absl::StrAppend(&out, line, "\n", std::string(indent, ' '));
      line.clear();
    }
    absl::StrAppend(&line, line.empty() ? "" : " ", word);
  }
  return out + line;
}

}  // namespace

std::string Command::Help() const {
  std::string out = absl::StrCat("usage: ", Invocation(), usage.empty() ? "" : " ", usage,
                                 flags.empty() ? "" : " [flags]", "\n\n", summary, "\n");
  if (!details.empty()) absl::StrAppend(&out, "\n", details, "\n");
  size_t width = 0;
  for (const Flag& f : flags) {
    if (!f.hidden()) width = std::max(width, f.Synopsis().size());
  }
  if (width > 0) out += "\nflags:\n";
  for (const Flag& f : flags) {
    if (f.hidden()) continue;
    absl::StrAppend(&out, absl::StrFormat("  %-*s  ", static_cast<int>(width), f.Synopsis()),
                    Wrap(f.Describe(), width + 4, 100), "\n");
  }
  absl::StrAppend(&out, "  ", absl::StrFormat("%-*s  ", static_cast<int>(width), "--help"),
                  "this help\n");
  return out;
}

}  // namespace flashscope::cli
