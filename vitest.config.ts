import { defineConfig } from 'vitest/config';

/** The one vitest configuration of the workspace: every package's specs, run from the root. */
export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.spec.ts', 'examples/*/src/**/*.spec.ts', 'examples/*/*.spec.ts'],
    // One ZooKeeper for the whole run (scripts/ensure-zookeeper.sh installs it on a fresh machine).
    globalSetup: ['scripts/zookeeper.global-setup.ts', 'scripts/hostMarks.global-setup.ts'],
    // A host-lock scope per test worker (see the file).
    setupFiles: ['scripts/vitest.setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
