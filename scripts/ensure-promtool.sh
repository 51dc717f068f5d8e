#!/bin/sh
# Makes sure Prometheus's promtool is on this machine: the metrics spec checks a real server's
# /metrics with `promtool check metrics` (packages/cli/src/metricsPromtool.int.spec.ts). It comes
# from Debian's prometheus package, unpacked rather than installed, so that no Prometheus
# server is set up or started as a service on the machine.
set -eu
if command -v promtool >/dev/null 2>&1; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-promtool: no apt-get here; install Prometheus's promtool" >&2
  exit 1
fi
echo "ensure-promtool: unpacking promtool from Debian's prometheus package" >&2
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
work=$(mktemp -d)
chmod 755 "$work"
(cd "$work" && apt-get download prometheus >/dev/null)
$SUDO mkdir -p /opt/vesta-promtool
$SUDO dpkg-deb -x "$work"/prometheus_*.deb /opt/vesta-promtool
rm -rf "$work"
$SUDO ln -sf /opt/vesta-promtool/usr/bin/promtool /usr/local/bin/promtool
promtool --version >/dev/null 2>&1 || { echo "ensure-promtool: promtool does not run" >&2; exit 1; }
