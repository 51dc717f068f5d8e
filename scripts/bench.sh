#!/bin/sh
# Every benchmark, one after the other on a quiet machine: pnpm bench (or npm run bench).
# Each prints a markdown section; BENCHMARKS.md records them with this command.
set -eu
cd "$(dirname "$0")/.."
sh scripts/install.sh >/dev/null
for file in bench/src/*.bench.ts; do
  echo "## $(basename "$file" .bench.ts)"
  sh scripts/pnpm.sh exec tsx "$file"
  echo
done
