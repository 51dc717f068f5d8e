import { join } from 'node:path';
import { VESTA_CLI_BUNDLE } from './bundleVestaCli.js';

const ROOT = join(import.meta.dirname, '../../..');

/**
 * The node arguments that run this workspace's `vesta` command line in the tests: the compiled
 * bin and everything it imports, bundled into an entry and its chunks by the integration
 * project's global setup (`scripts/build.global-setup.ts`, after `tsc -b`; see `bundleVestaCli`),
 * so that the suite's CLI starts (about 240 in a run) do not each pay Node's loader over hundreds
 * of small files, and each reads only the chunks its command loads.
 * It is the code `tsc` compiled, each module still reading what lies beside its own file.
 *
 * @example spawn(process.execPath, [...VESTA_CLI, 'rest', '--port', '0'])
 */
export const VESTA_CLI: readonly string[] = [VESTA_CLI_BUNDLE];

/**
 * The node arguments that run the `vesta` command line as an installed one runs: the compiled
 * `packages/cli/dist/bin.js`, every `@vesta/*` package it imports resolved to its compiled
 * `dist/` through the `vesta-dist` export condition (the packages' `exports` maps), each module
 * loaded from its own file. For benchmarks, which measure what users run; `npm run build` first.
 */
export const VESTA_DIST_CLI: readonly string[] = [
  '--conditions=vesta-dist',
  join(ROOT, 'packages/cli/dist/bin.js'),
];
