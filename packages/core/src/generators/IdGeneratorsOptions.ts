import { z } from 'zod';
import { VestaError } from '../errors/VestaError.js';
import { defineOptions } from '../options/defineOptions.js';
import { wholeNumber } from '../options/optionTypes.js';
import type { IdServiceOptions } from '../service/IdServiceOptions.js';
import { checkGeneratorName } from './checkGeneratorName.js';

/**
 * A name's own id shape. Empty (the usual case): the name issues from the instance's own
 * generator. With a layout, type or epoch of its own, the name gets its own service, which
 * needs its own `machineId` (two services on one machine id are MACHINE_ID_IN_USE).
 */
export interface NamedGeneratorOptions {
  /** This name's machine id (required with any other field). */
  readonly machineId?: number;
  /** This name's type. @default the instance's */
  readonly type?: NonNullable<IdServiceOptions['type']>;
  /** This name's layout. @default the instance's */
  readonly layout?: NonNullable<IdServiceOptions['layout']>;
  /** This name's epoch. @default the instance's */
  readonly epoch?: NonNullable<IdServiceOptions['epoch']>;
}

/** The named generators of an instance. */
export interface IdGeneratorsOptions {
  /**
   * The names known at start: a list (every name shares the instance's generator) or a map to
   * each name's own shape. The name `default` always exists: the instance's own generator.
   * @default []
   */
  readonly names?: readonly string[] | Readonly<Record<string, NamedGeneratorOptions>>;
  /** Create an unknown name on first use (sharing the instance's generator) instead of UNKNOWN_GENERATOR. @default false */
  readonly onDemand?: boolean;
  /** The most names an instance holds, `default` and those created on demand included. @default 1000 */
  readonly maxNames?: number;
}

/** Options after validation. */
export interface ResolvedIdGeneratorsOptions {
  readonly names: Readonly<Record<string, NamedGeneratorOptions>>;
  readonly onDemand: boolean;
  readonly maxNames: number;
}

const named = z.strictObject({
  machineId: z.unknown().optional(),
  type: z.unknown().optional(),
  layout: z.unknown().optional(),
  epoch: z.unknown().optional(),
});

/** The declaration of {@link IdGeneratorsOptions}. */
export const idGeneratorsOptions = defineOptions('generators', {
  names: z
    .union([z.array(z.string()), z.record(z.string(), named)], {
      error: 'must be a list of names or a map of names to their options',
    })
    .default([]),
  onDemand: z.boolean({ error: 'must be true or false' }).default(false),
  maxNames: wholeNumber(1, 1_000_000).default(1000),
});

/** Validates the generators' options: names well formed, own shapes with their own machine id. */
export function resolveIdGeneratorsOptions(
  options: IdGeneratorsOptions,
): ResolvedIdGeneratorsOptions {
  const o = idGeneratorsOptions.resolve(options);
  const entries: [string, NamedGeneratorOptions][] = Array.isArray(o.names)
    ? o.names.map((name) => [name, {}])
    : Object.entries(o.names as Record<string, NamedGeneratorOptions>);
  const names: Record<string, NamedGeneratorOptions> = {};
  for (const [name, own] of entries) {
    try {
      checkGeneratorName(name);
    } catch (cause) {
      throw new VestaError('INVALID_OPTIONS', `generators.names: ${(cause as Error).message}`, {
        cause,
      });
    }
    if (name === 'default' || Object.hasOwn(names, name)) {
      throw new VestaError(
        'INVALID_OPTIONS',
        `generators.names: ${name} is given twice (default always exists)`,
      );
    }
    const defined = Object.fromEntries(
      Object.entries(own).filter(([, value]) => value !== undefined),
    ) as NamedGeneratorOptions;
    if (Object.keys(defined).length > 0 && defined.machineId === undefined) {
      throw new VestaError(
        'INVALID_OPTIONS',
        `generators.names.${name}: a name with its own layout, type or epoch needs its own machineId`,
      );
    }
    names[name] = Object.freeze(defined);
  }
  if (entries.length + 1 > o.maxNames) {
    throw new VestaError(
      'INVALID_OPTIONS',
      `generators: ${entries.length + 1} names exceed maxNames ${o.maxNames}`,
    );
  }
  return Object.freeze({ names: Object.freeze(names), onDemand: o.onDemand, maxNames: o.maxNames });
}
