#!/bin/sh
# The flakiness check: `npm test` N times in a row (default 10) in a fresh clone of this
# repository's HEAD, with a second process loading one core throughout. Prints a line a run.
#   sh scripts/repeat-tests.sh [runs]
set -u
runs="${1:-10}"
here="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/vesta-repeat-XXXXXX")"
git clone -q "$here" "$work/repo" && cd "$work/repo" || exit 1
node -e 'const end = Date.now() + 6 * 3600e3; while (Date.now() < end) {}' &
hog=$!
trap 'kill $hog 2>/dev/null' EXIT
failed=0
i=1
while [ "$i" -le "$runs" ]; do
  start=$(date +%s)
  npm test > "$work/run-$i.log" 2>&1 || failed=$((failed + 1))
  echo "run $i: $(tail -n 1 "$work/run-$i.log"), $(( $(date +%s) - start )) s (log: $work/run-$i.log)"
  i=$((i + 1))
done
echo "$((runs - failed)) of $runs runs green"
[ "$failed" -eq 0 ]
