#!/bin/sh
# Builds the workspace's packages and packs each into deploy/container/packages/, where the
# Containerfile installs them from instead of the npm registry (their third-party dependencies
# still come from the registry). pnpm pack rewrites workspace:* and applies publishConfig, as
# publishing does.
set -eu
cd "$(dirname "$0")/../.."
rm -f deploy/container/packages/*.tgz
sh scripts/pnpm.sh run --silent build
sh scripts/pnpm.sh -r --filter './packages/*' pack --pack-destination deploy/container/packages >/dev/null
ls deploy/container/packages/*.tgz
