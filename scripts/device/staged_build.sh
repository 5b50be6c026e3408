# Sourced by the device scripts that run from the root of a repository copy holding a staged build
# (.carry/bins.tar.xz, made by scripts/device/stage.sh).

# start_device_script BUILD CHECKOUT...: sets root (this copy), out ($OUT, default /tmp/out,
# created) and fs (BUILD's flashscope); unpacks the staged build when BUILD holds no flashscope
# yet. The binaries carry absolute paths of the checkout that built them (the lead's /work/main, or
# a worktree): each CHECKOUT path that does not exist becomes a link to this copy.
start_device_script() {
  local build=$1 built_in
  shift
  root=$PWD
  out=${OUT:-/tmp/out}
  mkdir -p "$out"
  if [[ ! -x $build/cli/flashscope && -f .carry/bins.tar.xz ]]; then
    tar -C "$root" -xJf .carry/bins.tar.xz
  fi
  for built_in in "$@"; do
    if [[ "$root" != "$built_in" && ! -e $built_in ]]; then
      mkdir -p "$(dirname "$built_in")" && ln -sfn "$root" "$built_in"
    fi
  done
  fs="$root/$build/cli/flashscope"
}

# unpack_staged_build ROOT: unpacks the staged build into ROOT whenever it is there (over an
# earlier one), and links /work/main, the checkout the lead's binaries name, to ROOT (ab-quality.sh,
# gate-quality.sh, history-runs.sh).
unpack_staged_build() {
  if [[ -f .carry/bins.tar.xz ]]; then tar -C "$1" -xJf .carry/bins.tar.xz; fi
  if [[ "$1" != /work/main ]]; then mkdir -p /work && ln -sfn "$1" /work/main; fi
}

# start_bundled_script NAME BUILD FILE...: for a script whose results are more files than the
# device tool brings back (8 at most): sets root (this copy), out (a fresh folder
# /tmp/NAME.XXXXXX to write into), final ($OUT, default /tmp/out, created), fs (BUILD's
# flashscope) and fixtures (BUILD's ab fixture plugins); unpacks the staged build
# (unpack_staged_build) and writes the GPU's name and clocks to $out/gpu.txt. On exit, even when
# the call's time limit stops the script, each FILE of $out is copied to $final and all of $out is
# packed into $final/NAME.tgz (ab-quality.sh, history-runs.sh).
start_bundled_script() {
  bundle_name=$1
  local build=$2
  shift 2
  bundle_files=("$@")
  root=$PWD
  final=${OUT:-/tmp/out}
  out=$(mktemp -d "/tmp/$bundle_name.XXXXXX")
  mkdir -p "$final"
  trap pack_bundle EXIT
  unpack_staged_build "$root"
  fs="$root/$build/cli/flashscope"
  fixtures="$root/$build/kernels/ab_fixtures"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv \
    >"$out/gpu.txt" 2>&1
}

# pack_bundle: start_bundled_script's exit step (a file not written is left out, silently).
pack_bundle() {
  local f
  for f in "${bundle_files[@]}"; do cp "$out/$f" "$final/" 2>/dev/null; done
  tar -C "$out" -czf "$final/$bundle_name.tgz" .
  rm -rf "$out"
}
