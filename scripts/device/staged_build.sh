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
