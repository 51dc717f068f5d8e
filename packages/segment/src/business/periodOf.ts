import type { NumberReset } from './NumberTemplate.js';
import type { ZonedDate } from './zonedDate.js';

/** The period a date falls in, as it joins the store key: `20261127`, `202611`, `2026` or ''. */
export function periodOf(reset: NumberReset, date: ZonedDate): string {
  if (reset === 'day') return `${date.yyyy}${date.MM}${date.dd}`;
  if (reset === 'month') return `${date.yyyy}${date.MM}`;
  if (reset === 'year') return date.yyyy;
  return '';
}
