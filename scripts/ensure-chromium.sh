#!/bin/sh
# Makes sure Debian's Chromium is on this machine: the REST page's browser test drives
# /usr/bin/chromium headless with playwright-core (no browser download of its own).
set -eu
. "$(dirname "$0")/lib/apt.sh"
present() { [ -x /usr/bin/chromium ]; }
apt_ensure "install Chromium as /usr/bin/chromium" chromium
