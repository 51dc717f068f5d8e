import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { kubernetesModelOf } from './kubernetesModels.js';
import type { Manifest } from './readManifests.js';

const run = promisify(execFile);
const DEPLOY = resolve(import.meta.dirname, '..');
const TSC = resolve(DEPLOY, 'node_modules/typescript/bin/tsc');

/**
 * The fields of the manifests that their kinds do not have, at any depth (`livenessProb` for
 * `livenessProbe`), which the API server drops with a warning or refuses under strict field
 * validation: each manifest becomes an object literal typed with its kubernetes-models
 * interface, and TypeScript's excess-property check names every unknown key. One tsc run for
 * all of them (a few seconds); an empty list when there is none.
 */
export async function unknownFieldErrors(manifests: readonly Manifest[]): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'vesta-k8s-fields-'));
  try {
    const lines = manifests.flatMap((manifest, index) => {
      const { module, name } = kubernetesModelOf(manifest);
      return [
        `import type { I${name} as T${String(index)} } from '${module}';`,
        `export const m${String(index)}: T${String(index)} = ${JSON.stringify(manifest)};`,
      ];
    });
    await writeFile(join(dir, 'manifests.ts'), `${lines.join('\n')}\n`);
    await writeFile(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          skipLibCheck: true,
          types: [],
          paths: { 'kubernetes-models/*': [join(DEPLOY, 'node_modules/kubernetes-models/*')] },
        },
        files: ['manifests.ts'],
      }),
    );
    try {
      await run(process.execPath, [TSC, '-p', join(dir, 'tsconfig.json')]);
      return [];
    } catch (error) {
      const stdout = (error as { stdout?: unknown }).stdout;
      if (typeof stdout !== 'string' || !stdout.includes('error TS')) throw error;
      return stdout
        .split('\n')
        .filter((line) => line.includes('error TS'))
        .map((line) => line.replace(/^.*manifests\.ts/, 'manifests.ts'));
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
