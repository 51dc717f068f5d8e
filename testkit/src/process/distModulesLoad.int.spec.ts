import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runToExit } from '../runToExit.js';

const ROOT = join(import.meta.dirname, '../../..');
const PACKAGES = join(ROOT, 'packages');

/** The compiled modules of a package whose source still exists (dist/ may hold stale ones). */
function compiledModules(pkg: string): string[] {
  const dist = join(PACKAGES, pkg, 'dist');
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (path.endsWith('.js')) found.push(path);
    }
  };
  if (existsSync(dist)) walk(dist);
  return found.filter((file) => {
    const source = join(PACKAGES, pkg, 'src', relative(dist, file)).replace(/\.js$/, '.ts');
    // A bin runs its command when loaded; the packaging spec runs the installed one.
    return existsSync(source) && !file.endsWith(`${join(pkg, 'dist', 'bin.js')}`);
  });
}

describe("the packages' compiled modules", () => {
  it('every one loads in plain Node, each from its own file, as an installed package loads them', async () => {
    // The tests run the CLI and their fixtures bundled by esbuild, which lets a named import of
    // a CommonJS package through where Node's loader refuses it at load time; a module that
    // only a command imports lazily would then fail for users alone. Loading each module here
    // is Node's own check, for every module, whether or not a test reaches it.
    const packages = readdirSync(PACKAGES);
    const modules = packages.flatMap(compiledModules);
    // Every package was built: its entry is among them (and the files merged this far: 268).
    for (const pkg of packages) expect(modules).toContain(join(PACKAGES, pkg, 'dist', 'index.js'));
    expect(modules.length).toBeGreaterThan(200);
    const script = [
      `const failed = [];`,
      `for (const url of ${JSON.stringify(modules.map((m) => pathToFileURL(m).href))}) {`,
      `  try { await import(url); } catch (error) { failed.push(url + ': ' + error.message); }`,
      `}`,
      `console.log(JSON.stringify(failed));`,
      `process.exit(0);`,
    ].join('\n');
    const result = await runToExit(
      process.execPath,
      ['--conditions=vesta-dist', '--input-type=module', '-e', script],
      ROOT,
    );
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout) as string[]).toEqual([]);
  });
});
