#!/bin/sh
# Makes sure Debian's libfaketime is on this machine. The clock-step tests preload it into real
# server processes to step their wall clock back (packages/cli/src/crash/*.int.spec.ts).
set -eu
. "$(dirname "$0")/lib/apt.sh"
present() { ls /usr/lib/*/faketime/libfaketime.so.1 >/dev/null 2>&1; }
apt_ensure "install libfaketime (faketime/libfaketime.so.1 under /usr/lib/<arch>)" libfaketime
