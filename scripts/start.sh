#!/bin/sh
# The main job from a fresh clone: installs dependencies, then starts the REST id server on
# 127.0.0.1:8080 with the single-machine default machine id and a local state dir.
set -eu
cd "$(dirname "$0")/.."
sh scripts/install.sh
exec sh scripts/pnpm.sh exec tsx packages/cli/src/bin.ts rest "$@"
