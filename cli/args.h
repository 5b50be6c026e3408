// The command-line framework of `flashscope` (and of flashscope-bench's own flags): each command
// declares its positional arguments and the flags that apply to it, with a help line each, and
// gets its own help, strict parsing and "did you mean". Nothing is global: a flag of one command
// given to another is refused (exit 2) instead of being silently accepted.
//
// A command adds a flag with one line in its declaration, e.g. in cmd_run.cc:
//   .Add(Flag::String("kernels", "GLOB", "comma list of kernel ids or globs narrowing the suite"))
// Flags shared by several commands are functions returning a Flag (cli/common_flags.h).
//
// Syntax accepted (Abseil's, which earlier versions used): --name=value, --name value, -name
// (one dash), --bool, --bool=true|false|yes|no|1|0, --nobool, and "--" ending the flags. A flag
// may come before, between or after the positional arguments. Dashes inside a name are read as
// the underscores flags are declared with (--out-dir is --out_dir, --no-force is --noforce).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/closest_names.h"

namespace flashscope::cli {

class Flag {
 public:
  enum class Kind { kString, kBool, kInt, kDouble, kList };

  // A string flag, "" unless given.
  static Flag String(std::string name, std::string value_name, std::string help);
  static Flag Bool(std::string name, std::string help);  // false unless given
  static Flag Int(std::string name, std::string value_name, std::string help, int default_value);
  static Flag Double(std::string name, std::string value_name, std::string help,
                     double default_value);
  // Repeatable: every occurrence adds one value (--plugin a.so --plugin b.so).
  static Flag List(std::string name, std::string value_name, std::string help);

  // The value must be one of these (the help shows them; a typo gets "did you mean").
  Flag& Choices(std::vector<std::string> choices);
  // Aliases accepted as the value and mapped to a choice (e.g. "false" -> "never").
  Flag& Alias(std::string alias, std::string choice);
  // The value of `--name` given without "=value"; such a flag takes its value only after '='.
  Flag& ImplicitValue(std::string value);
  // A check of the parsed number: returns "" when fine, else what is wrong ("must be in (0, 1)").
  Flag& Check(std::function<std::string(double)> check);
  // Not listed in the help (the worker's plumbing).
  Flag& Hidden();

  const std::string& name() const { return name_; }
  Kind kind() const { return kind_; }
  const std::string& help() const { return help_; }
  bool hidden() const { return hidden_; }
  // "--out FILE", "--force", "--sanitize[=TOOL]".
  std::string Synopsis() const;
  // The help line's text: help, choices, default.
  std::string Describe() const;

 private:
  friend class Parser;
  Flag(std::string name, Kind kind, std::string value_name, std::string help);

  std::string name_;
  Kind kind_;
  std::string value_name_;
  std::string help_;
  std::string default_text_;
  std::vector<std::string> choices_;
  std::map<std::string, std::string> aliases_;
  std::optional<std::string> implicit_value_;
  std::function<std::string(double)> check_;
  bool hidden_ = false;
};

// A check for Flag::Check: the number must be at least `lo` (and finite: numeric flags refuse
// NaN and infinities before any check).
std::function<std::string(double)> AtLeast(double lo);

// A command's parsed arguments. Reading a flag the command did not declare is a programming
// error and aborts with its name (the tests run every command).
class Args {
 public:
  const std::vector<std::string>& positional() const { return positional_; }
  bool Given(const std::string& name) const;
  const std::string& String(const std::string& name) const;
  bool Bool(const std::string& name) const;
  int Int(const std::string& name) const;
  double Double(const std::string& name) const;
  const std::vector<std::string>& List(const std::string& name) const;
  // The program's whole command line, words joined by spaces (recorded in reports).
  const std::string& command_line() const { return command_line_; }

 private:
  friend class Parser;
  struct Value {
    Flag::Kind kind;
    bool given = false;
    std::string text;
    bool b = false;
    int i = 0;
    double d = 0;
    std::vector<std::string> list;
  };
  const Value& Get(const std::string& name, Flag::Kind kind) const;

  std::string command_;
  std::vector<std::string> positional_;
  std::map<std::string, Value> values_;
  std::string command_line_;
};

struct Command {
  Command() = default;
  // A command of `flashscope` taking between `min_positional` and `max_positional` arguments.
  Command(std::string name, std::string usage, std::string summary, size_t min_positional,
          size_t max_positional, std::function<int(const Args&)> run)
      : name(std::move(name)),
        usage(std::move(usage)),
        summary(std::move(summary)),
        min_positional(min_positional),
        max_positional(max_positional),
        run(std::move(run)) {}

  std::string program = "flashscope";
  std::string name;     // "" for a program without commands (flashscope-bench)
  std::string usage;    // after the command name: "BASE NEW", "SUITE", "" for none
  std::string summary;  // one line, in the list of commands
  std::string details;  // paragraphs after the usage line of the command's own help
  size_t min_positional = 0, max_positional = 0;
  std::vector<Flag> flags;
  std::function<int(const Args&)> run;
  bool hidden = false;      // not in the list of commands
  int usage_exit_code = 2;  // the exit code of a parse error (the worker's tells its parent)

  Command& Add(Flag flag);
  // "flashscope gate", or the program alone for a command without a name.
  std::string Invocation() const { return name.empty() ? program : program + " " + name; }
  const Flag* FindFlag(const std::string& name) const;
  // "usage: flashscope NAME USAGE [flags]", the details, then one line per flag.
  std::string Help() const;
};

// What parsing produced: arguments to run the command with, a request for its help, or an error
// (a message naming the flag, with "did you mean" when a known name is close).
struct ParseOutcome {
  enum class Kind { kRun, kHelp, kError } kind = Kind::kError;
  Args args;
  std::string error;
};

// Parses `words` (what follows the command name). `all_commands` lets the message for a flag of
// another command say which commands take it.
ParseOutcome ParseCommandArgs(const Command& command, const std::vector<std::string>& words,
                              const std::vector<Command>& all_commands,
                              const std::string& command_line);

}  // namespace flashscope::cli
