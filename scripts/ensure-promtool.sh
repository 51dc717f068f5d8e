#!/bin/sh
# Makes sure Prometheus's promtool is on this machine: the metrics spec checks a real server's
# /metrics with `promtool check metrics` (packages/cli/src/metricsPromtool.int.spec.ts). It comes
# from Debian's prometheus package, unpacked rather than installed, so that no Prometheus
# server is set up or started as a service on the machine.
set -eu
. "$(dirname "$0")/lib/apt.sh"
if command -v promtool >/dev/null 2>&1; then
  exit 0
fi
apt_require "install Prometheus's promtool"
apt_say "unpacking promtool from Debian's prometheus package"
apt_update
work=$(mktemp -d)
chmod 755 "$work"
(cd "$work" && apt-get download prometheus >/dev/null)
$SUDO mkdir -p /opt/vesta-promtool
$SUDO dpkg-deb -x "$work"/prometheus_*.deb /opt/vesta-promtool
rm -rf "$work"
$SUDO ln -sf /opt/vesta-promtool/usr/bin/promtool /usr/local/bin/promtool
promtool --version >/dev/null 2>&1 || apt_fail "promtool does not run"
