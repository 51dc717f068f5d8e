#!/bin/sh
# Installs the workspace's dependencies exactly as locked. A repeat install first checks whether
# anything changed since the last one (pnpm's optimistic-repeat-install: the lockfile, the
# manifests and the settings pnpm recorded in node_modules) and, when nothing did, installs
# nothing: about 1 CPU-s (pnpm's own start) instead of 3.5 for its full up-to-date install, at
# each `npm start` and `npm test`. A fresh clone, or a changed lockfile or manifest, installs in
# full (and a manifest the lockfile does not match is refused, as before).
set -eu
cd "$(dirname "$0")/.."
sh scripts/pnpm.sh install --frozen-lockfile --reporter=append-only \
  --config.optimistic-repeat-install=true
