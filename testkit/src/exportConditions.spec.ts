import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const PACKAGES = join(import.meta.dirname, '../../packages');

interface Manifest {
  exports: Record<string, Record<string, string>>;
  publishConfig?: { exports?: Record<string, Record<string, string>> };
}

describe('the vesta-dist export condition', () => {
  it.each(readdirSync(PACKAGES))(
    '@vesta/%s: every entry resolves under it to the compiled file it publishes',
    (name) => {
      // The tests' CLI is bundled under the vesta-dist condition (testkit's VESTA_CLI), and
      // their fixtures run with it (compiledFixture): an entry without it would load TypeScript
      // source and fail.
      const manifest = JSON.parse(
        readFileSync(join(PACKAGES, name, 'package.json'), 'utf8'),
      ) as Manifest;
      for (const [entry, targets] of Object.entries(manifest.exports)) {
        expect(Object.keys(targets), entry).toEqual(['types', 'vesta-dist', 'default']);
        expect(targets['vesta-dist'], entry).toBe(
          manifest.publishConfig?.exports?.[entry]?.['default'],
        );
      }
    },
  );
});
