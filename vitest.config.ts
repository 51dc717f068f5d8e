import { defineConfig } from 'vitest/config';

/** The one vitest configuration of the workspace: every package's specs, run from the root. */
export default defineConfig({
  test: {
    include: [
      'packages/*/src/**/*.spec.ts',
      'examples/*/src/**/*.spec.ts',
      'examples/*/*.spec.ts',
      'testkit/src/**/*.spec.ts',
    ],
    // One ZooKeeper for the whole run (scripts/ensure-zookeeper.sh installs it on a fresh machine).
    globalSetup: ['scripts/zookeeper.global-setup.ts', 'scripts/hostMarks.global-setup.ts'],
    // A host-lock scope per test worker (see the file).
    setupFiles: ['scripts/vitest.setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two files at a time on the 2-core machine: most integration tests wait on processes,
    // sockets and clocks, not on the CPU (the suite must hold under load anyway).
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    reporters: ['default'],
  },
});
