import { uuid } from 'drizzle-orm/pg-core';
import type { EmbeddedIdService } from '@vesta/embedded';

/**
 * A Drizzle `uuid` column whose value, when an insert leaves it out, is a Vesta UUIDv7
 * (`genUuidSync`, once per row).
 */
export function vestaUuid(name: string, ids: Pick<EmbeddedIdService, 'genUuidSync'>) {
  return uuid(name).$defaultFn(() => ids.genUuidSync());
}
