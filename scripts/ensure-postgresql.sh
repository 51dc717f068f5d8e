#!/bin/sh
# Makes sure Debian's PostgreSQL server binaries are on this machine. The tests start their own
# throwaway cluster from them (initdb + postgres on a free port: testkit/src/startPostgresServer.ts).
set -eu
if ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-postgresql: no apt-get here; install PostgreSQL (initdb and postgres under /usr/lib/postgresql/<version>/bin)" >&2
  exit 1
fi
echo "ensure-postgresql: installing Debian's postgresql package" >&2
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends postgresql >/dev/null
ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || { echo "ensure-postgresql: install failed" >&2; exit 1; }
