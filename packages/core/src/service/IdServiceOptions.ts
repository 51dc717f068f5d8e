import type { ContainerModule } from 'inversify';
import { z } from 'zod';
import { invalidOptions } from '../errors/VestaError.js';
import { ID_META_WIDTH_KEYS, type IdMetaWidths } from '../layout/IdMeta.js';
import { parseIdType, type IdType, type IdTypeName } from '../layout/IdType.js';
import { EMBEDDED_MACHINE_ID_RANGE } from '../layout/machineRanges.js';
import { resolveLayoutOption, type LayoutOption } from '../layout/layoutPresets.js';
import { StaticMachineIdProvider } from '../machine-id/MachineIdProvider.js';
import type { MachineIdProvider } from '../machine-id/MachineIdProvider.js';
import { DEFAULT_MAX_WAITING } from '../populator/BaseIdPopulator.js';
import type { SharedIdState } from '../populator/SharedIdState.js';
import { consoleLogger, type Logger } from '../logging/Logger.js';
import { systemTimeSource, timeSourceWithClock, type Clock } from '../time/TimeSource.js';
import { parseEpoch } from '../time/parseEpoch.js';
import { defineOptions } from '../options/defineOptions.js';
import {
  checkedLater,
  functionOption,
  nonEmptyString,
  objectWith,
} from '../options/optionTypes.js';
import { parsedOption, timeSourceOption, typedAs, wholeNumber } from '../options/optionTypes.js';
import type { IdServiceObserver } from './IdService.js';

const widths = Object.fromEntries(
  ID_META_WIDTH_KEYS.map((key) => [key, checkedLater<number>().optional()]),
) as Record<keyof IdMetaWidths, z.ZodOptional<z.ZodType<number, number>>>;

/** `adoptLegacyMark`: the first release's options; its widths are checked per adopted file. */
const adoptLegacyMarkOption = z.strictObject(
  {
    /** The first release's epoch, read like `epoch`; required (the mark files do not record it). */
    epoch: parsedOption((value: number | Date | string) => {
      if (value === undefined)
        throw invalidOptions('adoptLegacyMark.epoch is required: the mark files do not record it');
      return parseEpoch(value, 'adoptLegacyMark.epoch');
    }),
    /** The first release's field widths (its `layout` option). @default the file's type's standard layout */
    layout: z.strictObject(widths, { error: 'must be an object of field widths' }).default({}),
    /** The first release's version. @default 0 */
    version: wholeNumber(0, 2 ** 48 - 1).default(0),
  },
  { error: 'must be { epoch, layout?, version? }' },
);

/** What the `adoptLegacyMark` option takes: see {@link adoptLegacyMarkOption} for each. */
export type LegacyMarkOption = Readonly<z.input<typeof adoptLegacyMarkOption>>;
/** What an operator states about the first release's mark files (which lack these). */
export type LegacyMarkAdoption = Readonly<z.output<typeof adoptLegacyMarkOption>>;

/** Widths checked by the layout itself (INVALID_LAYOUT); unknown keys are an options mistake. */
const layoutShape = z.union([
  z.string(),
  z.looseObject({ fields: z.array(z.unknown()) }),
  z.strictObject(widths),
]);

/** The one declaration of an id service's options (rules involving bound parts: on the composition). */
export const idServiceOptions = defineOptions('id service', {
  /** Exactly one of `machineId`, `machineIdProvider` and a module's `TOKENS.MachineIdProvider`. */
  machineId: checkedLater<number>().optional().describe('machine id of this instance'),
  /** Where the machine id comes from (IP list, IPv4 low bits, ZooKeeper, your own). */
  machineIdProvider: objectWith<MachineIdProvider>(
    'a MachineIdProvider (acquire())',
    'acquire',
  ).optional(),
  type: checkedLater<IdType | IdTypeName>()
    .optional()
    .describe(
      "id type: 'max-peak' (0, seconds) or 'min-granularity' (1, ms) (default: max-peak, or the layout preset's)",
    ),
  /** 0 embedded, 1 central server, 2 REST (`TOKENS.GenMethod`; a mode rebinds it). @default 0 */
  genMethod: wholeNumber(0, 3).default(0),
  /** The version bit: 0 keeps ids positive in signed 64-bit columns. @default 0 */
  version: wholeNumber(0, 2 ** 48 - 1).default(0),
  epoch: parsedOption((value: number | Date | string) => parseEpoch(value))
    .optional()
    .describe(
      "epoch of the time field: ISO-8601 date-time with Z or an offset, a date (UTC), or Unix ms digits (default 2025-01-01, or the layout preset's)",
    ),
  /** 'sync' (fastest), 'lock' (async calls only, through a mutex), 'atomic' (worker threads). @default 'sync' */
  populator: z
    .enum(['sync', 'lock', 'atomic'], { error: "must be 'sync', 'lock' or 'atomic'" })
    .default('sync'),
  /** The wall clock in Unix ms; monotonic time and timers stay the system's. Give `clock` or `time`, not both. @default Date.now */
  clock: functionOption<Clock>('a function returning Unix ms').optional(),
  /** Where the wall clock, monotonic time and timers come from (tests advance a manual one). @default systemTimeSource */
  time: timeSourceOption.optional(),
  /** A step back of the clock up to this many ms is absorbed; beyond it CLOCK_MOVED_BACKWARDS. @default 1000 */
  rollbackToleranceMs: wholeNumber(0, 3_600_000).default(1000),
  /** Where the time mark survives restarts (set it where the clock can step back while down). @default memory only */
  stateDir: nonEmptyString.optional(),
  markWindowMs: wholeNumber(1, 3_600_000)
    .default(3000)
    .describe(
      'how far ahead of use the time mark is written; a crash costs at most this much wait at restart',
    ),
  /** @example { epoch: '2025-01-01', layout: { seqBits: 19, timeBits: 31 } } */
  adoptLegacyMark: adoptLegacyMarkOption
    .optional()
    .describe(
      "adopt the state dir's time-mark files of the first release (no epoch recorded: STATE_MISMATCH without this), stating the epoch they were written under (read like epoch); each is then rewritten in the current format",
    ),
  /** At start-up, wait at most this long for the clock to pass the mark; else CLOCK_BEHIND_HIGH_WATER_MARK. @default 10000 */
  maxStartupWaitMs: wholeNumber(0, 3_600_000).default(10_000),
  /** The largest count of one genIds call. @default 100000 */
  maxBatch: wholeNumber(1, 10_000_000).default(100_000),
  /** Calls waiting at once for the next time unit (first come, first served); more are OVERLOADED. @default 10000 */
  maxWaiting: wholeNumber(0, 1_000_000).default(DEFAULT_MAX_WAITING),
  /** Time borrowing: a used-up unit's callers get the next units while they start at most this far ahead of the clock. @default 0 */
  maxLeadMs: wholeNumber(0, 3_600_000).default(0),
  /** The host-wide machine-id lock's scope: other scopes are as other hosts. @default env VESTA_HOST_LOCK_SCOPE, else 'default' */
  hostLockScope: nonEmptyString.optional(),
  layout: typedAs<LayoutOption>(
    layoutShape,
    'must be a preset name, a layout spec ({ fields, unitMs, type }) or an object of field widths',
  )
    .optional()
    .describe(
      "id layout: a preset (vesta-max-peak, vesta-min-granularity, twitter, leaf, nacos, uid-generator, sonyflake, discord, js-safe), uid-generator:T,W,S, or a JSON layout spec (default: the type's layout)",
    ),
  /** `TOKENS.MachineIdRange`; a mode's module rebinds it. @default 0-923 (embedded) */
  machineIdRange: z
    .strictObject({ min: wholeNumber(0, 2 ** 48 - 1), max: wholeNumber(0, 2 ** 48 - 1) })
    .default(EMBEDDED_MACHINE_ID_RANGE),
  /** With populator 'atomic': the state shared with worker threads. @default a new one */
  sharedState: z
    .custom<SharedIdState>(
      (v) => (v as SharedIdState | null)?.buffer instanceof SharedArrayBuffer,
      {
        error: 'must be a SharedIdState over a SharedArrayBuffer (createSharedIdState)',
      },
    )
    .optional(),
  /** Where warnings go (a pino logger fits). @default stderr for warnings and errors */
  logger: objectWith<Logger>('a Logger (info, warn, error)', 'warn', 'error').default(
    consoleLogger,
  ),
  /** Metric hooks. @default none */
  observer: objectWith<IdServiceObserver>('an object of hooks').default({}),
  /** Inversify modules loaded after the defaults: rebind any token of `TOKENS` there. @default [] */
  modules: z
    .custom<readonly ContainerModule[]>(
      (v) => Array.isArray(v) && v.every((m) => typeof m === 'object' && m !== null),
      { error: 'must be an array of ContainerModules' },
    )
    .default([]),
});

/** Options of an id service, as callers give them: see {@link idServiceOptions} for each. */
export type IdServiceOptions = Readonly<z.input<typeof idServiceOptions.schema>>;

/** Options after validation: every default filled, frozen (what {@link resolveIdServiceOptions} returns). */
export type ResolvedIdServiceOptions = ReturnType<typeof resolveIdServiceOptions>;

/** Validates options once, fills defaults and freezes them. Throws INVALID_OPTIONS (or the layout's code). */
export function resolveIdServiceOptions(options: IdServiceOptions) {
  const { machineId, machineIdProvider, epoch, type, ...o } = idServiceOptions.resolve(options);
  let typeOption: IdType | undefined;
  try {
    typeOption = type === undefined ? undefined : parseIdType(type);
  } catch (cause) {
    throw invalidOptions(
      `type must be 'max-peak' (0) or 'min-granularity' (1), got ${String(type)}`,
      cause,
    );
  }
  const { layout, defaultEpochMs } = resolveLayoutOption(o.layout, typeOption);
  const machineIdProviders: readonly MachineIdProvider[] = Object.freeze([
    ...(machineIdProvider === undefined ? [] : [machineIdProvider]),
    ...(machineId === undefined ? [] : [new StaticMachineIdProvider(machineId)]),
  ]);
  if (o.sharedState !== undefined && o.populator !== 'atomic') {
    throw invalidOptions("sharedState needs populator 'atomic'");
  }
  if (o.clock !== undefined && o.time !== undefined)
    throw invalidOptions('give clock or time, not both');
  const time = o.time ?? (o.clock === undefined ? systemTimeSource : timeSourceWithClock(o.clock));
  return Object.freeze({
    ...o,
    // Present when unset too: every option has a key.
    ...{ stateDir: o.stateDir, adoptLegacyMark: o.adoptLegacyMark, sharedState: o.sharedState },
    machineIdProviders,
    type: layout.idType,
    epochMs: epoch ?? defaultEpochMs,
    clock: time.now,
    time,
    hostLockScope: o.hostLockScope ?? process.env['VESTA_HOST_LOCK_SCOPE'] ?? 'default',
    layout,
  });
}
