#!/bin/sh
# Installs the workspace's dependencies exactly as locked. A repeat install skips the work when
# nothing changed since the last one: when the lockfile is the one the last install left in
# node_modules, pnpm's optimistic-repeat-install checks the manifests and settings it recorded and,
# when those match too, installs nothing (about 1 CPU-s, pnpm's own start, instead of 3.5 for a
# full up-to-date install, at each `npm start` and `npm test`). That check reads no lockfile, so a
# lockfile that changed alone (a transitive bump, a dedupe) always gets the full install, as does
# a fresh clone; a manifest the lockfile does not match is refused, as before.
set -eu
cd "$(dirname "$0")/.."
repeat=false
if cmp -s pnpm-lock.yaml node_modules/.pnpm/lock.yaml; then repeat=true; fi
sh scripts/pnpm.sh install --frozen-lockfile --reporter=append-only \
  --config.optimistic-repeat-install="$repeat"
