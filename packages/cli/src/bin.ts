#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { fileURLToPath } from 'node:url';

/** Adds the `vesta-dist` export condition, under which workspace packages export their `dist/`. */
const VESTA_DIST_HOOK = `data:text/javascript,${encodeURIComponent(
  "export function resolve(specifier, context, next) { return next(specifier, { ...context, conditions: [...context.conditions, 'vesta-dist'] }); }",
)}`;

/** Whether this is the workspace's compiled bin run by `node` (not bundled, not installed, not tsx). */
function compiledInWorkspace(): boolean {
  const self = fileURLToPath(import.meta.url);
  try {
    return (
      self.endsWith('.js') &&
      realpathSync(process.argv[1] ?? '') === self &&
      createRequire(self).resolve('@vesta/core').endsWith('.ts')
    );
  } catch {
    return false;
  }
}

if (compiledInWorkspace()) register(VESTA_DIST_HOOK);

await import('reflect-metadata');
const { buildProgram } = await import('./program.js');
await (await buildProgram(process.argv)).parseAsync(process.argv);
