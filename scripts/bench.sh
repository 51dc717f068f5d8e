#!/bin/sh
# Every benchmark, one after the other on a quiet machine: pnpm bench (or npm run bench).
# Each prints a markdown section; BENCHMARKS.md records them with this command.
set -eu
cd "$(dirname "$0")/.."
sh scripts/install.sh >/dev/null
# Host marks of this run only: the benchmarks pick their epochs from the clock, and a mark left by
# an earlier run under another epoch would (rightly) refuse the same machine id (STATE_MISMATCH).
VESTA_HOST_MARKS_DIR="$(mktemp -d "${TMPDIR:-/tmp}/vesta-bench-marks-XXXXXX")"
export VESTA_HOST_MARKS_DIR
trap 'rm -rf "$VESTA_HOST_MARKS_DIR"' EXIT
for file in bench/src/*.bench.ts; do
  echo "## $(basename "$file" .bench.ts)"
  sh scripts/pnpm.sh exec tsx "$file"
  echo
done
