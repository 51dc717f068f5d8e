#!/bin/sh
# Makes sure Debian's PostgreSQL server binaries and PgBouncer are on this machine. The tests start
# their own throwaway clusters from them (initdb + postgres on a free port, a standby by
# pg_basebackup, a PgBouncer in front: testkit/src/startPostgresServer.ts, startPgBouncer.ts).
set -eu
. "$(dirname "$0")/lib/apt.sh"
present() { ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 && command -v pgbouncer >/dev/null 2>&1; }
apt_ensure "install PostgreSQL (initdb and postgres under /usr/lib/postgresql/<version>/bin) and pgbouncer" postgresql pgbouncer
