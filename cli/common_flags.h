// Flags that several commands take, declared once (cli/args.h), and what they decide.
#pragma once

#include <string>

#include "cli/args.h"
#include "supervisor/supervisor.h"

namespace flashscope::cli {

// --color=auto|always|never (also true/false, yes/no, 1/0; --color alone = always; --nocolor).
Flag ColorFlag();
// --out FILE with the command's own help line.
Flag OutFlag(std::string help);
// --force: compare or merge reports of different GPUs or drivers.
Flag ForceFlag(std::string help);
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
