#!/bin/sh
# Makes sure Debian's redis-server and redis-sentinel are on this machine: the Redis machine-id
# provider's tests (@vesta/redis, a primary, a replica and a Sentinel among them) and the
# central-server benchmark (Redis INCR) start their own on free ports.
set -eu
. "$(dirname "$0")/lib/apt.sh"
present() { command -v redis-server >/dev/null 2>&1 && command -v redis-sentinel >/dev/null 2>&1; }
apt_ensure "install redis-server and redis-sentinel" redis-server redis-sentinel
