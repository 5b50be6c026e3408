#!/usr/bin/env bash
# A throw-away PostgreSQL cluster for the history tests (docs/history.md): Debian's initdb and
# pg_ctl in a temporary folder, listening on a unix socket in that folder only (no TCP port), the
# `postgres` superuser trusted. scripts/test.sh starts it before ctest and stops it on exit.
#
#   eval "$(scripts/pg-test-cluster.sh start)"   # exports FLASHSCOPE_TEST_PG_URL, FLASHSCOPE_TEST_PG_DIR
#   ...tests...
#   scripts/pg-test-cluster.sh stop "$FLASHSCOPE_TEST_PG_DIR"
#
# initdb and pg_ctl refuse to run as root: as root they run as the `postgres` user (the package
# creates it), with the folder handed to that user. Exit codes: 0 ok, 1 the server did not start
# (its log is printed), 2 usage or no PostgreSQL installed.
set -euo pipefail

usage() {
  echo "usage: $0 start | stop DIR" >&2
  exit 2
}

find_bin() {
  local bin
  bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  if [[ -z $bin || ! -x $bin/initdb ]]; then
    echo "pg-test-cluster: no PostgreSQL server found under /usr/lib/postgresql/*/bin;" \
      "install it with scripts/install-deps.sh (package postgresql)" >&2
    exit 2
  fi
  echo "$bin"
}

# Runs a command as the cluster's owner: the postgres user when we are root, else ourselves.
as_owner() {
  if [[ $(id -u) == 0 ]]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

start() {
  local bin dir
  bin=$(find_bin)
  dir=$(mktemp -d "${TMPDIR:-/tmp}/flashscope-pg.XXXXXX")
  chmod 755 "$dir"
  if [[ $(id -u) == 0 ]]; then chown postgres: "$dir"; fi
  as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth=trust --encoding=UTF8 --no-locale \
    >"$dir/initdb.log" 2>&1 || {
    cat "$dir/initdb.log" >&2
    exit 1
  }
  # Unix socket in the folder only; no TCP listener, so parallel runs never collide on a port.
  if ! as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses='' -c unix_socket_directories='$dir' -c fsync=off" start >/dev/null; then
    echo "pg-test-cluster: the server did not start; its log:" >&2
    cat "$dir/server.log" >&2
    exit 1
  fi
  echo "export FLASHSCOPE_TEST_PG_DIR='$dir'"
  echo "export FLASHSCOPE_TEST_PG_URL='postgresql://postgres@/postgres?host=$dir'"
}

stop() {
  local dir=$1 bin
  [[ -d $dir/data ]] || {
    echo "pg-test-cluster: $dir holds no cluster" >&2
    exit 2
  }
  bin=$(find_bin)
  as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null || true
  rm -rf "$dir"
}

case ${1:-} in
  start) start ;;
  stop) [[ $# == 2 ]] || usage; stop "$2" ;;
  *) usage ;;
esac
