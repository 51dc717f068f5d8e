#!/bin/sh
# Runs the pnpm pinned by package.json#packageManager, through corepack (shipped with Node 20).
# Nothing has to be installed by hand: corepack fetches that exact pnpm and checks its hash.
export COREPACK_ENABLE_DOWNLOAD_PROMPT=0
exec corepack pnpm "$@"
