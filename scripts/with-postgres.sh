#!/usr/bin/env bash
# Runs a command with a throwaway PostgreSQL cluster on a free loopback port, then stops the cluster
# and removes it. The command sees the cluster's URL in MCP_GUARD_TEST_POSTGRES_URL:
#
#   scripts/with-postgres.sh npm test
#   scripts/with-postgres.sh npx vitest run test/ledger
#
# Uses the PostgreSQL binaries of the machine (/usr/lib/postgresql/<version>/bin, or pg_ctl on the
# PATH). When there are none and this runs as root, it installs Debian's `postgresql` package.
# PostgreSQL refuses to run as root: as root, the cluster runs as the `postgres` system user.
set -euo pipefail

if [ "$#" -eq 0 ]; then
  echo "usage: scripts/with-postgres.sh <command> [args...]" >&2
  exit 2
fi

find_bin() {
  local dir
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then echo "$dir"; return 0; fi
  done
  if command -v pg_ctl >/dev/null 2>&1 && command -v initdb >/dev/null 2>&1; then dirname "$(command -v pg_ctl)"; return 0; fi
  return 1
}

BIN="$(find_bin || true)"
if [ -z "$BIN" ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "with-postgres: no PostgreSQL binaries found; install them (Debian: apt-get install postgresql) and try again" >&2
    exit 2
  fi
  echo "with-postgres: installing Debian's postgresql package" >&2
  export DEBIAN_FRONTEND=noninteractive
  # Another apt run may hold the lock for a while: wait for it rather than fail.
  for attempt in 1 2 3 4 5 6 7 8 9 10; do
    if apt-get -o DPkg::Lock::Timeout=120 update -qq && apt-get -o DPkg::Lock::Timeout=120 install -y -qq --no-install-recommends postgresql >/dev/null; then break; fi
    echo "with-postgres: apt-get failed (attempt $attempt), retrying" >&2
    sleep 10
  done
  BIN="$(find_bin || true)"
  if [ -z "$BIN" ]; then echo "with-postgres: PostgreSQL binaries still missing after installing" >&2; exit 2; fi
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/mcp-guard-pg.XXXXXX")"
if [ "$(id -u)" -eq 0 ]; then
  if ! id postgres >/dev/null 2>&1; then useradd --system --home-dir /var/lib/postgresql --shell /usr/sbin/nologin postgres; fi
  chown postgres "$WORK"
  chmod 700 "$WORK"
  as_pg() { runuser -u postgres -- "$@"; }
else
  as_pg() { "$@"; }
fi

PORT="$(node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"

stop() {
  as_pg "$BIN/pg_ctl" -D "$WORK/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

as_pg "$BIN/initdb" -D "$WORK/data" -U postgres -A trust -E UTF8 --no-sync >"$WORK/initdb.log" 2>&1 || { cat "$WORK/initdb.log" >&2; exit 2; }
# Loopback only, the socket in the work folder; synchronous_commit stays on (the default): every
# commit the tests and the benchmark see is durable.
as_pg "$BIN/pg_ctl" -D "$WORK/data" -l "$WORK/server.log" -w -t 60 \
  -o "-c listen_addresses=127.0.0.1 -p $PORT -k $WORK -c max_connections=200 -c synchronous_commit=on -c fsync=on" start >/dev/null \
  || { cat "$WORK/server.log" >&2; exit 2; }

export MCP_GUARD_TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:$PORT/postgres"
echo "with-postgres: PostgreSQL $("$BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PORT (MCP_GUARD_TEST_POSTGRES_URL)" >&2
set +e
"$@"
status=$?
set -e
exit "$status"
