import type { z } from 'zod';
import { defineOptions, wholeNumber, type OptionsDefinition } from '@vesta/core/kit';

/** What every coordinator's admin options have besides the connection. */
const adminOptionsShape = {
  /** Deadline of the connection and of each request, 1 to 600000. @default 5000 */
  timeoutMs: wholeNumber(1, 600_000).default(5_000),
};

/** What every coordinator's admin options have besides the connection (see {@link defineAdminOptions}). */
export type CoordinatorAdminOptions = Readonly<z.input<z.ZodObject<typeof adminOptionsShape>>>;

/**
 * The options of a coordinator's admin, declared with {@link defineOptions}: its connection
 * (the provider's own declarations, picked from its schema, TSDoc and defaults with them) and
 * `timeoutMs`, the deadline of the connection and of each request (1 to 600000 ms, 5000 by
 * default).
 */
export function defineAdminOptions<S extends z.ZodRawShape>(
  store: string,
  connection: S,
): OptionsDefinition<z.ZodObject<S & typeof adminOptionsShape, z.core.$strict>> {
  return defineOptions(`${store} admin`, { ...connection, ...adminOptionsShape });
}
