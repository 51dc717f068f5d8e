import {
  defineOptions,
  nonEmptyString,
  objectWith,
  timeSourceOption,
  wholeNumber,
} from '@vesta/core/kit';
import { z } from 'zod';
import type { SegmentService } from '../SegmentService.js';
import type { SegmentStore } from '../store/SegmentStore.js';
import { zoneFormat } from './zonedDate.js';

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
  timeZone: nonEmptyString
    .refine(
      (zone) => {
        try {
          zoneFormat(zone);
          return true;
        } catch {
          return false;
        }
      },
      { error: 'must be an IANA time zone such as Asia/Shanghai or UTC' },
    )
    .default('UTC'),
  /** The step of each period's key when it is created. @default 100 */
  step: wholeNumber(1, 2_147_483_647).default(100),
  /** The first sequence of each period. @default 1 */
  start: wholeNumber(0, Number.MAX_SAFE_INTEGER).default(1),
  /** Where the wall clock comes from (tests set a manual one). @default systemTimeSource */
  time: timeSourceOption.optional(),
});

/** Options of {@link createBusinessNumbers}, as callers give them: see {@link businessNumbersOptions} for each. */
export type BusinessNumbersOptions = Readonly<z.input<typeof businessNumbersOptions.schema>>;
