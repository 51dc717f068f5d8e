import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '../../..');

/**
 * The node arguments that run this workspace's `vesta` command line as an installed one runs:
 * the compiled `packages/cli/dist/bin.js`, every `@vesta/*` package it imports resolved to its
 * compiled `dist/` through the `vesta-dist` export condition (the packages' `exports` maps).
 * A start then costs plain Node's module loading, not a TypeScript transform of the whole
 * workspace in every child process. `npm test` builds first, and the integration project's
 * global setup (`scripts/build.global-setup.ts`) builds too (incremental), so it is never stale.
 *
 * @example spawn(process.execPath, [...VESTA_CLI, 'rest', '--port', '0'])
 */
export const VESTA_CLI: readonly string[] = [
  '--conditions=vesta-dist',
  join(ROOT, 'packages/cli/dist/bin.js'),
];
