// Flags that several commands take, declared once (cli/args.h), and what they decide.
#pragma once

#include <string>

#include "cli/args.h"
#include "reports/output_target.h"
#include "supervisor/supervisor.h"

namespace flashscope::cli {

// --color=auto|always|never (also true/false, yes/no, 1/0; --color alone = always; --nocolor).
Flag ColorFlag();
// --out FILE with the command's own help line.
Flag OutFlag(std::string help);
// --force: what `help` says (compare or merge reports of different GPUs or drivers, run on GPUs
// of different models), and for every file the command writes: replace a read-only file or one
// with other hard links, write through a symlink or into a FIFO or device
// (reports/output_target.h).
Flag ForceFlag(std::string help);
// --force for a command whose only use of it is its file writes (render, history show/changes).
Flag FileForceFlag();
// What --force allows the command's file writes.
reports::WriteOptions WriteOptionsOf(const Args& args);
// --format for compare and gate (and, with `baseline`, render).
Flag FormatFlag(bool with_baseline);
// --alpha / --min_effect, validated by the same rule as the gate policy's fields.
Flag AlphaFlag();
Flag MinEffectFlag();
// --suites_dir DIR.
Flag SuitesDirFlag();
// --devices all|0,2,3: the GPUs a run uses, one worker each (docs/devices.md); run and ab.
Flag DevicesFlag();

// --max-input-mb N: the cap on the bytes of any file the command reads (after decompression),
// default 256; 0 lifts it (reports/input_file.h). Every command that reads a file takes it.
Flag MaxInputFlag();

// What every report argument accepts (reports/input_file.h), for the commands' details:
// "REPORT " + kReportInput.
inline constexpr char kReportInput[] =
    "may be \"-\" (standard input) and may be compressed (xz, gzip, zstd: recognised by content, "
    "whatever its name)";
// What --out does with a compression ending.
inline constexpr char kCompressedOut[] = "--out X.json.xz (.gz, .zst) writes compressed";

// Colour for stdout: --color=always/never decide; auto colours a terminal unless NO_COLOR is set
// or TERM is "dumb".
bool UseColor(const Args& args);

// The folder holding suite files: --suites_dir, else ./suites, else the source tree's.
std::string SuitesDir(const Args& args);

// What run and ab take alike, from their flags (--kernels, --metrics, --case_timeout_s,
// --devices, --force, --quiet, --dry_run) and the command line; the suite and the worker as found.
void FillWorkerRunArgs(const Args& args, const std::string& suite_path,
                       const std::string& worker_exe, suites::WorkerRunArgs* out);

}  // namespace flashscope::cli
