#!/bin/sh
# The main job from a fresh clone: installs dependencies, then starts the REST id server on
# 127.0.0.1:8080 with the single-machine default machine id and a local state dir.
# Every layer execs the next (package.json: "exec sh scripts/start.sh"; here node itself, with
# tsx as a loader rather than pnpm exec and the tsx wrapper, which fork), so the server is npm's
# own child: SIGTERM to npm (which forwards it) or to the pid the server logs reaches the server,
# which shuts down gracefully, and no orphan keeps the port.
set -eu
cd "$(dirname "$0")/.."
sh scripts/install.sh
exec node --import tsx packages/cli/src/bin.ts rest "$@"
