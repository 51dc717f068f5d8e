import { spawn } from 'node:child_process';
import { readdir, rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { tempDir, VESTA_CLI } from '@vesta/testkit';
import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { afterEach, describe, expect, it } from 'vitest';
import { readManifests } from './readManifests.js';

const MANIFEST = resolve(import.meta.dirname, '../kubernetes/statefulset.yaml');
/** How long a start may take on a loaded 2-core machine. */
const LISTEN_DEADLINE_MS = 45_000;

const dirs: string[] = [];

afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/**
 * The environment Kubernetes gives the StatefulSet's container in pod `podName`: its `value`s,
 * and `metadata.name` for a field reference; secrets marked optional are left out, as when the
 * Secret does not exist. Anything else is refused, so a new kind of reference needs a decision.
 */
function podEnv(set: IStatefulSet, podName: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const variable of set.spec?.template.spec?.containers[0]?.env ?? []) {
    if (variable.value !== undefined) env[variable.name] = variable.value;
    else if (variable.valueFrom?.fieldRef?.fieldPath === 'metadata.name') {
      env[variable.name] = podName;
    } else if (variable.valueFrom?.secretKeyRef?.optional !== true) {
      throw new Error(`${variable.name}: no stand-in for ${JSON.stringify(variable.valueFrom)}`);
    }
  }
  return env;
}

describe("deploy/kubernetes/statefulset.yaml's container", () => {
  it('starts vesta rest in pod vesta-2 as machine id 926, healthy, and keeps its mark in the state dir', async () => {
    const [set] = (await readManifests(MANIFEST)).filter((doc) => doc.kind === 'StatefulSet');
    const spec = set as unknown as IStatefulSet;
    const args = spec.spec?.template.spec?.containers[0]?.args ?? [];
    const stateDir = tempDir('vesta-statefulset-');
    dirs.push(stateDir);
    // The pod's environment, but on loopback, a free port and a state dir of the test's own.
    const env = {
      ...podEnv(spec, 'vesta-2'),
      VESTA_HOST: '127.0.0.1',
      VESTA_PORT: '0',
      VESTA_STATE_DIR: stateDir,
    };
    const child = spawn(process.execPath, [...VESTA_CLI, ...args], {
      env: { PATH: process.env['PATH'], ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const listening = await new Promise<{ port: number; machineId: number }>((done, fail) => {
      const timer = setTimeout(
        () => fail(new Error(`no listening line: ${stderr}`)),
        LISTEN_DEADLINE_MS,
      );
      void exited.then((code) => fail(new Error(`exited ${String(code)}: ${stderr}`)));
      createInterface({ input: child.stdout }).on('line', (line) => {
        const entry = JSON.parse(line) as { msg?: string; port?: number; machineId?: number };
        if (entry.msg?.startsWith('vesta rest listening') === true) {
          clearTimeout(timer);
          done({ port: Number(entry.port), machineId: Number(entry.machineId) });
        }
      });
    });
    try {
      expect(listening.machineId).toBe(926);
      const base = `http://127.0.0.1:${String(listening.port)}`;
      const probePath = spec.spec?.template.spec?.containers[0]?.readinessProbe?.httpGet?.path;
      expect((await fetch(`${base}${probePath ?? ''}`)).status).toBe(200);
      const { id } = (await (await fetch(`${base}/genid`)).json()) as { id: string };
      const decoded = (await (await fetch(`${base}/expid?id=${id}`)).json()) as { machine: number };
      expect(decoded.machine).toBe(926);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect((await readdir(stateDir)).some((file) => file.startsWith('time-mark-'))).toBe(true);
  });
});
