import { systemTimeSource } from '@vesta/core';
import type { BusinessNumbers } from './BusinessNumbers.js';
import { businessNumbersOptions, type BusinessNumbersOptions } from './businessNumbersOptions.js';
import { NumberTemplate } from './NumberTemplate.js';
import { periodOf } from './periodOf.js';
import { zonedDate } from './zonedDate.js';

/**
 * Business numbers from a template over a segment service: the period (day, month or year in
 * `timeZone`) is read from the clock once per call, becomes part of the store key
 * (`invoice#20261127`, created with `step` and `start` on first use), and fills the template's
 * date parts, so a number's date and sequence always belong to the same period.
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
