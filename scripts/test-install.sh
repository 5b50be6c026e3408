#!/usr/bin/env bash
# The install step of scripts/test.sh: installs a finished build into a temporary prefix and uses
# it the way a user of the package does (docs/plugins.md), from that prefix alone:
#  - the package: commands, SDK headers, CMake files, and no path of this machine's checkout or
#    build folder in any installed text file or in the host code of the installed commands;
#  - examples/attention-plugin, configured in a fresh folder against the prefix: the plugin builds,
#    exports its entry symbol and nothing else, passes its own CPU test, the installed
#    `flashscope list --plugin` shows both its kernels (supports() answered in flashscope-worker)
#    and `flashscope run SUITE --plugin … --dry_run` plans its cases;
#  - examples/compare-revisions, linked to flashscope::reports, reads a committed report;
#  - the installed `flashscope show` reads every committed results/runs/*.json.xz (the failures
#    are named, all of them, before the script stops);
#  - `flashscope new-plugin` from the prefix: the Python projects (both families; where the
#    Python bridge is installed) and, with nvcc, the CUDA projects, each configured and tested
#    against the prefix, listed and planned from its own folder (`flashscope run suite.json
#    --dry_run`, the suite's "./build/NAME.so" or "./NAME.py" found beside it);
#  - with CUDA: the installed demo plugin, and `flashscope run demo --dry_run` planning from it.
# No GPU needed. Stops at the first failed check (exit 1); exit 2 for bad usage.
# Usage: scripts/test-install.sh BUILD_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [[ $# -ne 1 || ! -f $1/CMakeCache.txt ]]; then
  echo "usage: scripts/test-install.sh BUILD_DIR (a configured and built flashscope build folder)" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
arch=${FLASHSCOPE_CUDA_ARCHS:-90}
work=$(mktemp -d "${TMPDIR:-/tmp}/flashscope-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
started=$SECONDS

# check WHAT COMMAND…: runs COMMAND, prints "install: ok SECONDS WHAT", or its output and exits 1. The
# output stays in $work/last.log for the check after it (output_has).
check() {
  local what=$1 step_started=$SECONDS
  shift
  if "$@" >"$work/step.log" 2>&1; then
    printf 'install: ok %3ds  %s\n' $((SECONDS - step_started)) "$what"
    mv "$work/step.log" "$work/last.log"
  else
    echo "install: FAILED   $what"
    sed 's/^/    /' "$work/step.log" | tail -n 40
    exit 1
  fi
}
# check_and_go_on WHAT COMMAND…: like check, but a failure is reported and the script goes on to the
# other checks, to fail at its end (finish).
failed_checks=()
check_and_go_on() {
  local what=$1
  shift
  if "$@" >"$work/step.log" 2>&1; then
    printf 'install: ok        %s\n' "$what"
  else
    echo "install: FAILED   $what (the other checks go on)"
    sed 's/^/    /' "$work/step.log" | tail -n 40
    failed_checks+=("$what")
  fi
}
# finish NOTE: the end of the script, passed or failed.
finish() {
  if ((${#failed_checks[@]} > 0)); then
    echo "install: FAILED: ${failed_checks[*]}"
    exit 1
  fi
  echo "install: checks passed in $((SECONDS - started)) s$1"
  exit 0
}
# output_has PATTERN…: every pattern matches a line of the previous check's output.
output_has() {
  for pattern in "$@"; do
    grep -qE -- "$pattern" "$work/last.log" || {
      echo "no line matches '$pattern' in:"
      cat "$work/last.log"
      return 1
    }
  done
}
exports_only_entry() { # PLUGIN
  local symbols
  symbols=$(nm -D --defined-only "$1" | awk '{print $NF}')
  [[ $symbols == flashscope_plugin_v1 ]] || { echo "exported: $symbols"; return 1; }
}
installed_files() {
  local missing=0
  for f in "$@"; do
    [[ -e $prefix/$f ]] || { echo "missing: $prefix/$f"; missing=1; }
  done
  return $missing
}
# The commands this build made, each of which must be installed.
built_commands() {
  for command in flashscope flashscope-worker flashscope-bench flashscope-view; do
    if find "$build" -maxdepth 3 -name "$command" -type f -perm -u+x | grep -q .; then
      echo "bin/$command"
    fi
  done
}
no_build_paths() {
  # Text files: the CMake package, headers, suites, examples.
  if grep -rIlF -e "$root" -e "$build" "$prefix"; then
    echo "^ installed files naming $root or $build"
    return 1
  fi
  # The commands' host code (their CUDA line tables name source files for profilers: not checked).
  for exe in "$prefix"/bin/*; do
    objcopy --remove-section=.nv_fatbin "$exe" "$work/host-code"
    if grep -qF -e "$root" -e "$build" "$work/host-code"; then
      echo "$exe: its host code names $root or $build"
      return 1
    fi
  done
}

check "cmake --install into $prefix" cmake --install "$build" --prefix "$prefix"
mapfile -t commands < <(built_commands)
check "installed: ${commands[*]}, SDK header, CMake package, report library, suites" \
  installed_files "${commands[@]}" include/flashscope/kernel_abi.h \
  include/flashscope/reports/report_json.h lib/libflashscope_reports.a \
  lib/cmake/flashscope/flashscopeConfig.cmake lib/cmake/flashscope/flashscopeConfigVersion.cmake \
  lib/cmake/flashscope/FlashscopePlugin.cmake share/flashscope/suites/smoke.json \
  share/flashscope/examples/attention-plugin/CMakeLists.txt
check "no path of $root or $build in the installed package" no_build_paths

# The report library from a consumer's own CMake project: first every installed header on its own
# (each must find what it includes under the prefix), then a program.
headers=$work/headers
mkdir -p "$headers"
(cd "$prefix/include/flashscope" && ls reports/*.h common/*.h) | sed 's/.*/#include "&"/' >"$headers/all.cc"
cat >"$headers/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(headers LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 17)
find_package(flashscope CONFIG REQUIRED COMPONENTS reports)
add_library(headers OBJECT all.cc)
target_link_libraries(headers PRIVATE flashscope::reports)
CMAKE
check "every installed report header compiles in a consumer ($(wc -l <"$headers/all.cc") headers)" \
  bash -c "cmake -S '$headers' -B '$headers/build' -G Ninja -DCMAKE_PREFIX_PATH='$prefix' &&
           cmake --build '$headers/build'"
consumer=$work/compare-revisions
check "examples/compare-revisions configures against the prefix (flashscope::reports)" \
  cmake -S "$root/examples/compare-revisions" -B "$consumer" -G Ninja -DCMAKE_PREFIX_PATH="$prefix"
check "examples/compare-revisions builds" cmake --build "$consumer"
check "compare-revisions reads a committed report (gemm.g04_mma -> gemm.g05_wgmma)" \
  "$consumer/compare-revisions" "$root/results/runs/20261123-001931-gemm_ladder.json" \
  gemm.g04_mma gemm.g05_wgmma
check "  pairs the two kernels' cases by problem, with verdicts" \
  output_has "gemm\.g04_mma->gemm\.g05_wgmma +gemm\{M=4096,N=4096,K=4096,fp16\} .* faster"

# Every committed compressed report, through the installed `flashscope show`: all of them are
# tried, and the ones that fail are named together.
show_committed_reports() {
  local failed=() report
  for report in "$root"/results/runs/*.json.xz; do
    if ! "$prefix/bin/flashscope" show "$report" >"$work/show.log" 2>&1; then
      failed+=("${report#"$root"/}: $(head -c 300 "$work/show.log" | tr '\n' ' ')")
    fi
  done
  if ((${#failed[@]} > 0)); then
    echo "flashscope show failed on ${#failed[@]} committed report(s):"
    printf '  %s\n' "${failed[@]}"
    return 1
  fi
}
check_and_go_on "the installed flashscope show reads every committed results/runs/*.json.xz" \
  show_committed_reports

# new_plugin_project NAME FLAGS…: `flashscope new-plugin` from the prefix into $work, then the
# project configured and tested against the prefix (CUDA: built first, its exports checked),
# listed, and its suite planned from the project's own folder.
new_plugin_project() {
  local name=$1 project=$work/$1 plugin
  shift
  check "flashscope new-plugin $name $*" "$prefix/bin/flashscope" new-plugin "$name" "$@" --dir "$work"
  check "  $name configures against the prefix" \
    cmake -S "$project" -B "$project/build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_CUDA_ARCHITECTURES="$arch"
  if [[ -f $project/$name.py ]]; then
    plugin=./$name.py
  else
    plugin=build/$name.so
    check "  $name builds" cmake --build "$project/build"
    check "  $name.so exports flashscope_plugin_v1 and nothing else" \
      exports_only_entry "$project/$plugin"
  fi
  check "  $name's own test (ctest)" ctest --test-dir "$project/build" --output-on-failure
  check "  flashscope list --plugin $plugin --plugin-only" \
    bash -c "cd '$project' && '$prefix/bin/flashscope' list --plugin '$plugin' --plugin-only"
  check "  shows $name's kernel" output_has "^  $name\.(gemm|attn)_v1 .*\[$name\]"
  check "  flashscope run suite.json --dry_run (from $name/)" \
    bash -c "cd '$project' && '$prefix/bin/flashscope' run suite.json --dry_run"
  check "  plans its cases from the file beside the suite" \
    output_has "^plan: [0-9]+ cases" "^ +0  $name\.(gemm|attn)_v1 " "file $project/${plugin#./}"
}
if [[ -f $prefix/lib/flashscope/plugins/libflashscope_python.so ]]; then
  new_plugin_project np_py_gemm --python --family gemm
  new_plugin_project np_py_attn --python --family attention
else
  echo "install: new-plugin --python not checked: this build has no Python bridge (python3-dev)"
fi

# The kernel plugin example: needs nvcc (CUDA kernels), as the build itself does.
if ! grep -q "^CMAKE_CUDA_COMPILER:.*nvcc" "$build/CMakeCache.txt"; then
  echo "install: examples/attention-plugin, new-plugin --cuda and the demo plugin not checked:"
  echo "install: this build has no CUDA compiler (nvcc)"
  finish " (without the CUDA parts)"
fi
example=$work/attention-plugin
check "examples/attention-plugin configures against the prefix (CUDA $arch)" \
  cmake -S "$root/examples/attention-plugin" -B "$example" -G Ninja \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CUDA_ARCHITECTURES="$arch"
check "examples/attention-plugin builds" cmake --build "$example"
plugin=$example/example_attention.so
check "the plugin exports flashscope_plugin_v1 and nothing else (nm -D)" exports_only_entry "$plugin"
check "the plugin's own test: its table and supports() rules (ctest)" \
  ctest --test-dir "$example" --output-on-failure
check "flashscope list --plugin $plugin" "$prefix/bin/flashscope" list --plugin "$plugin"
check "  shows example.attn_v1 and example.attn_v2, and a supports() reason of theirs" \
  output_has "example\.attn_v1 .*\[example-attention\]" "example\.attn_v2 .*\[example-attention\]" \
  "refused: head_dim 256 not supported: 1 to 128"
suite=$root/examples/attention-plugin/example.json
check "flashscope run examples/attention-plugin/example.json --plugin … --dry_run" \
  "$prefix/bin/flashscope" run "$suite" --plugin "$plugin" --dry_run
# 85 problems (example.json's four groups) x 2 kernels.
check "  plans 170 cases of both kernels, with the plugin's provenance" \
  output_has "^plan: 170 cases" "example-attention +version [0-9a-f]+" "file $plugin" \
  "example\.attn_v1 attention_fwd\{B=4,H=8,S=2048,D=128,bf16\}" \
  "example\.attn_v2 attention_fwd\{B=4,H=8,S=2048,D=128,bf16\}"

# The CUDA projects of new-plugin, and the demo suite from the installed demo plugin.
new_plugin_project np_cuda_gemm --cuda --family gemm
new_plugin_project np_cuda_attn --cuda --family attention
check "installed: the demo plugin" installed_files lib/flashscope/plugins/libflashscope_demo_kernels.so
check "flashscope run demo --dry_run (the installed suite and its plugin)" \
  bash -c "cd '$work' && '$prefix/bin/flashscope' run demo --dry_run"
check "  plans a10 beside the six demo.bug_* kernels of the demo plugin" \
  output_has "^plan: 14 cases" "flashscope-demo-kernels" \
  "demo\.bug_fp16_accumulate attention_fwd\{B=2,H=4,S=255,D=64,bf16,causal\} .*SKIP: supports\(\) says: fp16 only"
finish ""
