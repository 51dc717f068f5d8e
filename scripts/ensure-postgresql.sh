#!/bin/sh
# Makes sure Debian's PostgreSQL server binaries are on this machine. The tests start their own
# throwaway cluster from them (initdb + postgres on a free port: testkit/src/startPostgresServer.ts).
set -eu
. "$(dirname "$0")/lib/apt.sh"
present() { ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; }
apt_ensure "install PostgreSQL (initdb and postgres under /usr/lib/postgresql/<version>/bin)" postgresql
