import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { capturingLogger, caughtAsync, caught } from '@vesta/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_EPOCH_MS } from '../time/parseEpoch.js';
import { simulateCrash } from '../testing/simulateCrash.js';
import { decodeUuid } from '../uuid/uuid7Bits.js';
import { createIdService } from './createIdService.js';
import type { DefaultIdService } from './DefaultIdService.js';
import type { IdServiceOptions } from './IdServiceOptions.js';

/** Some time well after the epoch, 250 ms into a second. */
const T = DEFAULT_EPOCH_MS + 1_000_000_250;
const RFC9562_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let dir: string;
let now: number;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'vesta-uuid-'));
  now = T;
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function build(options: Partial<IdServiceOptions> = {}): Promise<DefaultIdService> {
  return createIdService<DefaultIdService>({
    machineId: 7,
    stateDir: dir,
    logger: capturingLogger(),
    clock: () => now,
    ...options,
  });
}

/** Fails unless every UUID is above the one before (their text order is their order). */
function expectIncreasing(uuids: readonly string[]): void {
  uuids.forEach((uuid, i) => {
    if (i > 0) expect(uuid > (uuids[i - 1] ?? ''), `${uuids[i - 1]} then ${uuid}`).toBe(true);
  });
}

describe('genUuid on a millisecond layout', () => {
  it('issues RFC 9562 version 7 UUIDs of the clock ms, a counter per ms, its machine id and genMethod', async () => {
    const ids = await build({ type: 'min-granularity' });
    const uuids = [ids.genUuidSync(), ids.genUuidSync(), await ids.genUuid()];
    now += 1;
    uuids.push(...(await ids.genUuids(3)));
    for (const uuid of uuids) expect(uuid).toMatch(RFC9562_V7);
    expectIncreasing(uuids);
    expect(uuids.map((uuid) => decodeUuid(uuid))).toMatchObject([
      { version: 7, rfc9562: true, vesta: true, unixMs: T, counter: 0, machine: 7, genMethod: 0 },
      { unixMs: T, counter: 1 },
      { unixMs: T, counter: 2 },
      { unixMs: T + 1, counter: 0 },
      { unixMs: T + 1, counter: 1 },
      { unixMs: T + 1, counter: 2 },
    ]);
    await ids.close();
  });

  it('draws on the same claims as the 64-bit ids: a UUID and an id never share a (time, sequence)', async () => {
    const ids = await build({ type: 'min-granularity' });
    const taken = new Set<string>();
    for (let i = 0; i < 500; i++) {
      const id = ids.expId(ids.genIdSync());
      taken.add(`${ids.transTime(id.time).getTime()}/${id.seq}`);
      const uuid = decodeUuid(ids.genUuidSync());
      taken.add(`${uuid.unixMs}/${uuid.counter}`);
      if (i % 100 === 99) now += 1;
    }
    expect(taken.size).toBe(1000);
    await ids.close();
  });

  it('repeats no UUID when the clock steps back within the tolerance: the last ms goes on', async () => {
    const ids = await build({ type: 'min-granularity', rollbackToleranceMs: 1000 });
    const uuids = [ids.genUuidSync(), ids.genUuidSync()];
    now -= 500;
    uuids.push(ids.genUuidSync(), ids.genUuidSync());
    expectIncreasing(uuids);
    expect(uuids.map((uuid) => decodeUuid(uuid).unixMs)).toEqual([T, T, T, T]);
    await ids.close();
  });

  it('repeats no UUID after a crash and a clock stepped back across the restart', async () => {
    const first = await build({ type: 'min-granularity' });
    const before = [first.genUuidSync(), first.genUuidSync()];
    await simulateCrash(first);
    // Stepped back 2 s while down: the restart waits for the clock to pass the durable mark.
    let reads = 0;
    const second = await build({
      type: 'min-granularity',
      clock: () => T - 2000 + 1000 * reads++,
      maxStartupWaitMs: 10_000,
    });
    const after = second.genUuidSync();
    expect(after > (before[1] ?? '')).toBe(true);
    expect(decodeUuid(after).unixMs).toBeGreaterThan(T);
    await second.close();
  });
});

/** A UUID's fields but the random ones: two UUIDs of ours with the same key are the same claim. */
function claimKey(uuid: string): string {
  const { unixMs, counter, machine, genMethod, type, idVersion } = decodeUuid(uuid);
  return [unixMs, counter, machine, genMethod, type, idVersion].join('/');
}

describe('genUuid across a restart under other options on the same machine id', () => {
  // The 64-bit ids of another type or version never meet the old ones, so no time mark keeps
  // the new claims apart from the old: the UUID carries the type and version bits instead.
  it.each([
    [
      { type: 'min-granularity', version: 0 },
      { type: 'min-granularity', version: 1 },
    ],
    [{ type: 'min-granularity' }, { type: 'max-peak' }],
  ] as const)(
    'never makes the claim of a UUID issued before: %j then %j',
    async (before, after) => {
      // Borrowing 50 ms ahead of a stopped clock, then a restart 1 ms later: the new service
      // claims units the old one used.
      const first = await build({ ...before, maxLeadMs: 100, rollbackToleranceMs: 1000 });
      const old: string[] = [];
      for (let i = 0; i < 5; i++) old.push(...(await first.genUuids(10_240)));
      await first.close();
      now += 1;
      const second = await build({ ...after, maxLeadMs: 100, rollbackToleranceMs: 1000 });
      const fresh = await second.genUuids(10_000);
      await second.close();
      const oldKeys = new Set(old.map(claimKey));
      expect(oldKeys.size).toBe(old.length);
      expect(fresh.filter((uuid) => oldKeys.has(claimKey(uuid)))).toEqual([]);
    },
  );
});

describe('genUuid on a layout of second units', () => {
  it('puts the clock ms within the second in the UUID, never going back within one second', async () => {
    const ids = await build({ type: 'max-peak', rollbackToleranceMs: 1000 });
    const at = (uuid: string): number | undefined => decodeUuid(uuid).unixMs;
    const first = ids.genUuidSync();
    expect(at(first)).toBe(T);
    now += 100;
    const second = ids.genUuidSync();
    expect(at(second)).toBe(T + 100);
    now -= 60; // a step back within the second: the ms stay where they were
    const third = ids.genUuidSync();
    expect(at(third)).toBe(T + 100);
    now += 900; // the next second
    const fourth = ids.genUuidSync();
    expect(at(fourth)).toBe(T + 940);
    now += 10; // the waiting call and a batch read the ms of their own claims
    const fifth = await ids.genUuid();
    expect(at(fifth)).toBe(T + 950);
    now += 5;
    const batch = await ids.genUuids(2);
    expect(batch.map(at)).toEqual([T + 955, T + 955]);
    expectIncreasing([first, second, third, fourth, fifth, ...batch]);
    expect([first, second, third, fourth].map((uuid) => decodeUuid(uuid).counter)).toEqual([
      0, 1, 2, 0,
    ]);
    await ids.close();
  });
});

describe('genUuid refusals', () => {
  it('refuses a layout whose machine id is wider than the UUID field, with INVALID_OPTIONS', async () => {
    const ids = await build({ layout: 'uid-generator' });
    expect(caught(() => ids.genUuidSync()).code).toBe('INVALID_OPTIONS');
    expect((await caughtAsync(() => ids.genUuid())).message).toContain(
      'a machine id of 22 bits does not fit',
    );
    await ids.close();
  });

  it('checks the batch count as genIds does', async () => {
    const ids = await build();
    for (const count of [0, -1, 1.5, ids.info().maxBatch + 1]) {
      expect((await caughtAsync(() => ids.genUuids(count))).code).toBe('INVALID_ARGUMENT');
    }
    await ids.close();
  });

  it('issues nothing once closed', async () => {
    const ids = await build();
    await ids.close();
    expect(caught(() => ids.genUuidSync()).code).toBe('SERVICE_CLOSED');
  });
});
