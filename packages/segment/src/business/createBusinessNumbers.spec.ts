import { VestaError } from '@vesta/core';
import { codeOf, codeOfAsync, ManualTimeSource } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import { createSegmentService } from '../createSegmentService.js';
import { MemorySegmentStore } from '../store/MemorySegmentStore.js';
import { createBusinessNumbers } from './createBusinessNumbers.js';
import type { BusinessNumbersOptions } from './createBusinessNumbers.js';
import { NumberTemplate } from './NumberTemplate.js';

function numbers(
  wallMs: number,
  options: Omit<BusinessNumbersOptions, 'service' | 'store' | 'key' | 'time'>,
) {
  const time = new ManualTimeSource(wallMs);
  const store = new MemorySegmentStore();
  const service = createSegmentService({ store, time });
  const business = createBusinessNumbers({ service, store, key: 'invoice', time, ...options });
  return { time, store, service, business };
}

describe('createBusinessNumbers', () => {
  it('starts the daily sequence over at midnight of the stated zone, the period in the store key', async () => {
    // 23:59:59 in Shanghai (UTC+8) is 15:59:59 UTC.
    const { time, store, service, business } = numbers(Date.UTC(2026, 10, 27, 15, 59, 59), {
      template: 'INV-{yyyyMMdd}-{seq:6}',
      reset: 'day',
      timeZone: 'Asia/Shanghai',
    });
    expect(await business.next()).toBe('INV-20261127-000001');
    expect(await business.nextMany(2)).toEqual(['INV-20261127-000002', 'INV-20261127-000003']);
    await time.advance(999);
    expect(await business.next()).toBe('INV-20261127-000004');
    await time.advance(1);
    expect(await business.next()).toBe('INV-20261128-000001');
    expect((await store.keys()).map((k) => k.key)).toEqual([
      'invoice#20261127',
      'invoice#20261128',
    ]);
    await service.close();
  });

  it('keeps the day of UTC apart from the day of the zone', async () => {
    const { service, business } = numbers(Date.UTC(2026, 10, 27, 16, 0, 0), {
      template: '{yyyy-MM-dd}/{seq}',
      timeZone: 'UTC',
    });
    expect(await business.next()).toBe('2026-11-27/1');
    await service.close();
  });

  it('starts a monthly sequence over on the first of the month', async () => {
    const { time, service, business } = numbers(Date.UTC(2026, 10, 30, 23, 59, 59, 500), {
      template: 'PO{yy}{MM}{seq:4}X',
      reset: 'month',
      start: 7,
    });
    expect(await business.next()).toBe('PO26110007X');
    await time.advance(500);
    expect(await business.next()).toBe('PO26120007X');
    await service.close();
  });

  it('answers SEGMENT_SEQUENCE_OVERFLOW once the sequence outgrows its width, and never wraps', async () => {
    const { service, business } = numbers(Date.UTC(2026, 0, 1), {
      template: 'A{yyyy}-{seq:2}',
      reset: 'year',
      start: 98,
    });
    expect(await business.nextMany(2)).toEqual(['A2026-98', 'A2026-99']);
    const error = await business.next().catch((e: unknown) => e);
    expect(VestaError.is(error, 'SEGMENT_SEQUENCE_OVERFLOW')).toBe(true);
    expect(await codeOfAsync(() => business.next())).toBe('SEGMENT_SEQUENCE_OVERFLOW');
    await service.close();
  });

  it.each([
    ['INV-{yyyyMMdd}', 'day'],
    ['{seq}{seq:3}{yyyyMMdd}', 'day'],
    ['{yyyyMMdd}-{seq:0}', 'day'],
    ['{yyyyMMdd}-{seq:20}', 'day'],
    ['{yyyyMMdd}-{sequence}', 'day'],
    ['{yyyyMM}-{seq:4}', 'day'],
    ['{MMdd}-{seq:4}', 'day'],
    ['{yyyy}-{seq:4}', 'month'],
    ['{yyyyMMdd}-{seq:4', 'day'],
    ['{yyyyMMdd}-seq:4}', 'day'],
  ] as const)('refuses the template %s with a %s reset (INVALID_OPTIONS)', (template, reset) => {
    expect(codeOf(() => new NumberTemplate(template, reset))).toBe('INVALID_OPTIONS');
  });

  it('refuses a time zone the runtime does not know', () => {
    const store = new MemorySegmentStore();
    const service = createSegmentService({ store });
    expect(
      codeOf(() =>
        createBusinessNumbers({
          service,
          store,
          key: 'invoice',
          template: '{yyyyMMdd}{seq:4}',
          timeZone: 'Mars/Olympus_Mons',
        }),
      ),
    ).toBe('INVALID_OPTIONS');
  });
});
