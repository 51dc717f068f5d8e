import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const PACKAGES = join(ROOT, 'packages');

/** The names a module exports with `export { ... } from` / `export type { ... } from` and `export const/function/class`. */
function exportedNames(source: string): string[] {
  const names = new Set<string>();
  for (const [, block] of source.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)) {
    for (const item of (block ?? '').split(',')) {
      const name = item
        .replace(/\btype\s+/, '')
        .split(/\s+as\s+/)
        .pop()
        ?.trim();
      if (name) names.add(name);
    }
  }
  for (const [, name] of source.matchAll(
    /export\s+(?:const|function|class|interface|type)\s+(\w+)/g,
  )) {
    if (name) names.add(name);
  }
  return [...names].sort();
}

/** Each entry point of a package: its root and every subpath of its `exports` map. */
function entryPoints(dir: string): string[] {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    exports: Record<string, { default: string }>;
  };
  return Object.values(manifest.exports).map((target) => join(dir, target.default));
}

describe('the public surface of every package', () => {
  it.each(readdirSync(PACKAGES))(
    '@vesta/%s: its README names every export of every entry point',
    (name) => {
      const dir = join(PACKAGES, name);
      const readme = readFileSync(join(dir, 'README.md'), 'utf8');
      const missing = entryPoints(dir)
        .flatMap((entry) => exportedNames(readFileSync(entry, 'utf8')))
        .filter((exported) => !readme.includes(`\`${exported}\``));
      expect(missing).toEqual([]);
    },
  );
});
