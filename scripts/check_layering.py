#!/usr/bin/env python3
"""The layering of docs/architecture.md, checked on the include graph of the tree.

Reads every C/C++/CUDA file git tracks, finds the component each belongs to (its folder; a few
sub-folders are components of their own) and every `#include` of another component's header or
of a CUDA header, and fails (exit 1) on an edge the architecture does not allow:
  * a component including one it may not depend on (cli/ including kernels/, ...);
  * a component that builds without CUDA including a CUDA header (cuda*.h, cupti, cuBLAS, cuDNN,
    NVTX) or a .cuh file (reports/, viewer/, suites/, cli/, common/'s plain headers, ...).
Usage:
  scripts/check_layering.py [--root DIR] [--plant FILE:INCLUDE]...   check (0 ok, 1 bad, 2 usage)
  scripts/check_layering.py --markdown                                 the rules as markdown
`--plant` adds an include to a file's list as if it were written there: the tests use it to show
that the check fails on a forbidden edge (scripts/tests/check_layering_test.py). docs/
architecture.md holds the --markdown output between its "layering" markers; the test checks that
the two agree.
"""

import argparse
import re
import subprocess
import sys
from pathlib import Path

# Component -> (what it holds, the components it may include). Longest path prefix wins.
RULES = {
    "include/flashscope": ("the plugin C ABI (the SDK)", []),
    "common": ("header-only vocabulary: problems, kernel facts, ABI conversions, the metric "
               "catalogue's table, the timing policy, error statistics and heatmaps, resource "
               "usage, plugin provenance, measured peaks, closest names; element conversions "
               "(the one .cuh)", ["include/flashscope"]),
    "common/tests": ("test helpers every folder's tests share (GoogleTest, CUDA)", ["common"]),
    "kernels": ("the kernels under test, peers, registry, ABI adapter, test and demo plugins",
                ["common", "include/flashscope"]),
    "kernels/perf": ("hand-built tuning harnesses (nvcc, outside CMake)", ["kernels", "common"]),
    "plugins": ("the plugin host: dlopen, validation, the kernel view",
                ["common", "include/flashscope"]),
    "verify": ("costs, inputs, references, statistics, heatmaps", ["common"]),
    "profiler": ("timing, device info, NVTX, CUPTI", ["common"]),
    "profiler/tools": ("flashscope-metric-probe (binds kernels as a run does)",
                       ["runner", "profiler", "verify", "kernels", "plugins", "common"]),
    "reports": ("the report model and its I/O: JSON, journal, plan, files, text safety",
                ["common"]),
    "analysis": ("compare, gate, ab verdicts, statistics, trust rules, summary models",
                 ["reports", "common"]),
    "render": ("the outputs: terminal, markdown, JUnit, CSV, HTML",
               ["analysis", "reports", "common"]),
    "history": ("reports over revisions: the store (SQLite, PostgreSQL), change points, trends; "
                "plugins/ for its SHA-256, render/ for its escapers",
                ["render", "analysis", "reports", "plugins", "common"]),
    "suites": ("the suite-file model: parsing, plugin paths, cases, shards", ["reports", "common"]),
    "protocol": ("the worker wire protocol and process start, both processes include it",
                 ["reports", "common"]),
    "supervisor": ("runs suites through flashscope-worker processes: devices, journal, ab",
                   ["protocol", "suites", "analysis", "reports", "common"]),
    "runner": ("planner, case binding, case runner, flashscope-worker",
               ["protocol", "suites", "analysis", "reports", "kernels", "plugins", "verify",
                "profiler", "common", "include/flashscope"]),
    "cli": ("the flashscope command",
            ["supervisor", "protocol", "suites", "history", "render", "analysis", "reports",
             "common"]),
    "bench": ("flashscope-bench (Google Benchmark front end)",
              ["runner", "cli", "protocol", "suites", "analysis", "reports", "kernels", "plugins",
               "verify", "profiler", "common"]),
    "viewer": ("flashscope-view (Dear ImGui)", ["history", "analysis", "reports", "common"]),
    "python": ("the Python bridge, a plugin", ["include/flashscope"]),
    "audit": ("the static SASS audit", ["kernels", "common"]),
    "fuzz": ("libFuzzer targets of the readers", ["analysis", "reports", "suites", "common"]),
    "examples": ("out-of-tree plugin and report examples (installed package only)",
                 ["include/flashscope", "render", "analysis", "reports"]),
}
# What a component's tests (FOLDER/tests/) may include beyond the component's own rules: a test
# may drive a lower layer's helpers to build its inputs, never make its folder depend on more.
# Every folder's tests may include common/tests/, and nothing else may.
TEST_EXTRAS = {
    "python": ["cli", "verify", "common"],
    "profiler": ["runner"],
    # The model's and the analyses' tests print what they check with render/'s printers.
    "reports": ["analysis", "render"],
    "analysis": ["render"],
    # The chart parity test: the viewer's charts and the HTML page's from one report.
    "viewer": ["render"],
}
# Components that build and test without CUDA (DESIGN.md: the CPU parts CI tests).
NO_CUDA = {"include/flashscope", "common", "plugins", "reports", "analysis", "render", "history",
           "suites", "protocol", "supervisor", "cli", "viewer", "fuzz"}
# common/ may hold CUDA headers (.cuh) for CUDA code; its plain headers stay free of CUDA.
CUDA_HEADER = re.compile(r"^(cuda|cuda_\w+|cupti\w*|cublas\w*|cudnn\w*|nvtx\w*|nvToolsExt\w*|"
                         r"curand\w*|mma|cooperative_groups)(\.h|\.hpp|/)")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
SOURCES = ("*.h", "*.hpp", "*.cc", "*.cpp", "*.cu", "*.cuh")


def component_of(path):
    """The component a path (file or include) belongs to, or None for anything else."""
    best = None
    for name in RULES:
        if path == name or path.startswith(name + "/"):
            if best is None or len(name) > len(best):
                best = name
    return best


def target_of(include, quoted):
    """The component an include names: "kernels/x.h" -> kernels; <flashscope/x.h> -> the SDK."""
    if include.startswith("flashscope/"):
        return "include/flashscope"
    return component_of(include) if quoted else None


def allowed(source, path, target):
    if target == "common/tests":
        return "/tests/" in path  # test helpers, for tests only
    if target == source or target is None:
        return True
    if target.startswith(source + "/") or source.startswith(target + "/"):
        return True  # a sub-folder component and its parent
    extra = TEST_EXTRAS.get(source, []) if "/tests/" in path else []
    return target in RULES[source][1] or target in extra


def violations(files):
    """files: {path: [(include, quoted)]} -> the lines naming each forbidden edge."""
    bad = []
    for path, includes in sorted(files.items()):
        source = component_of(path)
        if source is None:
            continue
        for include, quoted in includes:
            target = target_of(include, quoted)
            if not allowed(source, path, target):
                bad.append(f"{path}: includes {include}: {source}/ may not depend on {target}/ "
                           f"(it may include: {', '.join(RULES[source][1]) or 'nothing of ours'})")
            cuda = CUDA_HEADER.match(include) or (include.endswith(".cuh") and quoted)
            plain_common = source == "common" and not path.endswith(".cuh")
            if cuda and (source in NO_CUDA and (source != "common" or plain_common)):
                bad.append(f"{path}: includes {include}: {source}/ builds without CUDA")
    return bad


def read_tree(root):
    listed = subprocess.run(["git", "-C", str(root), "ls-files", "--cached", "--others", "--exclude-standard", *SOURCES], check=True,
                            capture_output=True, text=True).stdout.split()
    files = {}
    for path in listed:
        text = (root / path).read_text(errors="replace") if (root / path).is_file() else ""
        files[path] = [(m.group(2), m.group(1) == '"')
                       for m in map(INCLUDE.match, text.splitlines()) if m]
    return files


def markdown():
    lines = ["| component | what it holds | may include | CUDA |", "|---|---|---|---|"]
    for name, (holds, deps) in RULES.items():
        cuda = "no" if name in NO_CUDA else "yes"
        if name == "common":
            cuda = "`.cuh` only"
        shown = ", ".join(f"`{d}/`" for d in deps) or "nothing of ours"
        extra = TEST_EXTRAS.get(name)
        if extra:
            shown += "; its tests also " + ", ".join(f"`{d}/`" for d in extra)
        lines.append(f"| `{name}/` | {holds} | {shown} | {cuda} |")
    return "\n".join(lines) + "\n"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=str(Path(__file__).resolve().parent.parent))
    parser.add_argument("--plant", action="append", default=[], metavar="FILE:INCLUDE")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    if args.markdown:
        sys.stdout.write(markdown())
        return 0
    files = read_tree(Path(args.root))
    for plant in args.plant:
        path, sep, include = plant.partition(":")
        if not sep or path not in files:
            print(f"check_layering: --plant {plant!r}: expected FILE:INCLUDE with FILE a tracked "
                  f"source file", file=sys.stderr)
            return 2
        files[path].append((include.strip('<>"'), not include.startswith("<")))
    bad = violations(files)
    for line in bad:
        print("LAYERING " + line)
    print(f"check_layering: {len(files)} files, {sum(len(v) for v in files.values())} includes, "
          f"{len(bad)} forbidden")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
