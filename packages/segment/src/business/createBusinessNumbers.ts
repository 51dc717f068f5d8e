import { systemTimeSource } from '@vesta/core';
import {
  defineOptions,
  nonEmptyString,
  objectWith,
  timeSourceOption,
  wholeNumber,
} from '@vesta/core/kit';
import { z } from 'zod';
import type { SegmentService } from '../createSegmentService.js';
import type { SegmentStore } from '../store/SegmentStore.js';
import { NumberTemplate, type NumberReset, type ZonedDate } from './NumberTemplate.js';

const formats = new Map<string, Intl.DateTimeFormat>();

/** RangeError for a zone the runtime does not know. */
function zoneFormat(timeZone: string): Intl.DateTimeFormat {
  const day = { year: 'numeric', month: '2-digit', day: '2-digit' } as const;
  const format = formats.get(timeZone) ?? new Intl.DateTimeFormat('en-US', { timeZone, ...day });
  formats.set(timeZone, format);
  return format;
}

const ZONE = 'must be an IANA time zone such as Asia/Shanghai or UTC';
const knownZone = (zone: string): boolean => {
  try {
    return zoneFormat(zone) !== undefined;
  } catch {
    return false;
  }
};

/** The date `ms` (Unix ms) falls on in `timeZone` (an IANA name, e.g. `Asia/Shanghai`). */
function zonedDate(ms: number, timeZone: string): ZonedDate {
  const parts = zoneFormat(timeZone).formatToParts(ms);
  const part = (type: string): string => parts.find((p) => p.type === type)?.value ?? '';
  return { yyyy: part('year').padStart(4, '0'), MM: part('month'), dd: part('day') };
}

/** The one declaration of {@link BusinessNumbersOptions}. */
export const businessNumbersOptions = defineOptions('business numbers', {
  /** The segment service the sequences come from. */
  service: objectWith<SegmentService>(
    'a SegmentService (createSegmentService)',
    'segment',
    'segments',
    'close',
  ),
  /** The store of that service: each period's key is created in it on first use. */
  store: objectWith<SegmentStore>('a SegmentStore', 'createKey'),
  /** The business key; each period's store key is `<key>#<period>` (`invoice#20261127`). */
  key: nonEmptyString,
  /** The template, e.g. `INV-{yyyyMMdd}-{seq:6}` (see NumberTemplate). */
  template: nonEmptyString,
  /** When the sequence starts over: `day`, `month`, `year` or `never`. @default 'day' */
  reset: z
    .enum(['day', 'month', 'year', 'never'], { error: "must be 'day', 'month', 'year' or 'never'" })
    .default('day'),
  /** The IANA time zone whose midnight starts a period, e.g. `Asia/Shanghai`. @default 'UTC' */
  timeZone: nonEmptyString.refine(knownZone, { error: ZONE }).default('UTC'),
  /** The step of each period's key when it is created. @default 100 */
  step: wholeNumber(1, 2_147_483_647).default(100),
  /** The first sequence of each period. @default 1 */
  start: wholeNumber(0, Number.MAX_SAFE_INTEGER).default(1),
  /** Where the wall clock comes from (tests set a manual one). @default systemTimeSource */
  time: timeSourceOption.optional(),
});

/** Options of {@link createBusinessNumbers}, as callers give them: see {@link businessNumbersOptions} for each. */
export type BusinessNumbersOptions = Readonly<z.input<typeof businessNumbersOptions.schema>>;

/** Formatted business numbers of one key. */
export interface BusinessNumbers {
  /** The next number, e.g. `INV-20261127-000042`; SEGMENT_SEQUENCE_OVERFLOW once it outgrows `{seq:N}`. */
  next(): Promise<string>;
  /** The next `n` numbers, in order, all of one period. */
  nextMany(n: number): Promise<string[]>;
}

/** The period as it joins the store key: `20261127`, `202611`, `2026` or ''. */
const periodOf = (reset: NumberReset, { yyyy, MM, dd }: ZonedDate): string =>
  ({ day: `${yyyy}${MM}${dd}`, month: `${yyyy}${MM}`, year: yyyy, never: '' })[reset];

/**
 * Business numbers from a template over a segment service. The period (in `timeZone`) is read
 * once per call, joins the store key (`invoice#20261127`, created on first use) and fills the
 * template's date parts, so a number's date and sequence belong to the same period.
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

  return Object.freeze({ next: async () => (await take(1))[0] as string, nextMany: take });
}
