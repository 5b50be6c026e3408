# Sourced by the device scripts that run from the root of a repository copy holding a staged build
# (.carry/bins.tar.xz, made by scripts/device/stage.sh): kernels-check.sh, shapes.sh,
# sanitize-check.sh.

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
