import { z } from 'zod';
import { VestaError } from '../errors/VestaError.js';
import { defineOptions } from '../options/defineOptions.js';
import { checkedLater, typedAs, wholeNumber } from '../options/optionTypes.js';
import type { IdServiceOptions } from '../service/IdServiceOptions.js';

/** The name of the instance's own generator. */
export const DEFAULT_GENERATOR = 'default';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Checks a generator name, safe in a URL path, a metric label and a log line (INVALID_ARGUMENT). */
export function checkGeneratorName(name: unknown): string {
  if (typeof name !== 'string' || !NAME.test(name)) {
    const shown = typeof name === 'string' ? JSON.stringify(name.slice(0, 80)) : String(name);
    throw new VestaError(
      'INVALID_ARGUMENT',
      `a generator name is 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit; got ${shown}`,
      { details: { field: 'name' } },
    );
  }
  return name;
}

/** A name's own id shape: empty shares the instance's generator; else its own service. */
const namedGeneratorShape = z.strictObject({
  /** This name's machine id (required with any other field). */
  machineId: checkedLater<number>().optional(),
  /** This name's type. @default the instance's */
  type: checkedLater<NonNullable<IdServiceOptions['type']>>().optional(),
  /** This name's layout. @default the instance's */
  layout: checkedLater<NonNullable<IdServiceOptions['layout']>>().optional(),
  /** This name's epoch. @default the instance's */
  epoch: checkedLater<NonNullable<IdServiceOptions['epoch']>>().optional(),
});

export type NamedGeneratorOptions = Readonly<z.input<typeof namedGeneratorShape>>;

export const idGeneratorsOptions = defineOptions('generators', {
  /** The names known at start: a list, or a map to each name's own shape. @default [] */
  names: typedAs<readonly string[] | Readonly<Record<string, NamedGeneratorOptions>>>(
    z.union([z.array(z.string()), z.record(z.string(), namedGeneratorShape)]),
    'must be a list of names or a map of names to their options',
  ).default([]),
  /** Create an unknown name on first use (sharing the instance's generator) instead of UNKNOWN_GENERATOR. @default false */
  onDemand: z.boolean({ error: 'must be true or false' }).default(false),
  /** The most names an instance holds, `default` and those created on demand included. @default 1000 */
  maxNames: wholeNumber(1, 1_000_000).default(1000),
});

/** The named generators of an instance, as callers give them: see {@link idGeneratorsOptions}. */
export type IdGeneratorsOptions = Readonly<z.input<typeof idGeneratorsOptions.schema>>;

const invalid = (message: string, cause?: unknown): VestaError =>
  new VestaError('INVALID_OPTIONS', message, { cause });

/** Validates the generators' options: names well formed, own shapes with their own machine id. */
export function resolveIdGeneratorsOptions(options: IdGeneratorsOptions) {
  const o = idGeneratorsOptions.resolve(options);
  const entries: [string, NamedGeneratorOptions][] = Array.isArray(o.names)
    ? o.names.map((name) => [name, {}])
    : Object.entries(o.names);
  const names: Record<string, NamedGeneratorOptions> = {};
  for (const [name, own] of entries) {
    try {
      checkGeneratorName(name);
    } catch (cause) {
      throw invalid(`generators.names: ${(cause as Error).message}`, cause);
    }
    if (name === 'default' || Object.hasOwn(names, name)) {
      throw invalid(`generators.names: ${name} is given twice (default always exists)`);
    }
    const defined = Object.fromEntries(
      Object.entries(own).filter(([, value]) => value !== undefined),
    ) as NamedGeneratorOptions;
    if (Object.keys(defined).length > 0 && defined.machineId === undefined) {
      throw invalid(
        `generators.names.${name}: a name with its own layout, type or epoch needs its own machineId`,
      );
    }
    names[name] = Object.freeze(defined);
  }
  if (entries.length + 1 > o.maxNames) {
    throw invalid(`generators: ${entries.length + 1} names exceed maxNames ${o.maxNames}`);
  }
  return Object.freeze({ ...o, names: Object.freeze(names) });
}
