import { eventually, seeded, startRedisServer, type RedisServer } from '@vesta/testkit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createSegmentService } from './createSegmentService.js';
import type { SegmentStore } from './store/SegmentStore.js';
import { fleetFindings } from './testing/fleetFindings.js';
import { FLEET_STORES } from './testing/fleetStores.js';
import { SegmentWorkerProcess } from './testing/SegmentWorkerProcess.js';

/** A failing schedule replays with VESTA_CRASH_SEED. */
const SEED = Number(process.env['VESTA_CRASH_SEED'] ?? 0x5e9);
const INSTANCES = 4;
const KEYS = ['order', 'invoice', 'ticket'];
const KEY_STEP = 200;
const MAX_STEP = 1000;
const KILLS = 8;
const CLEAN_RESTARTS = 4;
/** A victim serves this many more numbers (all keys), and up to LIFE_SPREAD more, before it is stopped. */
const LIFE_MIN = 600;
const LIFE_SPREAD = 6000;
const WAIT_MS = 60_000;
/**
 * The pause between a key's batches of 20: 10 ms, at most 2,000 numbers a second per key, as the
 * machine is shared and the kills need no more to land anywhere in a segment;
 * VESTA_FLEET_PAUSE_MS=0 runs the instances as fast as they go (millions of numbers a run).
 */
const PAUSE_MS = Number(process.env['VESTA_FLEET_PAUSE_MS'] ?? 10);

let redis: RedisServer | undefined;
const stores: SegmentStore[] = [];
const lives: SegmentWorkerProcess[] = [];
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  // A test that failed half-way leaves its workers running: kill them.
  await Promise.all(lives.map((life) => life.kill()));
  await Promise.all(stores.map((s) => s.close()));
  await redis?.dispose();
});

describe.each(FLEET_STORES)('segment services on $kind, killed with SIGKILL under load', (fs) => {
  it(
    `${INSTANCES} instances serving ${KEYS.length} keys, ${KILLS} killed with SIGKILL and ${CLEAN_RESTARTS} closed at seeded points and restarted: no number twice, each life strictly increasing, losses within two segments per kill, and a new service starts at the lowest range handed back`,
    // 16 lives of a child process and their numbers: 20-40 s on a
    // busy 2-core machine. Every wait below has its own deadline.
    { timeout: 240_000 },
    async () => {
      const url = fs.kind === 'postgres' ? inject('postgresUrl') : (redis as RedisServer).url;
      const namespace = `seg_fleet_${process.pid}_${Date.now() % 100_000}`;
      const store = fs.store(url, namespace);
      stores.push(store);
      for (const key of KEYS) await store.createKey(key, { step: KEY_STEP });
      const start = async (): Promise<SegmentWorkerProcess> => {
        const life = await SegmentWorkerProcess.start({
          store: fs.kind,
          url,
          namespace,
          keys: KEYS,
          maxStep: MAX_STEP,
          batch: 20,
          pauseMs: PAUSE_MS,
        });
        lives.push(life);
        return life;
      };
      const waitFor = async (life: SegmentWorkerProcess, count: number): Promise<void> => {
        const reached = await eventually(() => life.count >= count, WAIT_MS);
        expect(reached, `a life reached ${life.count} of ${count} numbers; ${life.stderr}`).toBe(
          true,
        );
      };

      const rand = seeded(SEED);
      const plan = [
        ...Array.from({ length: KILLS }, () => 'kill' as const),
        ...Array.from({ length: CLEAN_RESTARTS }, () => 'close' as const),
      ];
      for (let i = plan.length - 1; i > 0; i--) {
        const j = Math.floor(rand() * (i + 1));
        [plan[i], plan[j]] = [plan[j] as 'kill' | 'close', plan[i] as 'kill' | 'close'];
      }
      const first = lives.length;
      const live = await Promise.all(Array.from({ length: INSTANCES }, start));
      for (const how of plan) {
        const v = Math.floor(rand() * INSTANCES);
        const victim = live[v] as SegmentWorkerProcess;
        await waitFor(victim, victim.count + LIFE_MIN + Math.floor(rand() * LIFE_SPREAD));
        if (how === 'kill') {
          expect(await victim.kill()).toMatchObject({ signal: 'SIGKILL' });
        } else {
          expect(await victim.close()).toMatchObject({ code: 0 });
          expect(victim.closeResult).toBe('closed');
        }
        live[v] = await start();
      }
      for (const life of live) await waitFor(life, life.count + LIFE_MIN);
      const exits = await Promise.all(live.map((life) => life.close()));
      expect(exits.map((e) => e.code)).toEqual(live.map(() => 0));
      expect(live.map((life) => life.closeResult)).toEqual(live.map(() => 'closed'));

      const ours = lives.slice(first);
      const findings = fleetFindings(ours, KEYS);
      expect(findings.duplicateSamples).toEqual([]);
      expect(findings.duplicates).toBe(0);
      expect(findings.notIncreasing).toEqual([]);

      // Every number below a key's max was served, handed back, or lost with a killed life's
      // buffer: at most two ranges per key, each at most 2 x MAX_STEP (a handed-back range can
      // join the rest of a segment and the next).
      const maxes = new Map((await store.keys()).map((k) => [k.key, k.max]));
      const figures: string[] = [];
      let lostAll = 0n;
      for (const key of KEYS) {
        const free = await fs.freeRanges(url, namespace, key);
        const handedBack = free.reduce((sum, r) => sum + (r.end - r.start), 0n);
        const reported = BigInt(findings.reported.get(key) ?? 0);
        const lost = (maxes.get(key) ?? 0n) - reported - handedBack;
        expect(lost).toBeGreaterThanOrEqual(0n);
        expect(lost).toBeLessThanOrEqual(BigInt(KILLS * 4 * MAX_STEP));
        lostAll += lost;
        figures.push(`${key}: ${reported} served, ${lost} lost, ${handedBack} handed back`);

        // The next service starts from the lowest range handed back, raising no max.
        expect(free.length).toBeGreaterThan(0);
        const next = createSegmentService({ store, refillAt: 1 });
        expect(await next.segment(key)).toBe(free[0]?.start);
        expect((await store.keys()).find((k) => k.key === key)?.max).toBe(maxes.get(key));
        await next.close();
      }
      const served = [...findings.reported.values()].reduce((a, b) => a + b, 0);
      console.info(
        `${fs.kind} fleet (seed ${SEED}): ${served} numbers served over ${ours.length} lives, ${KILLS} kill -9 (${lostAll} numbers lost to them), ${CLEAN_RESTARTS} clean restarts; ${figures.join('; ')}`,
      );
    },
  );
});
