#!/bin/sh
# The whole test suite from a fresh clone: dependencies, ZooKeeper, then every test.
set -eu
cd "$(dirname "$0")/.."
sh scripts/install.sh
sh scripts/ensure-zookeeper.sh
sh scripts/pnpm.sh exec vitest run "$@"
