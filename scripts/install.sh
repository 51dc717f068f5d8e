#!/bin/sh
# Installs the workspace's dependencies exactly as locked.
set -eu
cd "$(dirname "$0")/.."
sh scripts/pnpm.sh install --frozen-lockfile --reporter=append-only
