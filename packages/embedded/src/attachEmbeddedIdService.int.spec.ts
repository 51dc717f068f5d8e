import { VestaError, type MachineIdProvider } from '@vesta/core';
import { describe, expect, it, vi } from 'vitest';
import { attachEmbeddedIdService } from './attachEmbeddedIdService.js';
import { createEmbeddedIdService } from './createEmbeddedIdService.js';
import type { WorkerIdServiceConfig } from './EmbeddedIdService.js';
import { codeOf, runWorker, startFixtureWorker } from '@vesta/testkit';

const WORKER = new URL('./__fixtures__/issueIdsWorker.ts', import.meta.url).href;
const ON_REQUEST_WORKER = new URL('./__fixtures__/issueOnRequestWorker.ts', import.meta.url).href;

/** The id at `index` (negative counts from the end); a missing one fails the test. */
function at(ids: readonly bigint[], index: number): bigint {
  const id = ids.at(index);
  if (id === undefined) throw new Error(`no id at ${index}`);
  return id;
}

interface WorkerResult {
  ids: BigUint64Array;
  disorder: number;
  machine: number;
}

function countDuplicates(sorted: BigUint64Array): number {
  let duplicates = 0;
  for (let i = 1; i < sorted.length; i++) if (sorted[i] === sorted[i - 1]) duplicates++;
  return duplicates;
}

describe('attachEmbeddedIdService', () => {
  it('lets 4 worker threads on one atomic shared state issue 1,000,000 ids each without a duplicate', async () => {
    const COUNT = 1_000_000;
    const main = await createEmbeddedIdService({ machineId: 21, populator: 'atomic' });
    const config = main.workerConfig();
    const results = await Promise.all(
      [0, 1, 2, 3].map(() => runWorker<WorkerResult>(WORKER, { config, count: COUNT })),
    );
    const mainIds = [main.genIdSync(), main.genIdSync()];
    const all = new BigUint64Array(4 * COUNT + mainIds.length);
    results.forEach((result, i) => {
      expect(result.disorder).toBe(0);
      expect(result.machine).toBe(21);
      expect(result.ids).toHaveLength(COUNT);
      all.set(result.ids, i * COUNT);
    });
    all.set(mainIds, 4 * COUNT);
    expect(countDuplicates(all.sort())).toBe(0);
    // The main thread keeps issuing above what the workers used.
    expect(at(mainIds, 0)).toBe(all[all.length - 2]);
    await main.close();
  });

  it('shares the sequence with a service attached in the same thread', async () => {
    const at = Date.UTC(2030, 0, 1);
    const main = await createEmbeddedIdService({
      machineId: 22,
      populator: 'atomic',
      type: 'min-granularity',
      clock: () => at,
    });
    const attached = await attachEmbeddedIdService(main.workerConfig(), { clock: () => at });
    const ids = [main.genIdSync(), attached.genIdSync(), main.genIdSync(), attached.genIdSync()];
    expect(ids.map((id) => main.expId(id).seq)).toEqual([0, 1, 2, 3]);
    expect(attached.info()).toEqual(main.info());
    // Closing one leaves the other issuing.
    await attached.close();
    expect(main.expId(main.genIdSync()).seq).toBe(4);
    await main.close();
  });

  it('carries a custom layout and epoch to the attached service', async () => {
    const main = await createEmbeddedIdService({
      machineId: 5,
      populator: 'atomic',
      epoch: '2024-06-01T00:00:00Z',
      layout: { seqBits: 18, machineBits: 12 },
      version: 1,
    });
    const config = structuredClone(main.workerConfig());
    expect(config.buffer).toBeInstanceOf(SharedArrayBuffer);
    const attached = await attachEmbeddedIdService(config);
    expect(attached.info()).toEqual(main.info());
    expect(attached.expId(attached.genIdSync())).toMatchObject({
      machine: 5,
      version: 1,
      genMethod: 0,
    });
    await attached.close();
    await main.close();
  });

  it.each<[string, unknown]>([
    ['no config', undefined],
    ['a config without a shared buffer', { machineId: 1, buffer: new ArrayBuffer(24) }],
  ])('refuses %s with INVALID_OPTIONS', async (_name, config) => {
    let caught: unknown;
    try {
      await attachEmbeddedIdService(config as WorkerIdServiceConfig);
    } catch (error) {
      caught = error;
    }
    expect(VestaError.is(caught, 'INVALID_OPTIONS')).toBe(true);
  });
});

/** A lease whose validity the test switches, as a ZooKeeper lease's flips when fenced. */
function switchableLease(machineId: number) {
  const state = { valid: true, released: false };
  const provider: MachineIdProvider = {
    acquire: async () => ({
      machineId,
      assertValid() {
        if (!state.valid) throw new VestaError('MACHINE_ID_LEASE_LOST', 'fenced by the test');
      },
      release: async () => {
        state.released = true;
      },
    }),
  };
  return { state, provider };
}

describe('a service joined to shared state', () => {
  it("stops issuing while the owner's lease is fenced, resumes with it, and stops for good when the owner closes", async () => {
    const { state, provider } = switchableLease(33);
    const owner = await createEmbeddedIdService({
      machineIdProvider: provider,
      populator: 'atomic',
    });
    const member = await attachEmbeddedIdService(owner.workerConfig());
    expect(codeOf(() => member.genIdSync())).toBeUndefined();

    state.valid = false;
    await vi.waitFor(() => expect(codeOf(() => member.genIdSync())).toBe('MACHINE_ID_LEASE_LOST'), {
      timeout: 5000,
      interval: 10,
    });
    await expect(member.genIds(10)).rejects.toMatchObject({ code: 'MACHINE_ID_LEASE_LOST' });
    expect(member.health()).toMatchObject({ ok: false, code: 'MACHINE_ID_LEASE_LOST' });

    state.valid = true;
    await vi.waitFor(() => expect(codeOf(() => member.genIdSync())).toBeUndefined(), {
      timeout: 5000,
      interval: 10,
    });

    await owner.close();
    expect(state.released).toBe(true);
    expect(codeOf(() => member.genIdSync())).toBe('SERVICE_CLOSED');
    await member.close();
  });
});

describe('worker threads on the shared state of a service with a fixed machine id', () => {
  it('stop issuing with SERVICE_CLOSED when the owner closes, so a new owner of the id repeats none of their ids', async () => {
    const owner = await createEmbeddedIdService({ machineId: 34, populator: 'atomic' });
    const worker = await startFixtureWorker(ON_REQUEST_WORKER, { config: owner.workerConfig() });
    try {
      const replies: Array<{ id?: string; code?: string }> = [];
      let wake: (() => void) | undefined;
      worker.on('message', (message: unknown) => {
        if (message !== 'ready') replies.push(message as { id?: string; code?: string });
        wake?.();
      });
      worker.once('error', (error) => {
        throw error;
      });
      const next = async (): Promise<{ id?: string; code?: string }> => {
        const count = replies.length;
        worker.postMessage('issue');
        while (replies.length === count) await new Promise<void>((resolve) => (wake = resolve));
        return replies[count] ?? {};
      };
      await new Promise<void>((resolve) => (wake = resolve)); // "ready"
      const fromWorker = (await next()).id;
      expect(fromWorker).toMatch(/^\d+$/);

      await owner.close();
      expect(await next()).toEqual({ code: 'SERVICE_CLOSED' });

      const successor = await createEmbeddedIdService({ machineId: 34, populator: 'atomic' });
      const fresh = await successor.genIds(1000);
      expect(fresh.map(String)).not.toContain(fromWorker);
      expect(fresh[0]).toBeGreaterThan(BigInt(fromWorker ?? '0'));
      expect(await next()).toEqual({ code: 'SERVICE_CLOSED' });
      await successor.close();
    } finally {
      await worker.terminate();
    }
  });
});
