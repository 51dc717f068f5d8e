import 'reflect-metadata';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createIdService } from './createIdService.js';
import type { DefaultIdService } from './DefaultIdService.js';
import type { IdServiceOptions } from './IdServiceOptions.js';
import { caughtAsync } from '@vesta/testkit';

const DAY = 86_400_000;
const EPOCH = Date.UTC(2025, 0, 1);
const T = Date.UTC(2026, 3, 1, 12);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'vesta-restart-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function build(options: Partial<IdServiceOptions>): Promise<DefaultIdService> {
  return createIdService<DefaultIdService>({ machineId: 9, stateDir: dir, ...options });
}

/** The ids a service issues over `seconds` seconds of a clock it reads through `now`. */
async function issue(service: DefaultIdService, clock: { now: number }, seconds: number) {
  const ids: bigint[] = [];
  for (let s = 0; s < seconds; s++) {
    ids.push(...(await service.genIds(3)));
    clock.now += 1000;
  }
  return ids;
}

describe('a restart on the same state dir with other id options', () => {
  it('refuses a later epoch with STATE_MISMATCH naming the change, instead of issuing lower times again', async () => {
    const clock = { now: T };
    const first = await build({ epoch: EPOCH, clock: () => clock.now });
    await issue(first, clock, 5);
    await first.close();
    const error = await caughtAsync(() => build({ epoch: EPOCH + DAY, clock: () => clock.now }));
    expect(error.code).toBe('STATE_MISMATCH');
    expect(error.message).toContain('epoch 2025-01-01T00:00:00.000Z -> 2025-01-02T00:00:00.000Z');
  });

  it.each([
    ['a custom layout', { layout: { seqBits: 19, timeBits: 31 } }],
    ['a narrower time field', { layout: { seqBits: 21, timeBits: 29 } }],
  ])('refuses %s over the same bits', async (_name, change) => {
    const clock = { now: T };
    const first = await build({ epoch: EPOCH, clock: () => clock.now });
    await issue(first, clock, 2);
    await first.close();
    const error = await caughtAsync(() =>
      build({ epoch: EPOCH, clock: () => clock.now, ...change }),
    );
    expect(error.code).toBe('STATE_MISMATCH');
  });

  it('accepts an earlier epoch, whose times all lie above those issued, and repeats no id', async () => {
    const clock = { now: T };
    const first = await build({ epoch: EPOCH, clock: () => clock.now });
    const before = await issue(first, clock, 5);
    await first.close();
    const second = await build({ epoch: EPOCH - 30 * DAY, clock: () => clock.now });
    const after = await issue(second, clock, 5);
    await second.close();
    expect(new Set([...before, ...after]).size).toBe(before.length + after.length);
  });

  it('accepts another machine id, genMethod or type on the same state dir', async () => {
    const clock = { now: T };
    const first = await build({ clock: () => clock.now });
    await issue(first, clock, 2);
    await first.close();
    for (const change of [
      { machineId: 10, epoch: EPOCH + DAY },
      { type: 'min-granularity' as const, epoch: EPOCH + DAY },
    ]) {
      const other = await build({ clock: () => clock.now, ...change });
      await other.close();
    }
  });
});

describe('a new service on the same machine id in the same process', () => {
  it('continues above the ids of a closed one without a state dir, on the same clock', async () => {
    let now = T;
    const clock = (): number => now;
    const first = await createIdService<DefaultIdService>({ machineId: 11, clock });
    const before = await first.genIds(1000);
    await first.close();
    const advance = setInterval(() => (now += 100), 5);
    try {
      const second = await createIdService<DefaultIdService>({ machineId: 11, clock });
      const after = await second.genIds(1000);
      await second.close();
      expect(new Set([...before, ...after]).size).toBe(2000);
    } finally {
      clearInterval(advance);
    }
  });
});

describe('the marks of closed services, per host-lock scope', () => {
  it('bound a new service of the same scope, and not one of another scope (another host)', async () => {
    const clock = (): number => T;
    const scope = `marks-${process.pid}-${Math.random()}`;
    const first = await createIdService<DefaultIdService>({
      machineId: 12,
      clock,
      layout: { seqBits: 1, versionBits: 10 },
      type: 'min-granularity',
      hostLockScope: scope,
    });
    await first.genIds(2);
    await first.close();
    // Another layout over the same machine id: refused where the closed service's mark counts.
    const error = await caughtAsync(() =>
      createIdService({ machineId: 12, clock, hostLockScope: scope }),
    );
    expect(error.code).toBe('STATE_MISMATCH');
    expect(error.message).toContain('a service closed earlier in this process');
    const elsewhere = await createIdService<DefaultIdService>({
      machineId: 12,
      clock,
      hostLockScope: `${scope}-b`,
    });
    expect(await elsewhere.genIds(3)).toHaveLength(3);
    await elsewhere.close();
  });
});

describe('a restart on the same state dir with a layout preset', () => {
  it('continues above the mark under the same shape and epoch (twitter, then leaf: one id space)', async () => {
    const clock = { now: T };
    const first = await build({ layout: 'twitter', clock: () => clock.now });
    const before = await first.genIds(3);
    await first.close();
    clock.now += 1000; // the mark is kept in whole seconds
    const second = await build({ layout: 'leaf', clock: () => clock.now });
    const after = await second.genIds(3);
    expect(after[0]).toBeGreaterThan(before.at(-1) as bigint);
    await second.close();
  });

  it('refuses another field order or width over the same bits with STATE_MISMATCH naming it', async () => {
    const clock = { now: T };
    const first = await build({ layout: 'twitter', clock: () => clock.now });
    await first.genIds(3);
    await first.close();
    const error = await caughtAsync(() =>
      build({ layout: 'discord', epoch: 1288834974657, clock: () => clock.now }),
    );
    expect(error.code).toBe('STATE_MISMATCH');
    expect(error.message).toContain(
      'layout seq:12,machine:10,time:41,reserved:1 -> seq:12,machine:10,time:42',
    );
  });

  it('leaves a mark of another machine id alone whatever its layout (another instance, not a restart)', async () => {
    const clock = { now: T };
    const vesta = await build({ clock: () => clock.now });
    await vesta.genIds(3);
    await vesta.close();
    // Leaf's ids on machine 12 could meet Vesta's of machine 9 bit for bit, as any two layouts
    // can; marks guard one instance's ids across its restarts, machine ids keep instances apart.
    const leaf = await build({ layout: 'leaf', machineId: 12, clock: () => clock.now });
    expect(typeof leaf.genIdSync()).toBe('bigint');
    await leaf.close();
    // The same machine id under the other layout is still a restart that could repeat ids.
    expect((await caughtAsync(() => build({ layout: 'leaf', clock: () => clock.now }))).code).toBe(
      'STATE_MISMATCH',
    );
  });

  it('keys the identity of a non-Vesta order by its fields, and leaves Vesta identities as they were', async () => {
    const clock = { now: T };
    const twitter = await build({ layout: 'twitter', clock: () => clock.now });
    const vesta = await createIdService<DefaultIdService>({
      machineId: 10,
      clock: () => clock.now,
    });
    const identityOf = (s: DefaultIdService): Record<string, unknown> =>
      (s as unknown as { identity: Record<string, unknown> }).identity;
    expect(identityOf(twitter).fields).toEqual(twitter.info().fields);
    expect(Object.keys(identityOf(vesta))).toEqual([
      'layout',
      'epochMs',
      'unitMs',
      'machine',
      'genMethod',
      'type',
      'version',
    ]);
    await twitter.close();
    await vesta.close();
  });
});

describe('a restart on a state dir of the first release', () => {
  /** The mark file the first release wrote: genMethod, type and machine id, no epoch or layout. */
  function firstReleaseMark(markMs: number): void {
    writeFileSync(
      join(dir, 'time-mark-g0-t0-m9.json'),
      JSON.stringify({
        markMs,
        mark: new Date(markMs).toISOString(),
        genMethod: 0,
        type: 0,
        machineId: 9,
      }),
    );
  }

  it('is refused with STATE_MISMATCH naming adoptLegacyMark when the option is not given', async () => {
    firstReleaseMark(T + 5000);
    const error = await caughtAsync(() => build({ epoch: EPOCH, clock: () => T }));
    expect(error.code).toBe('STATE_MISMATCH');
    expect(error.message).toContain('adoptLegacyMark');
  });

  it('adopts the mark under the stated epoch and layout: issues above it, and later starts need no option', async () => {
    const markMs = T + 3000;
    firstReleaseMark(markMs);
    const clock = { now: T };
    const adopting = build({
      epoch: EPOCH,
      clock: () => clock.now,
      maxStartupWaitMs: 10_000,
      adoptLegacyMark: { epoch: '2025-01-01', layout: {} },
    });
    // The start waits for the clock to pass the adopted mark.
    clock.now = markMs;
    const service = await adopting;
    const id = await service.genId();
    expect(service.expId(id).time).toBeGreaterThanOrEqual((markMs - EPOCH) / 1000);
    await service.close();
    expect(readdirSync(dir).some((name) => name === 'time-mark-g0-t0-m9.json')).toBe(false);
    clock.now += 60_000;
    const again = await build({ epoch: EPOCH, clock: () => clock.now });
    await again.close();
  });

  it('refuses an adoptLegacyMark without an epoch with INVALID_OPTIONS', async () => {
    const error = await caughtAsync(() =>
      build({ adoptLegacyMark: { layout: {} } as unknown as { epoch: string } }),
    );
    expect(error.code).toBe('INVALID_OPTIONS');
    expect(error.message).toContain('adoptLegacyMark.epoch');
  });
});
