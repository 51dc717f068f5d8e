import { defineConfig } from 'vitest/config';

/** The one vitest configuration of the workspace: every package's specs, run from the root. */
export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.spec.ts', 'examples/*/src/**/*.spec.ts', 'examples/*/*.spec.ts'],
    setupFiles: ['reflect-metadata'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
