import type { z } from 'zod';
import { defineOptions, type OptionsDefinition } from '@vesta/core/kit';
import { wholeNumber } from '@vesta/core/kit';

/**
 * The options of a coordinator's admin, declared with {@link defineOptions}: its connection
 * (the provider's own declarations, picked from its schema) and `timeoutMs`, the deadline of the
 * connection and of each request (1 to 600000 ms, 5000 by default; see `CoordinatorAdminOptions`).
 */
export function defineAdminOptions<S extends z.ZodRawShape>(
  store: string,
  connection: S,
): OptionsDefinition<z.ZodObject<S & { timeoutMs: z.ZodDefault<z.ZodNumber> }, z.core.$strict>> {
  return defineOptions(`${store} admin`, {
    ...connection,
    timeoutMs: wholeNumber(1, 600_000).default(5_000),
  });
}
