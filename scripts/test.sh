#!/bin/sh
# The whole test suite from a fresh clone: dependencies, ZooKeeper, Redis, PostgreSQL, etcd, libfaketime
# and Chromium from Debian packages, the build, then every test.
set -eu
cd "$(dirname "$0")/.."
sh scripts/install.sh
sh scripts/ensure-zookeeper.sh
sh scripts/ensure-redis.sh
sh scripts/ensure-faketime.sh
sh scripts/ensure-chromium.sh
sh scripts/ensure-postgresql.sh
sh scripts/ensure-etcd.sh
# dist/ for the packaging spec; tsc -b is incremental, about a second when nothing changed.
sh scripts/pnpm.sh run --silent build
report="${TMPDIR:-/tmp}/vesta-vitest-$$.json"
status=0
sh scripts/pnpm.sh exec vitest run --reporter=default --reporter=json --outputFile.json="$report" "$@" || status=$?
# One closing line in the plain form every CI reader knows: "N passed, N failed, N skipped".
if [ -f "$report" ]; then
  node -e '
    const r = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
    console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped`);
  ' "$report"
  rm -f "$report"
fi
exit "$status"
