import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { tempDir, VESTA_CLI } from '@vesta/testkit';
import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { readManifests, type Manifest } from './readManifests.js';

const KUBERNETES = resolve(import.meta.dirname, '../kubernetes');
/** How long a start may take on a loaded 2-core machine (a new coordinator store: an era too). */
const LISTEN_DEADLINE_MS = 45_000;

const dirs: string[] = [];

afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** Secret name -> key -> value, from the `stringData` of a manifest file's Secrets. */
type Secrets = ReadonlyMap<string, Readonly<Record<string, string>>>;

/**
 * The environment Kubernetes gives the StatefulSet's container in pod `podName`: its `value`s,
 * `metadata.name` for a field reference, a Secret's key for a secret reference; an optional
 * secret whose Secret is missing is left out, as Kubernetes does. Anything else is refused, so a
 * new kind of reference needs a decision here.
 */
function podEnv(set: IStatefulSet, podName: string, secrets: Secrets): Record<string, string> {
  const env: Record<string, string> = {};
  for (const variable of set.spec?.template.spec?.containers[0]?.env ?? []) {
    const secret = variable.valueFrom?.secretKeyRef;
    const value =
      variable.value ??
      (variable.valueFrom?.fieldRef?.fieldPath === 'metadata.name' ? podName : undefined) ??
      (secret === undefined ? undefined : secrets.get(secret.name ?? '')?.[secret.key]);
    if (value !== undefined) env[variable.name] = value;
    else if (secret?.optional !== true) {
      throw new Error(`${variable.name}: no stand-in for ${JSON.stringify(variable.valueFrom)}`);
    }
  }
  return env;
}

interface Pod {
  readonly url: string;
  readonly machineId: number;
  /** SIGTERM; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Runs the real CLI with a manifest's container args and the environment of pod `podName`, with
 * `overrides` (loopback, a free port, a state dir of the test's own); resolves once it logs that
 * it listens.
 */
async function startPod(
  manifests: readonly Manifest[],
  podName: string,
  overrides: Record<string, string>,
): Promise<Pod> {
  const set = manifests.find((doc) => doc.kind === 'StatefulSet') as unknown as IStatefulSet;
  const secrets = new Map(
    manifests
      .filter((doc) => doc.kind === 'Secret')
      .map((doc) => [doc.metadata.name, doc['stringData'] as Record<string, string>]),
  );
  const args = set.spec?.template.spec?.containers[0]?.args ?? [];
  const env = { PATH: process.env['PATH'], ...podEnv(set, podName, secrets), ...overrides };
  const child = spawn(process.execPath, [...VESTA_CLI, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const listening = new Promise<{ port: number; machineId: number }>((done, fail) => {
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
  const stop = (): Promise<number | null> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    return exited;
  };
  try {
    const { port, machineId } = await listening;
    return { url: `http://127.0.0.1:${String(port)}`, machineId, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function machineOfNextId(url: string): Promise<number> {
  const { id } = (await (await fetch(`${url}/genid`)).json()) as { id: string };
  const decoded = (await (await fetch(`${url}/expid?id=${id}`)).json()) as { machine: number };
  return decoded.machine;
}

describe("deploy/kubernetes/statefulset.yaml's container", () => {
  it('starts vesta rest in pod vesta-2 as machine id 926, healthy, and keeps its mark in the state dir', async () => {
    const manifests = await readManifests(resolve(KUBERNETES, 'statefulset.yaml'));
    const stateDir = tempDir('vesta-statefulset-');
    dirs.push(stateDir);
    const pod = await startPod(manifests, 'vesta-2', {
      VESTA_HOST: '127.0.0.1',
      VESTA_PORT: '0',
      VESTA_STATE_DIR: stateDir,
    });
    try {
      expect(pod.machineId).toBe(926);
      expect((await fetch(`${pod.url}/health`)).status).toBe(200);
      expect(await machineOfNextId(pod.url)).toBe(926);
    } finally {
      expect(await pod.stop()).toBe(0);
    }
    expect((await readdir(stateDir)).some((file) => file.startsWith('time-mark-'))).toBe(true);
  });
});

describe("deploy/kubernetes/statefulset-coordinator.yaml's container", () => {
  it("leases a machine id from the Secret's etcd under the pod's name, and gets it back after a restart", async () => {
    const manifests = await readManifests(resolve(KUBERNETES, 'statefulset-coordinator.yaml'));
    // The Secret's URL, pointed at the run's etcd, under a root of this test's own (a new store).
    const secret = manifests.find((doc) => doc.kind === 'Secret')?.['stringData'] as {
      url: string;
    };
    const root = `/vesta-deploy-${randomBytes(4).toString('hex')}`;
    const coordinator = secret.url.replace(
      /^etcd:\/\/[^/]+\/.*$/,
      `etcd://${inject('etcdEndpoints')}${root}`,
    );
    expect(coordinator).not.toBe(secret.url);
    // Each pod its own volume, as the claim template gives it.
    const volumes = new Map<string, string>();
    const start = (podName: string): Promise<Pod> => {
      let stateDir = volumes.get(podName);
      if (stateDir === undefined) {
        stateDir = tempDir(`vesta-${podName}-`);
        dirs.push(stateDir);
        volumes.set(podName, stateDir);
      }
      return startPod(manifests, podName, {
        VESTA_COORDINATOR: coordinator,
        VESTA_HOST: '127.0.0.1',
        VESTA_PORT: '0',
        VESTA_STATE_DIR: stateDir,
      });
    };
    const zero = await start('vesta-0');
    const two = await start('vesta-2').catch(async (error: unknown) => {
      await zero.stop();
      throw error;
    });
    try {
      expect(two.machineId).not.toBe(zero.machineId);
      for (const pod of [zero, two]) {
        expect(pod.machineId).toBeGreaterThanOrEqual(924);
        expect(pod.machineId).toBeLessThanOrEqual(1023);
        expect((await fetch(`${pod.url}/health`)).status).toBe(200);
        expect(await machineOfNextId(pod.url)).toBe(pod.machineId);
      }
    } finally {
      expect(await two.stop()).toBe(0);
      expect(await zero.stop()).toBe(0);
    }
    // Both ids free now: vesta-2 gets its own back by its key, not the first free one.
    const again = await start('vesta-2');
    try {
      expect(again.machineId).toBe(two.machineId);
    } finally {
      expect(await again.stop()).toBe(0);
    }
  });
});
