#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests: on 127.0.0.1, a free port, a temp directory.
#
#   eval "$(scripts/pg-test-cluster.sh start)"    # exports MCP_TASK_GEN_PG_URL and MCP_TASK_GEN_PG_DIR
#   npx vitest run test/runtime/store-postgres.test.ts
#   scripts/pg-test-cluster.sh stop "$MCP_TASK_GEN_PG_DIR"
#
# For tests of a database outage, on a cluster of their own:
#   PG_TEST_DURABLE=1 scripts/pg-test-cluster.sh start   # commits written before they are acknowledged
#   scripts/pg-test-cluster.sh restart <dir>         # pg_ctl stop -m immediate, then start (a crash and recovery)
#   scripts/pg-test-cluster.sh stop-for <dir> <s>    # down for <s> seconds (stop -m immediate), then up again
#
# Needs the PostgreSQL server binaries (Debian: apt-get install postgresql; found through
# PG_BIN, pg_config, or /usr/lib/postgresql/<version>/bin). The server refuses to run as
# root: as root the cluster belongs to the postgres user. Everything else goes to stderr,
# so that only the export lines reach stdout.
set -euo pipefail

find_bin() {
  if [[ -n "${PG_BIN:-}" && -x "$PG_BIN/initdb" ]]; then echo "$PG_BIN"; return; fi
  if command -v pg_config >/dev/null 2>&1; then
    local b; b="$(pg_config --bindir)"
    if [[ -x "$b/initdb" ]]; then echo "$b"; return; fi
  fi
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [[ -x "$d/initdb" ]]; then echo "$d"; return; fi
  done
  echo "pg-test-cluster: no PostgreSQL server binaries (initdb) found; install postgresql or set PG_BIN" >&2
  exit 1
}

# Runs a server binary as the cluster's owner.
as_owner() {
  if [[ "$(id -u)" == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

start() {
  local bin dir port user=mtg password db=mtg_test
  bin="$(find_bin)"
  dir="$(mktemp -d "${TMPDIR:-/tmp}/mtg-pg-XXXXXX")"
  if [[ "$(id -u)" == 0 ]]; then chown postgres: "$dir"; fi
  password="$(node -e 'console.log(require("crypto").randomBytes(12).toString("hex"))')"
  as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth-host=scram-sha-256 --auth-local=trust --no-sync -E UTF8 >&2
  port="$(free_port)"
  # fsync off: a throwaway cluster; the tests are about behaviour, not the disk. Commits are acknowledged
  # before their WAL is written (synchronous_commit off) unless PG_TEST_DURABLE=1: a crash of the server
  # (restart, stop-for) would otherwise lose commits a client was told of, which no real deployment does.
  local commit="-c synchronous_commit=off"
  if [[ "${PG_TEST_DURABLE:-}" == 1 ]]; then commit="-c synchronous_commit=on"; fi
  echo "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off $commit -c full_page_writes=off -c max_connections=200" >"$dir/options"
  up "$bin" "$dir"
  as_owner "$bin/psql" -h "$dir" -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 -q >&2 <<SQL
CREATE ROLE $user LOGIN PASSWORD '$password' CREATEDB;
CREATE DATABASE $db OWNER $user;
SQL
  echo "export MCP_TASK_GEN_PG_URL=postgres://$user:$password@127.0.0.1:$port/$db"
  echo "export MCP_TASK_GEN_PG_DIR=$dir"
}

# Starts the cluster in <dir> with the options it was made with.
up() {
  as_owner "$1/pg_ctl" -D "$2/data" -l "$2/log" -w -t 60 -o "$(cat "$2/options")" start >&2
}

cluster_dir() {
  local dir="${1:-${MCP_TASK_GEN_PG_DIR:-}}"
  if [[ -z "$dir" || ! -f "$dir/options" ]]; then echo "pg-test-cluster: no cluster directory (made by start) given" >&2; exit 1; fi
  echo "$dir"
}

restart() {
  local dir bin; dir="$(cluster_dir "${1:-}")"; bin="$(find_bin)"
  as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >&2
  up "$bin" "$dir"
}

stop_for() {
  local dir bin; dir="$(cluster_dir "${1:-}")"; bin="$(find_bin)"
  as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >&2
  sleep "${2:?seconds}"
  up "$bin" "$dir"
}

stop() {
  local dir="${1:-${MCP_TASK_GEN_PG_DIR:-}}"
  if [[ -z "$dir" || ! -d "$dir/data" ]]; then echo "pg-test-cluster: no cluster directory to stop" >&2; exit 1; fi
  local bin; bin="$(find_bin)"
  as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >&2 || true
  rm -rf "$dir"
}

case "${1:-}" in
  start) start ;;
  stop) stop "${2:-}" ;;
  restart) restart "${2:-}" ;;
  stop-for) stop_for "${2:-}" "${3:-}" ;;
  *) echo "usage: scripts/pg-test-cluster.sh start | stop <dir> | restart <dir> | stop-for <dir> <seconds>" >&2; exit 2 ;;
esac
