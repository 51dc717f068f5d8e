#!/bin/sh
# Makes sure Debian's Chromium is on this machine: the REST page's browser test drives
# /usr/bin/chromium headless with playwright-core (no browser download of its own).
set -eu
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: no apt-get here; install Chromium as /usr/bin/chromium" >&2
  exit 1
fi
echo "ensure-chromium: installing Debian's chromium package" >&2
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null
[ -x /usr/bin/chromium ] || { echo "ensure-chromium: install failed" >&2; exit 1; }
