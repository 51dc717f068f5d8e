import { bigint } from 'drizzle-orm/pg-core';
import type { EmbeddedIdService } from '@vesta/embedded';

/**
 * A Drizzle `bigint` column whose value, when an insert leaves it out, is a Vesta id
 * (`genIdSync`, once per row), read back as a JavaScript `bigint`: `mode: 'bigint'` makes Drizzle
 * turn the string node-postgres reads into a `bigint` (its default `mode: 'number'` rounds every
 * id above 2^53).
 *
 * @example
 * export const orders = pgTable('orders', {
 *   id: vestaBigintId('id', ids).primaryKey(),
 *   customer: text('customer').notNull(),
 * });
 */
export function vestaBigintId(name: string, ids: Pick<EmbeddedIdService, 'genIdSync'>) {
  return bigint(name, { mode: 'bigint' }).$defaultFn(() => ids.genIdSync());
}
