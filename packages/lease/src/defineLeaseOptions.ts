import type { z } from 'zod';
import { defineOptions, type OptionsDefinition } from '@vesta/core/kit';
import { leaseOptionsShape, type LeaseShape } from './LeaseOptions.js';

/**
 * The shape of a coordinator's options: its own (`Own`, which may restate a shared option with
 * the store's TSDoc or default) and the shared lease options but those it restates or leaves
 * out (`Without`). A named type, so that declaration files refer to the shared options' TSDoc.
 */
export type LeaseProviderShape<
  Own extends z.ZodRawShape,
  Without extends keyof LeaseShape = never,
> = Own & Omit<LeaseShape, keyof Own | Without>;

/**
 * Declares a coordinator's options with {@link defineOptions}: its own options first, then the
 * shared {@link leaseOptionsShape} in its order, an option of `own` that restates a shared one
 * taking its place, those of `without` left out (a store without a lease cache leaves out
 * `fallbackToCache`). The rules between options follow in `resolveLeaseOptions`.
 *
 * @example
 * const fooMachineIdOptions = defineLeaseOptions('Foo', {
 *   url: coordinatorUrlOption(['foo'], 'foo://host:1234'),
 *   fenceAfterMs: leaseOptionsShape.fenceAfterMs, // restated for its Foo-specific TSDoc
 * });
 */
export function defineLeaseOptions<
  Own extends z.ZodRawShape,
  Without extends keyof LeaseShape = never,
>(
  store: string,
  own: Own,
  without: readonly Without[] = [],
): OptionsDefinition<z.ZodObject<LeaseProviderShape<Own, Without>, z.core.$strict>> {
  const left: readonly string[] = without;
  const shape: Record<string, z.core.$ZodType> = {};
  for (const [name, option] of Object.entries(own)) {
    if (!(name in leaseOptionsShape)) shape[name] = option;
  }
  for (const [name, option] of Object.entries(leaseOptionsShape)) {
    if (!left.includes(name)) shape[name] = own[name] ?? option;
  }
  // Built key by key (to keep the order), so typed by what the loops build.
  return defineOptions(store, shape) as unknown as OptionsDefinition<
    z.ZodObject<LeaseProviderShape<Own, Without>, z.core.$strict>
  >;
}
