// ParseCommandArgs: the words after the command name -> Args, a help request, or an error that
// names the flag (and the closest known one).
#include <algorithm>
#include <cmath>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/args.h"

namespace flashscope::cli {

class Parser {
 public:
  Parser(const Command& command, const std::vector<Command>& all, const std::string& command_line)
      : command_(command), all_(all) {
    out_.kind = ParseOutcome::Kind::kRun;
    out_.args.command_ = command.name;
    out_.args.command_line_ = command_line;
    for (const Flag& f : command.flags) {
      Args::Value v;
      v.kind = f.kind_;
      if (!f.default_text_.empty()) (void)Assign(f, f.default_text_, &v);
      v.given = false;
      out_.args.values_[f.name_] = std::move(v);
    }
  }

  ParseOutcome Run(const std::vector<std::string>& words) {
    for (size_t i = 0; i < words.size() && out_.kind == ParseOutcome::Kind::kRun; ++i) {
      const std::string& w = words[i];
      if (w == "--") {
        out_.args.positional_.insert(out_.args.positional_.end(), words.begin() + i + 1,
                                     words.end());
        break;
      }
      if (w.size() < 2 || w[0] != '-') {
        out_.args.positional_.push_back(w);
        continue;
      }
      OneFlag(words, &i);
    }
    if (out_.kind == ParseOutcome::Kind::kRun) CheckPositionalCount();
    return std::move(out_);
  }

 private:
  void Error(std::string message) {
    if (out_.kind == ParseOutcome::Kind::kError) return;
    out_.kind = ParseOutcome::Kind::kError;
    out_.error = std::move(message);
  }

  // One "-x", "--x" or "--x=v" at words[*i]; consumes the next word when it is the value.
  void OneFlag(const std::vector<std::string>& words, size_t* i) {
    std::string body = words[*i].substr(words[*i][1] == '-' ? 2 : 1);
    std::optional<std::string> value;
    if (size_t eq = body.find('='); eq != std::string::npos) {
      value = body.substr(eq + 1);
      body = body.substr(0, eq);
    }
    // Flags are declared with underscores; the dashes many tools use are the same flag
    // (--out-dir is --out_dir, --dry-run is --dry_run).
    std::replace(body.begin(), body.end(), '-', '_');
    if (body == "help" || body == "h") {
      out_.kind = ParseOutcome::Kind::kHelp;
      return;
    }
    const Flag* flag = command_.FindFlag(body);
    bool negated = false;
    if (flag == nullptr && absl::StartsWith(body, "no")) {
      const Flag* base = command_.FindFlag(body.substr(absl::StartsWith(body, "no_") ? 3 : 2));
      if (base != nullptr && base->kind_ == Flag::Kind::kBool && !value) {
        flag = base;
        negated = true;
      }
    }
    if (flag == nullptr) return Unknown(body);
    Args::Value& v = out_.args.values_[flag->name_];
    if (negated) {
      v.b = false;
      v.given = true;
      return;
    }
    if (!value) {
      if (flag->kind_ == Flag::Kind::kBool) {
        value = "true";
      } else if (flag->implicit_value_) {
        value = *flag->implicit_value_;
        // `--sanitize racecheck` means a positional "racecheck": remember it for the message.
        if (*i + 1 < words.size() && words[*i + 1][0] != '-') {
          implicit_hint_ = {words[*i + 1], flag->name_};
        }
      } else if (*i + 1 < words.size()) {
        value = words[++*i];
      } else {
        return Error(absl::StrCat("--", flag->name_, " needs a value (", flag->value_name_, ")"));
      }
    }
    if (std::string e = Assign(*flag, *value, &v); !e.empty()) {
      return Error(absl::StrCat("--", flag->name_, "=", *value, ": ", e));
    }
    v.given = true;
  }

  // Parses `text` into `v` for `flag`; returns what is wrong, or "".
  static std::string Assign(const Flag& flag, const std::string& text, Args::Value* v) {
    switch (flag.kind_) {
      case Flag::Kind::kBool: {
        const std::string t = absl::AsciiStrToLower(text);
        if (t == "true" || t == "yes" || t == "1") {
          v->b = true;
        } else if (t == "false" || t == "no" || t == "0") {
          v->b = false;
        } else {
          return "not a boolean (true or false)";
        }
        return "";
      }
      case Flag::Kind::kInt:
        if (!absl::SimpleAtoi(text, &v->i)) return "not an integer";
        if (flag.check_) return flag.check_(v->i);
        return "";
      case Flag::Kind::kDouble:
        if (!absl::SimpleAtod(text, &v->d)) return "not a number";
        if (!std::isfinite(v->d)) return "must be a finite number";
        if (flag.check_) return flag.check_(v->d);
        return "";
      case Flag::Kind::kList:
        v->list.push_back(text);
        return "";
      case Flag::Kind::kString:
        break;
    }
    v->text = text;
    if (flag.choices_.empty()) return "";
    if (auto a = flag.aliases_.find(text); a != flag.aliases_.end()) v->text = a->second;
    for (const std::string& c : flag.choices_) {
      if (c == v->text) return "";
    }
    std::string hint = DidYouMean(text, flag.choices_);
    return absl::StrCat("expected one of ", absl::StrJoin(flag.choices_, ", "),
                        hint.empty() ? "" : absl::StrCat(" (did you mean ", hint, "?)"));
  }

  void Unknown(const std::string& name) {
    std::vector<std::string> takers;
    for (const Command& c : all_) {
      const Flag* f = c.FindFlag(name);
      if (f != nullptr && !f->hidden_ && !c.hidden) takers.push_back(c.name);
    }
    if (!takers.empty()) {
      return Error(absl::StrCat("--", name, " does not apply to `", command_.Invocation(),
                                "` (it is a flag of: ", absl::StrJoin(takers, ", "), "); `",
                                command_.Invocation(), " --help` lists its flags"));
    }
    std::vector<std::string> known;
    for (const Flag& f : command_.flags) {
      if (!f.hidden_) known.push_back(f.name_);
    }
    std::string hint = DidYouMean(name, known);
    Error(absl::StrCat("unknown flag --", name,
                       hint.empty() ? "" : absl::StrCat(" (did you mean --", hint, "?)"), "; `",
                       command_.Invocation(), " --help` lists its flags"));
  }

  void CheckPositionalCount() {
    const size_t n = out_.args.positional_.size();
    if (n >= command_.min_positional && n <= command_.max_positional) return;
    const std::string usage =
        command_.usage.empty()
            ? absl::StrCat("(", command_.Invocation(), " takes no arguments)")
            : absl::StrCat("(usage: ", command_.Invocation(), " ", command_.usage, ")");
    if (n > command_.max_positional) {
      std::string hint;
      for (const std::string& p : out_.args.positional_) {
        if (p == implicit_hint_.first) {
          hint = absl::StrCat("; --", implicit_hint_.second, " takes its value after '=': --",
                              implicit_hint_.second, "=", p);
        }
      }
      return Error(
          absl::StrCat("unexpected argument '", out_.args.positional_[n - 1], "' ", usage, hint));
    }
    Error(absl::StrCat("missing arguments ", usage));
  }

  const Command& command_;
  const std::vector<Command>& all_;
  ParseOutcome out_;
  std::pair<std::string, std::string> implicit_hint_;  // word after an implicit-value flag, flag
};

ParseOutcome ParseCommandArgs(const Command& command, const std::vector<std::string>& words,
                              const std::vector<Command>& all_commands,
                              const std::string& command_line) {
  return Parser(command, all_commands, command_line).Run(words);
}

}  // namespace flashscope::cli
