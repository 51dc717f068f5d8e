import type { z } from 'zod';
import { defineOptions, wholeNumber, type OptionsDefinition } from '@vesta/core/kit';

/** What every coordinator's admin options have besides the connection. */
const adminOptionsShape = {
  /** Deadline of the connection and of each request, 1 to 600000. @default 5000 */
  timeoutMs: wholeNumber(1, 600_000).default(5_000),
};

/** What every coordinator's admin options have besides the connection (see {@link defineAdminOptions}). */
export type CoordinatorAdminOptions = Readonly<z.input<z.ZodObject<typeof adminOptionsShape>>>;

/** The options an admin declared with {@link defineAdminOptions} takes, as callers give them. */
export type AdminOptionsOf<D extends OptionsDefinition<z.ZodType>> = Readonly<z.input<D['schema']>>;

/**
 * The options of a coordinator's admin, declared with {@link defineOptions}: its connection,
 * the options `keys` of its provider's schema `provider` (their declarations, TSDoc and defaults
 * with them), and `timeoutMs`, the deadline of the connection and of each request (1 to 600000
 * ms, 5000 by default).
 *
 * @example
 * const fooAdminOptions = defineAdminOptions('Foo', fooMachineIdOptions.schema, ['url', 'root']);
 * export type FooAdminOptions = AdminOptionsOf<typeof fooAdminOptions>;
 */
export function defineAdminOptions<S extends z.ZodRawShape, K extends keyof S & string>(
  store: string,
  provider: z.ZodObject<S>,
  keys: readonly K[],
): OptionsDefinition<z.ZodObject<Pick<S, K> & typeof adminOptionsShape, z.core.$strict>> {
  const connection = {} as Pick<S, K>;
  for (const key of keys) connection[key] = provider.shape[key];
  return defineOptions(`${store} admin`, { ...connection, ...adminOptionsShape });
}
