#!/bin/sh
# Makes sure Debian's etcd server is on this machine. The tests start their own single-member
# etcd on free client and peer ports in a temporary data directory (testkit/src/startEtcdServer.ts).
set -eu
if command -v etcd >/dev/null 2>&1; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-etcd: no apt-get here; install etcd 3.4 or later" >&2
  exit 1
fi
echo "ensure-etcd: installing Debian's etcd-server package" >&2
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends etcd-server >/dev/null
command -v etcd >/dev/null 2>&1 || { echo "ensure-etcd: install failed" >&2; exit 1; }
