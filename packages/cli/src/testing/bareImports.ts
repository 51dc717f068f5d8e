import { readdir, readFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { join } from 'node:path';

/**
 * The module of an `import ... from`, `export ... from`, `import '...'` or `import('...')` in
 * compiled JavaScript and declarations (statements begin a line, as tsc writes them).
 */
const SPECIFIERS = [
  /^\s*(?:import|export)\b[^;'"]*?\bfrom\s*['"]([^'"\s]+)['"]/gm,
  /^\s*import\s*['"]([^'"\s]+)['"]/gm,
  /\bimport\(\s*['"]([^'"\s]+)['"]\s*\)/g,
];

/** `@scope/name/sub/path` -> `@scope/name`, `name/sub` -> `name`. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

/**
 * The packages that the `.js` and `.d.ts` files under `dir` import, by name: every bare
 * specifier but Node's built-in modules. What a package imports it must declare, or it works
 * only where a hoisted install happens to bring the import along.
 */
export async function bareImports(dir: string): Promise<Set<string>> {
  const imported = new Set<string>();
  for (const file of await readdir(dir, { recursive: true })) {
    if (!file.endsWith('.js') && !file.endsWith('.d.ts')) continue;
    const text = await readFile(join(dir, file), 'utf8');
    const specifiers = SPECIFIERS.flatMap((pattern) =>
      [...text.matchAll(pattern)].map(([, specifier = '']) => specifier),
    );
    for (const specifier of specifiers) {
      if (specifier.startsWith('.') || specifier.startsWith('node:')) continue;
      if (builtinModules.includes(specifier)) continue;
      imported.add(packageOf(specifier));
    }
  }
  return imported;
}
