#!/bin/sh
# Makes sure Debian's libfaketime is on this machine. The clock-step tests preload it into real
# server processes to step their wall clock back (packages/cli/src/crash/*.int.spec.ts).
set -eu
if ls /usr/lib/*/faketime/libfaketime.so.1 >/dev/null 2>&1; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-faketime: no apt-get here; install libfaketime (faketime/libfaketime.so.1 under /usr/lib/<arch>)" >&2
  exit 1
fi
echo "ensure-faketime: installing Debian's libfaketime package" >&2
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends libfaketime >/dev/null
ls /usr/lib/*/faketime/libfaketime.so.1 >/dev/null 2>&1 || { echo "ensure-faketime: install failed" >&2; exit 1; }
