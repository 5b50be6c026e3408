// flashscope: verify, time and profile GPU kernels; compare, gate and show the reports.
// Dispatches to the commands of cli/commands.h; each parses its own flags (cli/args.h).
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <new>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "git_revision.h"  // generated at build time: cmake/GitRevision.cmake
#include "reports/input_file.h"
#include "reports/text_safety.h"

namespace flashscope::cli {

std::vector<Command> AllCommands() {
  std::vector<Command> all = {ListCommand(),         RunCommand(),      AbCommand(),
                              MergeCommand(),        ShowCommand(),     CompareCommand(),
                              GateCommand(),         RenderCommand(),   MetricsCommand(),
                              HistoryGroupCommand(), NewPluginCommand()};
  // The subcommands are reached as "history SUB" (JoinSubcommand); the group lists them.
  for (Command c : {HistoryAddCommand(), HistoryShowCommand(), HistoryChangesCommand(),
                    HistoryBisectCommand()}) {
    c.hidden = true;
    all.push_back(std::move(c));
  }
  return all;
}

namespace {

std::string GlobalHelp(const std::vector<Command>& commands) {
  std::string out =
      "flashscope: verify, time and profile GPU kernels; compare and gate the reports.\n\n"
      "usage: flashscope COMMAND [ARGS] [flags]\n"
      "       flashscope COMMAND --help    the command's own flags\n"
      "       flashscope --version\n\ncommands:\n";
  for (const Command& c : commands) {
    if (c.hidden) continue;
    absl::StrAppend(&out, absl::StrFormat("  %-10s %s\n", c.name, c.summary));
  }
  out +=
      "\nexit codes: 0 success; 1 a case failed, errored or timed out (run), or a regression\n"
      "(gate, ab, history changes); 2 bad input or usage; 125 cannot test (ab: a side's plugin\n"
      "does not load).\n"
      "colour: --color=auto|always|never; auto honours NO_COLOR and TERM=dumb.\n"
      "plugins: --plugin FILE (repeatable), a suite's \"plugins\", FLASHSCOPE_PLUGINS "
      "(docs/plugins.md).\n"
      "docs: README.md, docs/suites.md, docs/plugins.md, docs/report-schema.md, docs/gating.md\n";
  return out;
}

bool IsHelp(const std::string& w) {
  return w == "--help" || w == "-h" || w == "-help" || w == "help";
}
bool IsVersion(const std::string& w) { return w == "--version" || w == "-version"; }

const Command* Find(const std::vector<Command>& commands, const std::string& name) {
  for (const Command& c : commands) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

int UnknownCommand(const std::vector<Command>& commands, const std::string& name) {
  std::vector<std::string> names;
  for (const Command& c : commands) {
    if (!c.hidden) names.push_back(c.name);
  }
  const std::string hint = DidYouMean(name, names);
  const std::string line =
      absl::StrCat("flashscope: unknown command '", reports::text::TerminalSafe(name), "'",
                   hint.empty() ? "" : absl::StrCat(" (did you mean '", hint, "'?)"),
                   "; `flashscope --help` lists them (", absl::StrJoin(names, ", "), ")\n");
  std::fputs(line.c_str(), stderr);
  return 2;
}

// Runs the command; running out of memory anywhere (an input too large for this machine even
// under the cap) becomes a message naming the inputs and exit 2, never an abort.
int RunGuarded(const Command& command, const Args& args) {
  try {
    return command.run(args);
  } catch (const std::bad_alloc&) {
    const std::string inputs = args.positional().empty() ? std::string("its inputs")
                                                         : absl::StrJoin(args.positional(), ", ");
    PrintError(command.name,
               absl::StrCat("out of memory while handling ", reports::text::TerminalSafe(inputs),
                            " (input cap ", reports::MaxInputText(),
                            "): lower --max-input-mb to refuse such inputs early, or run where "
                            "more memory is available"));
    return 2;
  }
}

// "history add ..." -> "history add" as one command word, when a command of that name exists.
void JoinSubcommand(const std::vector<Command>& commands, std::vector<std::string>* words) {
  for (size_t i = 0; i + 1 < words->size(); ++i) {
    if ((*words)[i][0] == '-') continue;
    const std::string joined = (*words)[i] + " " + (*words)[i + 1];
    if (Find(commands, joined) != nullptr) {
      (*words)[i] = joined;
      words->erase(words->begin() + i + 1);
    }
    return;
  }
}

int Main(int argc, char** argv) {
  const std::vector<Command> commands = AllCommands();
  std::vector<std::string> words(argv + 1, argv + argc);
  JoinSubcommand(commands, &words);
  const std::string command_line = absl::StrJoin(std::vector<std::string>(argv, argv + argc), " ");
  if (words.empty()) {
    std::fprintf(stderr, "%s", GlobalHelp(commands).c_str());
    return 2;
  }
  if (IsVersion(words[0])) {
    PrintF("flashscope %s (git %s)\n", FLASHSCOPE_VERSION, FLASHSCOPE_GIT_REVISION);
    return 0;
  }
  if (IsHelp(words[0])) {
    if (words.size() > 1) {
      const Command* c = Find(commands, words[1]);
      if (c == nullptr) return UnknownCommand(commands, words[1]);
      Print(c->Help());
      return 0;
    }
    Print(GlobalHelp(commands));
    return 0;
  }
  // Flags may precede the command (`flashscope --color=never show r.json`): they are the
  // command's, so the first word naming a command is the command.
  auto at = std::find_if(words.begin(), words.end(),
                         [&](const std::string& w) { return Find(commands, w) != nullptr; });
  if (words[0][0] != '-' || at == words.end()) at = words.begin();
  const Command* command = Find(commands, *at);
  if (command == nullptr && (*at)[0] == '-') {
    const std::string line =
        absl::StrCat("flashscope: ", reports::text::TerminalSafe(*at),
                     ": no command given (usage: flashscope COMMAND [flags]; `flashscope --help` "
                     "lists the commands)\n");
    std::fputs(line.c_str(), stderr);
    return 2;
  }
  if (command == nullptr) return UnknownCommand(commands, *at);
  std::vector<std::string> rest(words.begin(), at);
  rest.insert(rest.end(), at + 1, words.end());
  ParseOutcome parsed = ParseCommandArgs(*command, rest, commands, command_line);
  if (parsed.kind == ParseOutcome::Kind::kHelp) {
    Print(command->Help());
    return 0;
  }
  if (parsed.kind == ParseOutcome::Kind::kError) {
    PrintError(command->name, parsed.error);
    return command->usage_exit_code;
  }
  if (command->FindFlag("max_input_mb") != nullptr) {
    reports::SetMaxInputBytes(static_cast<uint64_t>(parsed.args.Int("max_input_mb")) << 20);
  }
  return RunGuarded(*command, parsed.args);
}

}  // namespace
}  // namespace flashscope::cli

int main(int argc, char** argv) {
  // A write past the file size limit (`ulimit -f`) must fail with EFBIG, which every writer
  // reports with the file's path (exit 2), instead of killing flashscope without a word.
  std::signal(SIGXFSZ, SIG_IGN);
  const int rc = flashscope::cli::Main(argc, argv);
  const std::string who = argc > 1 ? std::string("flashscope ") + argv[1] : "flashscope";
  return flashscope::cli::FinishStandardOutput(who, rc);
}
