import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { createIdService } from '../service/createIdService.js';
import type { DefaultIdService } from '../service/DefaultIdService.js';
import { VestaError } from '../errors/VestaError.js';

/** Outcomes of calls, by index: the id, or the error code. */
async function settle(calls: Promise<bigint>[]): Promise<(bigint | string)[]> {
  const results = await Promise.allSettled(calls);
  return results.map((result) =>
    result.status === 'fulfilled'
      ? result.value
      : VestaError.is(result.reason)
        ? result.reason.code
        : String(result.reason),
  );
}

describe('demand beyond the layout capacity', () => {
  it.each(['sync', 'lock', 'atomic'] as const)(
    'answers OVERLOADED, never CLOCK_STALLED, on a clock that keeps moving, and serves the waiters in order (%s)',
    async (populator) => {
      // Two ids a millisecond: 6,000 calls need 3 s, beyond the wait bound of about 2 s.
      const service = await createIdService<DefaultIdService>({
        machineId: 21,
        populator,
        type: 'min-granularity',
        layout: { seqBits: 1, versionBits: 10 },
        rollbackToleranceMs: 0,
      });
      const outcomes = await settle(Array.from({ length: 6000 }, () => service.genId()));
      await service.close();
      const ids = outcomes.filter((o): o is bigint => typeof o === 'bigint');
      const codes = outcomes.filter((o): o is string => typeof o === 'string');
      expect(new Set(codes)).toEqual(new Set(['OVERLOADED']));
      expect(ids.length).toBeGreaterThan(100);
      expect(new Set(ids).size).toBe(ids.length);
      // First come, first served: ids rise with the order of the calls.
      for (let i = 1; i < ids.length; i++) expect(ids[i]).toBeGreaterThan(ids[i - 1] as bigint);
    },
  );

  it('refuses calls beyond maxWaiting at once with OVERLOADED and a retry hint, and keeps CLOCK_STALLED for a stopped clock', async () => {
    const now = Date.UTC(2026, 0, 1);
    const service = await createIdService<DefaultIdService>({
      machineId: 22,
      type: 'min-granularity',
      layout: { seqBits: 1, versionBits: 10 },
      rollbackToleranceMs: 0,
      maxWaiting: 2,
      clock: () => now,
    });
    await service.genIds(2); // the unit is used up, and the clock never moves on
    const calls = Array.from({ length: 5 }, () => service.genId());
    const refused = await Promise.allSettled(calls.slice(2));
    for (const result of refused) {
      expect(result).toMatchObject({
        status: 'rejected',
        reason: { code: 'OVERLOADED', details: { retryAfterMs: 1 } },
      });
    }
    expect(await settle(calls.slice(0, 2))).toEqual(['CLOCK_STALLED', 'CLOCK_STALLED']);
    await service.close();
  });
});

describe('closing a service while calls wait for the next unit', () => {
  it.each(['sync', 'lock'] as const)(
    'fails every waiting call with SERVICE_CLOSED at once (%s)',
    async (populator) => {
      const now = Date.UTC(2026, 0, 1);
      const service = await createIdService<DefaultIdService>({
        machineId: 23,
        populator,
        layout: { seqBits: 1 },
        clock: () => now,
      });
      await service.genIds(2); // the unit is used up, and the clock never moves on
      const waiting = settle(Array.from({ length: 5 }, () => service.genId()));
      await service.close();
      expect(await waiting).toEqual(Array.from({ length: 5 }, () => 'SERVICE_CLOSED'));
    },
  );
});
