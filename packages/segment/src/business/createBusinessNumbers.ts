import { systemTimeSource } from '@vesta/core';
import { businessNumbersOptions, type BusinessNumbersOptions } from './businessNumbersOptions.js';
import { NumberTemplate, type NumberReset } from './NumberTemplate.js';
import { zonedDate, type ZonedDate } from './zonedDate.js';

/** Formatted business numbers of one key. */
export interface BusinessNumbers {
  /** The next number, e.g. `INV-20261127-000042`; SEGMENT_SEQUENCE_OVERFLOW once it outgrows `{seq:N}`. */
  next(): Promise<string>;
  /** The next `n` numbers, in order, all of one period. */
  nextMany(n: number): Promise<string[]>;
}

/** The period as it joins the store key: `20261127`, `202611`, `2026` or ''. */
function periodOf(reset: NumberReset, date: ZonedDate): string {
  if (reset === 'day') return `${date.yyyy}${date.MM}${date.dd}`;
  if (reset === 'month') return `${date.yyyy}${date.MM}`;
  if (reset === 'year') return date.yyyy;
  return '';
}

/**
 * Business numbers from a template over a segment service. The period (in `timeZone`) is read
 * once per call, joins the store key (`invoice#20261127`, created on first use) and fills the
 * template's date parts, so a number's date and sequence belong to the same period.
 *
 * @example
 * const invoices = createBusinessNumbers({
 *   service, store, key: 'invoice', template: 'INV-{yyyyMMdd}-{seq:6}', timeZone: 'Asia/Shanghai',
 * });
 * await invoices.next(); // 'INV-20261127-000001'
 */
export function createBusinessNumbers(options: BusinessNumbersOptions): BusinessNumbers {
  const o = businessNumbersOptions.resolve(options);
  const template = new NumberTemplate(o.template, o.reset);
  const time = o.time ?? systemTimeSource;
  const created = new Set<string>();

  const take = async (n: number): Promise<string[]> => {
    const date = zonedDate(time.now(), o.timeZone);
    const period = periodOf(o.reset, date);
    const storeKey = period === '' ? o.key : `${o.key}#${period}`;
    if (!created.has(storeKey)) {
      await o.store.createKey(storeKey, { step: o.step, start: BigInt(o.start) });
      created.add(storeKey);
    }
    const seqs = await o.service.segments(storeKey, n);
    return seqs.map((seq) => template.format(seq, date));
  };

  return Object.freeze({
    next: async () => (await take(1))[0] as string,
    nextMany: take,
  });
}
