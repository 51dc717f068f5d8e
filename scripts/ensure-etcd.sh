#!/bin/sh
# Makes sure Debian's etcd server is on this machine. The tests start their own single-member
# etcd on free client and peer ports in a temporary data directory (testkit/src/startEtcdServer.ts).
set -eu
. "$(dirname "$0")/lib/apt.sh"
present() { command -v etcd >/dev/null 2>&1; }
apt_ensure "install etcd 3.4 or later" etcd-server
