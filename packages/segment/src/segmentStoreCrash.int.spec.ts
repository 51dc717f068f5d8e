import { eventually, startPostgresServer, startRedisServer, type TestServer } from '@vesta/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { RedisSegmentStore } from './redis/RedisSegmentStore.js';
import type { SegmentStore } from './store/SegmentStore.js';
import { fleetFindings } from './testing/fleetFindings.js';
import { FLEET_STORES, type FleetStore } from './testing/fleetStores.js';
import { SegmentWorkerProcess, type SegmentWorkerArgs } from './testing/SegmentWorkerProcess.js';

const INSTANCES = 4;
const KEYS = ['order', 'invoice', 'ticket'];
const KEY_STEP = 200;
const MAX_STEP = 1000;
const WAIT_MS = 60_000;

const servers: TestServer[] = [];
const stores: SegmentStore[] = [];
const lives: SegmentWorkerProcess[] = [];
afterAll(async () => {
  await Promise.all(lives.map((life) => life.kill()));
  await Promise.all(stores.map((s) => s.close()));
  await Promise.all(servers.map((s) => s.dispose()));
});

const fleetStore = (kind: FleetStore['kind']): FleetStore =>
  FLEET_STORES.find((fs) => fs.kind === kind) as FleetStore;

const CASES = [
  {
    name: 'PostgreSQL',
    how: 'an immediate shutdown (SIGQUIT: no checkpoint, crash recovery at the restart)',
    fs: fleetStore('postgres'),
    start: async () => startPostgresServer(),
  },
  {
    name: 'Redis',
    how: 'SIGKILL (append-only file, fsync always)',
    fs: fleetStore('redis'),
    start: async () => startRedisServer(),
  },
];

/**
 * INSTANCES worker processes on the store (`store`, `url`, `namespace` and any other argument
 * from `args`) serving KEYS, each killed after the file.
 */
function startWorkers(
  args: Pick<SegmentWorkerArgs, 'store' | 'url' | 'namespace' | 'requireAppendOnly'>,
): Promise<SegmentWorkerProcess[]> {
  return Promise.all(
    Array.from({ length: INSTANCES }, async () => {
      const life = await SegmentWorkerProcess.start({
        ...args,
        keys: KEYS,
        maxStep: MAX_STEP,
        batch: 20,
        pauseMs: 10,
      });
      lives.push(life);
      return life;
    }),
  );
}

/** Waits for `check` (a deadline of its own) and fails with `what` when it never holds. */
async function waitUntil(check: () => boolean, what: () => string): Promise<void> {
  const held = await eventually(check, WAIT_MS);
  expect(held, what()).toBe(true);
}

describe.each(CASES)(
  'the segment store killed mid-load and restarted: $name',
  ({ fs, how, start }) => {
    it(
      `killed by ${how}: ${INSTANCES} instances serve their buffers, then answer COORDINATOR_UNAVAILABLE (never a repeated number, never a crash), and resume after the restart with no number twice`,
      // A server of its own (PostgreSQL: initdb, a crash recovery) and 4 child processes: 20-60 s on
      // a busy 2-core machine. Every wait has its own deadline.
      { timeout: 240_000 },
      async () => {
        const server = await start();
        servers.push(server);
        const namespace = `seg_store_crash_${process.pid}`;
        const store = fs.store(server.url, namespace);
        stores.push(store);
        for (const key of KEYS) await store.createKey(key, { step: KEY_STEP });
        const workers = await startWorkers({ store: fs.kind, url: server.url, namespace });
        const counts = (): number[][] => workers.map((w) => KEYS.map((k) => w.countOf(k)));
        for (const w of workers) {
          await waitUntil(
            () => KEYS.every((k) => w.countOf(k) >= 1000),
            () => `an instance reached ${w.count} numbers; ${w.stderr}`,
          );
        }

        const before = counts();
        await server.stop({ kill: true });
        // Down: each instance serves what it has buffered of each key, then a coded error.
        for (const w of workers) {
          await waitUntil(
            () =>
              KEYS.every((k, i) =>
                w.errorsOf(k).some((e) => e.after >= (before[workers.indexOf(w)]?.[i] ?? 0)),
              ),
            () =>
              `an instance answered no error for some key while the store was down; ${w.stderr}`,
          );
        }
        const down = counts();
        await server.restart();
        for (const [wi, w] of workers.entries()) {
          await waitUntil(
            () => KEYS.every((k, i) => w.countOf(k) >= (down[wi]?.[i] ?? 0) + 200),
            () => `an instance did not resume after the restart; ${w.stderr}`,
          );
        }
        const exits = await Promise.all(workers.map((w) => w.close()));
        expect(exits).toEqual(workers.map(() => ({ code: 0, signal: null })));
        expect(workers.map((w) => w.closeResult)).toEqual(workers.map(() => 'closed'));

        let fromBuffers = 0;
        let errors = 0;
        for (const [wi, w] of workers.entries()) {
          for (const [i, key] of KEYS.entries()) {
            const failed = w.errorsOf(key);
            expect(failed.filter((e) => e.code !== 'COORDINATOR_UNAVAILABLE')).toEqual([]);
            errors += failed.length;
            // The first error while down came once the buffer was used up, and nothing was served
            // after it until the store was back.
            const first = failed.find((e) => e.after >= (before[wi]?.[i] ?? 0));
            expect(first?.after).toBe(down[wi]?.[i]);
            fromBuffers += (down[wi]?.[i] ?? 0) - (before[wi]?.[i] ?? 0);
          }
        }
        const findings = fleetFindings(workers, KEYS);
        expect(findings.duplicateSamples).toEqual([]);
        expect(findings.duplicates).toBe(0);
        expect(findings.notIncreasing).toEqual([]);
        const served = [...findings.reported.values()].reduce((a, b) => a + b, 0);
        console.info(
          `${fs.kind} killed mid-load: ${served} numbers served by ${INSTANCES} instances, ${fromBuffers} of them from their buffers while the store was down, ${errors} calls answered COORDINATOR_UNAVAILABLE`,
        );
      },
    );
  },
);

describe('a Redis without an append-only file killed mid-load, back empty (requireAppendOnly: false)', () => {
  it(
    `${INSTANCES} instances serve their buffers, answer COORDINATOR_UNAVAILABLE while it is down and SEGMENT_KEY_UNKNOWN once it is back, never a number again`,
    { timeout: 240_000 },
    async () => {
      const server = await startRedisServer({ appendOnly: false });
      servers.push(server);
      const fs = fleetStore('redis');
      const namespace = `seg_volatile_${process.pid}`;
      const store = new RedisSegmentStore({
        url: server.url,
        prefix: namespace,
        requireAppendOnly: false,
      });
      stores.push(store);
      for (const key of KEYS) await store.createKey(key, { step: KEY_STEP });
      const workers = await startWorkers({
        store: fs.kind,
        url: server.url,
        namespace,
        requireAppendOnly: false,
      });
      for (const w of workers) {
        await waitUntil(
          () => KEYS.every((k) => w.countOf(k) >= 1000),
          () => `an instance reached ${w.count} numbers; ${w.stderr}`,
        );
      }
      await server.stop({ kill: true });
      await server.restart();
      const unknown = (w: SegmentWorkerProcess, k: string): boolean =>
        w.errorsOf(k).some((e) => e.code === 'SEGMENT_KEY_UNKNOWN');
      for (const w of workers) {
        await waitUntil(
          () => KEYS.every((k) => unknown(w, k)),
          () => `an instance did not answer SEGMENT_KEY_UNKNOWN for every key; ${w.stderr}`,
        );
      }
      const exits = await Promise.all(workers.map((w) => w.close()));
      expect(exits).toEqual(workers.map(() => ({ code: 0, signal: null })));

      for (const w of workers) {
        for (const k of KEYS) {
          const failed = w.errorsOf(k);
          expect(
            failed.filter(
              (e) => !['COORDINATOR_UNAVAILABLE', 'SEGMENT_KEY_UNKNOWN'].includes(e.code),
            ),
          ).toEqual([]);
          // Nothing served after the store said the key was gone.
          const first = failed.find((e) => e.code === 'SEGMENT_KEY_UNKNOWN');
          expect(first?.after).toBe(w.countOf(k));
        }
      }
      const findings = fleetFindings(workers, KEYS);
      expect(findings.duplicates).toBe(0);
      expect(findings.notIncreasing).toEqual([]);
      expect(await store.keys()).toEqual([]);
    },
  );
});
