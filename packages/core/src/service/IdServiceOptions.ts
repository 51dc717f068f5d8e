import type { ContainerModule } from 'inversify';
import { z } from 'zod';
import { VestaError } from '../errors/VestaError.js';
import { ID_META_WIDTH_KEYS } from '../layout/IdMeta.js';
import { parseIdType, type IdType, type IdTypeName } from '../layout/IdType.js';
import { EMBEDDED_MACHINE_ID_RANGE } from '../layout/machineRanges.js';
import { resolveLayoutOption, type LayoutOption } from '../layout/resolveLayoutOption.js';
import type { MachineIdProvider } from '../machine-id/MachineIdProvider.js';
import { StaticMachineIdProvider } from '../machine-id/StaticMachineIdProvider.js';
import { DEFAULT_MAX_WAITING } from '../populator/BaseIdPopulator.js';
import type { SharedIdState } from '../populator/SharedIdState.js';
import { consoleLogger, type Logger } from '../logging/Logger.js';
import type { Clock } from '../time/Clock.js';
import { systemTimeSource, timeSourceWithClock } from '../time/TimeSource.js';
import { parseEpoch } from '../time/parseEpoch.js';
import { defineOptions } from '../options/defineOptions.js';
import {
  checkedLater,
  functionOption,
  nonEmptyString,
  objectWith,
  parsedOption,
  timeSourceOption,
  typedAs,
  wholeNumber,
} from '../options/optionTypes.js';
import { adoptLegacyMarkOption } from './adoptLegacyMarkOption.js';
import type { IdServiceObserver } from '../IdServiceObserver.js';

function invalid(message: string, cause?: unknown): VestaError {
  return new VestaError('INVALID_OPTIONS', message, cause === undefined ? {} : { cause });
}

/** Widths checked by the layout itself (INVALID_LAYOUT); unknown keys are an options mistake. */
const layoutShape = z.union([
  z.string(),
  z.looseObject({ fields: z.array(z.unknown()) }),
  z.strictObject(
    Object.fromEntries(ID_META_WIDTH_KEYS.map((key) => [key, z.unknown().optional()])),
  ),
]);

/**
 * The one declaration of an id service's options (type, range, default, documentation).
 * {@link resolveIdServiceOptions} checks the rules between two options; what involves a bound
 * part (one machine-id source in all, the id in the range, the layout) is checked on the
 * composition (`checkComposition`). A mode's module rebinds `genMethod` and `machineIdRange`.
 */
export const idServiceOptions = defineOptions('id service', {
  /** Exactly one of `machineId`, `machineIdProvider` and a module's `TOKENS.MachineIdProvider`. */
  machineId: checkedLater<number>().optional().describe('machine id of this instance'),
  /** Where the machine id comes from (IP list, IPv4 low bits, ZooKeeper, your own). */
  machineIdProvider: objectWith<MachineIdProvider>(
    'a MachineIdProvider (acquire())',
    'acquire',
  ).optional(),
  /** A preset or layout spec fixes the type itself (a contradicting one is INVALID_OPTIONS). */
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
  /**
   * Where the time high-water mark survives restarts: set it wherever the clock can step back
   * while the process is down (NTP at boot, VM restore). @default undefined (memory only)
   */
  stateDir: nonEmptyString.optional(),
  markWindowMs: wholeNumber(1, 3_600_000)
    .default(3000)
    .describe(
      'how far ahead of use the time mark is written; a crash costs at most this much wait at restart',
    ),
  /**
   * Also the first release's field widths (`layout`) and version; checked like any mark after.
   * @example { epoch: '2025-01-01', layout: { seqBits: 19, timeBits: 31 } }
   */
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
  /**
   * Time borrowing: a used-up unit's callers are served from the next units while these start at
   * most this many ms after the clock (ids then run up to this far ahead of it; the mark covers
   * them). @default 0 (never borrow: wait for the next unit)
   */
  maxLeadMs: wholeNumber(0, 3_600_000).default(0),
  /**
   * The scope of the host-wide machine-id lock (MACHINE_ID_IN_USE): other scopes are as if on
   * other hosts (tests, separate network namespaces). @default env VESTA_HOST_LOCK_SCOPE, else 'default'
   */
  hostLockScope: nonEmptyString.optional(),
  /** Also an object: a layout spec (`{ fields, unitMs, type }`) or Vesta field widths. */
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
      (v) =>
        typeof v === 'object' &&
        v !== null &&
        (v as SharedIdState).buffer instanceof SharedArrayBuffer,
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
  observer: z
    .custom<IdServiceObserver>((v) => typeof v === 'object' && v !== null, {
      error: 'must be an object of hooks',
    })
    .default({}),
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
  const o = idServiceOptions.resolve(options);
  let typeOption: IdType | undefined;
  try {
    typeOption = o.type === undefined ? undefined : parseIdType(o.type);
  } catch (cause) {
    throw invalid(
      `type must be 'max-peak' (0) or 'min-granularity' (1), got ${String(o.type)}`,
      cause,
    );
  }
  const { layout, defaultEpochMs } = resolveLayoutOption(o.layout, typeOption);
  // Exactly one source in all (with modules') and the range are checked on the composition.
  const machineIdProviders: readonly MachineIdProvider[] = Object.freeze([
    ...(o.machineIdProvider === undefined ? [] : [o.machineIdProvider]),
    ...(o.machineId === undefined ? [] : [new StaticMachineIdProvider(o.machineId)]),
  ]);
  if (o.sharedState !== undefined && o.populator !== 'atomic') {
    throw invalid("sharedState needs populator 'atomic'");
  }
  if (o.clock !== undefined && o.time !== undefined) throw invalid('give clock or time, not both');
  const time = o.time ?? (o.clock === undefined ? systemTimeSource : timeSourceWithClock(o.clock));
  return Object.freeze({
    /** The machine-id sources the options give (`machineIdProvider`, `machineId`): core's module binds each. */
    machineIdProviders,
    type: layout.idType,
    genMethod: o.genMethod,
    version: o.version,
    epochMs: o.epoch ?? defaultEpochMs,
    populator: o.populator,
    clock: time.now,
    time,
    rollbackToleranceMs: o.rollbackToleranceMs,
    stateDir: o.stateDir,
    markWindowMs: o.markWindowMs,
    adoptLegacyMark: o.adoptLegacyMark,
    maxStartupWaitMs: o.maxStartupWaitMs,
    maxBatch: o.maxBatch,
    maxWaiting: o.maxWaiting,
    maxLeadMs: o.maxLeadMs,
    hostLockScope: o.hostLockScope ?? process.env['VESTA_HOST_LOCK_SCOPE'] ?? 'default',
    /** The layout; `layout.name` is the preset's name (undefined for a custom layout). */
    layout,
    machineIdRange: o.machineIdRange,
    sharedState: o.sharedState,
    logger: o.logger,
    observer: o.observer,
    modules: o.modules,
  });
}
