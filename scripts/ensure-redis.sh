#!/bin/sh
# Makes sure Debian's redis-server is on this machine: the Redis machine-id provider's tests
# (@vesta/redis) and the central-server benchmark (Redis INCR) start their own on free ports.
set -eu
if command -v redis-server >/dev/null 2>&1; then
  exit 0
fi
echo "ensure-redis: installing Debian's redis-server package" >&2
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends redis-server >/dev/null
