#!/bin/sh
# The whole test suite from a fresh clone: dependencies, ZooKeeper, Redis, PostgreSQL, etcd, libfaketime,
# Chromium, promtool and Python's gRPC from Debian packages, the build, then every test.
set -eu
cd "$(dirname "$0")/.."
sh scripts/install.sh
sh scripts/ensure-zookeeper.sh
sh scripts/ensure-redis.sh
sh scripts/ensure-faketime.sh
sh scripts/ensure-chromium.sh
sh scripts/ensure-postgresql.sh
sh scripts/ensure-etcd.sh
sh scripts/ensure-promtool.sh
sh scripts/ensure-grpc-python.sh
# dist/ for the packaging spec; tsc -b is incremental, about a second when nothing changed.
sh scripts/pnpm.sh run --silent build
report="${TMPDIR:-/tmp}/vesta-vitest-$$"
status=0
sh scripts/pnpm.sh exec vitest run --project unit --project integration --passWithNoTests \
  --reporter=default --reporter=json --outputFile.json="$report-main.json" "$@" || status=$?
# The latency specs after the rest, alone on the machine (vitest.config.ts, QUIET_SPECS).
sh scripts/pnpm.sh exec vitest run --project quiet --passWithNoTests \
  --reporter=default --reporter=json --outputFile.json="$report-quiet.json" "$@" || status=$?
# One closing line in the plain form every CI reader knows: "N passed, N failed, N skipped".
node -e '
  const fs = require("node:fs");
  const runs = process.argv.slice(1).filter((f) => fs.existsSync(f)).map((f) => JSON.parse(fs.readFileSync(f, "utf8")));
  const sum = (key) => runs.reduce((n, r) => n + r[key], 0);
  console.log(`tests: ${sum("numPassedTests")} passed, ${sum("numFailedTests")} failed, ${sum("numPendingTests") + sum("numTodoTests")} skipped`);
' "$report-main.json" "$report-quiet.json"
rm -f "$report-main.json" "$report-quiet.json"
exit "$status"
