import type { ContainerModule } from 'inversify';
import { VestaError } from '../errors/VestaError.js';
import type { IdLayout, IdLayoutWidths } from '../layout/IdLayout.js';
import { IdType, parseIdType, type IdTypeName } from '../layout/IdType.js';
import { EMBEDDED_MACHINE_ID_RANGE, type MachineIdRange } from '../layout/machineRanges.js';
import { vestaLayout } from '../layout/standardLayouts.js';
import { checkMachineIdInRange } from '../machine-id/checkMachineIdInRange.js';
import type { MachineIdProvider } from '../machine-id/MachineIdProvider.js';
import { StaticMachineIdProvider } from '../machine-id/StaticMachineIdProvider.js';
import { DEFAULT_MAX_WAITING } from '../populator/BaseIdPopulator.js';
import type { PopulatorKind } from '../populator/IdPopulator.js';
import type { SharedIdState } from '../populator/SharedIdState.js';
import { consoleLogger, type Logger } from '../logging/Logger.js';
import type { Clock } from '../time/Clock.js';
import { systemTimeSource, timeSourceWithClock, type TimeSource } from '../time/TimeSource.js';
import { parseEpoch } from '../time/parseEpoch.js';
import { wholeNumberOption } from '../options/wholeNumberOption.js';
import type { IdServiceObserver } from './IdServiceObserver.js';

/** Options of an id service. Modes fix `genMethod` and `machineIdRange`; users set the rest. */
export interface IdServiceOptions {
  /** This instance's machine id. Give exactly one of `machineId` and `machineIdProvider`. */
  readonly machineId?: number;
  /** Where the machine id comes from (IP list, IPv4 low bits, ZooKeeper, your own). */
  readonly machineIdProvider?: MachineIdProvider;
  /** 'max-peak' (0, seconds) or 'min-granularity' (1, milliseconds). @default 'max-peak' */
  readonly type?: IdType | IdTypeName;
  /** The genMethod field: 0 embedded, 1 central server, 2 REST. Set by the mode. @default 0 */
  readonly genMethod?: number;
  /** The version bit: 0 keeps ids positive in signed 64-bit columns. @default 0 */
  readonly version?: number;
  /**
   * The epoch: Unix ms (a number or a string of digits), a Date, or an ISO-8601 date-time with
   * Z or an offset (or a bare date, UTC midnight); read by {@link parseEpoch}.
   * @default 2025-01-01T00:00:00.000Z
   */
  readonly epoch?: number | Date | string;
  /** How ids are claimed: 'sync' (fastest), 'lock' (async-mutex), 'atomic' (worker threads). @default 'sync' */
  readonly populator?: PopulatorKind;
  /** The wall clock in Unix ms; monotonic time and timers stay the system's. Give `clock` or `time`, not both. @default Date.now */
  readonly clock?: Clock;
  /** Where the wall clock, monotonic time and timers come from (tests advance a manual one). @default systemTimeSource */
  readonly time?: TimeSource;
  /** A step back of the clock up to this many ms is absorbed; beyond it CLOCK_MOVED_BACKWARDS. @default 1000 */
  readonly rollbackToleranceMs?: number;
  /**
   * A directory where the time high-water mark survives restarts. Turn it on wherever the
   * clock can be stepped back while the process is down (NTP at boot, VM restore, manual
   * changes): a restart then waits for the clock to pass the time already used.
   * @default undefined (mark kept in memory only)
   */
  readonly stateDir?: string;
  /** How far ahead of use the mark is written; a crash costs at most this much wait at restart. @default 3000 */
  readonly markWindowMs?: number;
  /** At start-up, wait at most this long for the clock to pass the mark; else CLOCK_BEHIND_HIGH_WATER_MARK. @default 10000 */
  readonly maxStartupWaitMs?: number;
  /** The largest count of one genIds call. @default 100000 */
  readonly maxBatch?: number;
  /**
   * How many calls may wait at once for the next time unit when the current one is used up;
   * more are refused at once with OVERLOADED. Waiters are served first come, first served.
   * @default 10000
   */
  readonly maxWaiting?: number;
  /**
   * The scope of the host-wide machine-id lock: a live instance refuses to start on a machine
   * id (and layout) that another live instance of the same scope on this host holds
   * (MACHINE_ID_IN_USE). Instances of other scopes do not see each other, as if on other hosts;
   * give one only to simulate hosts (tests) or to separate network namespaces that share none.
   * @default the environment variable VESTA_HOST_LOCK_SCOPE, else 'default'
   */
  readonly hostLockScope?: string;
  /** Field widths that replace the standard layout's (a custom layout). @default the type's standard layout */
  readonly layout?: Partial<IdLayoutWidths>;
  /** The machine ids this mode may use. Set by the mode. @default 0-923 (embedded) */
  readonly machineIdRange?: MachineIdRange;
  /** With populator 'atomic': the state shared with worker threads. @default a new one */
  readonly sharedState?: SharedIdState;
  /** Where warnings go (a pino logger fits). @default stderr for warnings and errors */
  readonly logger?: Logger;
  /** Metric hooks. @default none */
  readonly observer?: IdServiceObserver;
  /** Inversify modules loaded after the defaults: rebind any token of `TOKENS` there. @default [] */
  readonly modules?: readonly ContainerModule[];
}

/** Options after validation: every default filled, frozen. */
export interface ResolvedIdServiceOptions {
  readonly machineIdProvider: MachineIdProvider;
  readonly type: IdType;
  readonly genMethod: number;
  readonly version: number;
  readonly epochMs: number;
  readonly populator: PopulatorKind;
  readonly clock: Clock;
  readonly time: TimeSource;
  readonly rollbackToleranceMs: number;
  readonly stateDir: string | undefined;
  readonly markWindowMs: number;
  readonly maxStartupWaitMs: number;
  readonly maxBatch: number;
  readonly maxWaiting: number;
  readonly hostLockScope: string;
  readonly layout: IdLayout;
  readonly machineIdRange: MachineIdRange;
  readonly sharedState: SharedIdState | undefined;
  readonly logger: Logger;
  readonly observer: IdServiceObserver;
  readonly modules: readonly ContainerModule[];
}

const KNOWN = new Set<string>([
  'machineId',
  'machineIdProvider',
  'type',
  'genMethod',
  'version',
  'epoch',
  'populator',
  'clock',
  'time',
  'rollbackToleranceMs',
  'stateDir',
  'markWindowMs',
  'maxStartupWaitMs',
  'maxBatch',
  'maxWaiting',
  'hostLockScope',
  'layout',
  'machineIdRange',
  'sharedState',
  'logger',
  'observer',
  'modules',
]);

function invalid(message: string, cause?: unknown): VestaError {
  return new VestaError('INVALID_OPTIONS', message, cause === undefined ? {} : { cause });
}

/** Turns an epoch option into Unix ms: {@link parseEpoch}, kept under its old name. */
export function resolveEpoch(epoch: number | Date | string | undefined): number {
  return parseEpoch(epoch);
}

const LAYOUT_KEYS = new Set<string>([
  'machineBits',
  'seqBits',
  'timeBits',
  'genMethodBits',
  'typeBits',
  'versionBits',
]);

/** A misspelt width would otherwise leave the standard one in place without a word. */
function checkLayoutKeys(layout: unknown): Partial<IdLayoutWidths> {
  if (typeof layout !== 'object' || layout === null || Array.isArray(layout)) {
    throw invalid('layout must be an object of field widths');
  }
  for (const key of Object.keys(layout)) {
    if (!LAYOUT_KEYS.has(key)) throw invalid(`unknown layout width ${JSON.stringify(key)}`);
  }
  return layout;
}

/** Validates options once, fills defaults and freezes them. Throws INVALID_OPTIONS (or the layout's and range's codes). */
export function resolveIdServiceOptions(options: IdServiceOptions): ResolvedIdServiceOptions {
  if (typeof options !== 'object' || options === null) throw invalid('options must be an object');
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key)) throw invalid(`unknown option ${JSON.stringify(key)}`);
  }
  let type: IdType;
  try {
    type = parseIdType(options.type ?? IdType.MAX_PEAK);
  } catch (cause) {
    throw invalid(
      `type must be 'max-peak' (0) or 'min-granularity' (1), got ${String(options.type)}`,
      cause,
    );
  }
  const layout =
    options.layout === undefined
      ? vestaLayout(type)
      : vestaLayout(type, checkLayoutKeys(options.layout));
  const machineIdRange = options.machineIdRange ?? EMBEDDED_MACHINE_ID_RANGE;
  wholeNumberOption('machineIdRange.min', machineIdRange.min, 0, 0, layout.machine.max);
  wholeNumberOption(
    'machineIdRange.max',
    machineIdRange.max,
    0,
    machineIdRange.min,
    layout.machine.max,
  );

  if ((options.machineId === undefined) === (options.machineIdProvider === undefined)) {
    throw invalid('give exactly one of machineId and machineIdProvider');
  }
  let machineIdProvider: MachineIdProvider;
  if (options.machineIdProvider !== undefined) {
    if (typeof options.machineIdProvider.acquire !== 'function')
      throw invalid('machineIdProvider needs an acquire() method');
    machineIdProvider = options.machineIdProvider;
  } else {
    machineIdProvider = new StaticMachineIdProvider(
      checkMachineIdInRange(options.machineId, machineIdRange, 'machineId'),
    );
  }

  const populator = options.populator ?? 'sync';
  if (populator !== 'sync' && populator !== 'lock' && populator !== 'atomic') {
    throw invalid(`populator must be 'sync', 'lock' or 'atomic', got ${String(populator)}`);
  }
  if (options.sharedState !== undefined && populator !== 'atomic') {
    throw invalid("sharedState needs populator 'atomic'");
  }
  if (
    options.sharedState !== undefined &&
    !(options.sharedState.buffer instanceof SharedArrayBuffer)
  ) {
    throw invalid('sharedState.buffer must be a SharedArrayBuffer');
  }
  if (options.clock !== undefined && typeof options.clock !== 'function')
    throw invalid('clock must be a function returning Unix ms');
  if (options.clock !== undefined && options.time !== undefined)
    throw invalid('give clock or time, not both');
  const time =
    options.time ??
    (options.clock === undefined ? systemTimeSource : timeSourceWithClock(options.clock));
  if (
    typeof time !== 'object' ||
    time === null ||
    typeof time.now !== 'function' ||
    typeof time.monotonic !== 'function' ||
    typeof time.setTimer !== 'function'
  )
    throw invalid('time must be a TimeSource: now(), monotonic() and setTimer()');
  if (
    options.stateDir !== undefined &&
    (typeof options.stateDir !== 'string' || options.stateDir === '')
  ) {
    throw invalid('stateDir must be a non-empty path');
  }
  if (
    options.hostLockScope !== undefined &&
    (typeof options.hostLockScope !== 'string' || options.hostLockScope === '')
  ) {
    throw invalid('hostLockScope must be a non-empty string');
  }
  if (options.modules !== undefined && !Array.isArray(options.modules))
    throw invalid('modules must be an array');

  return Object.freeze({
    machineIdProvider,
    type,
    genMethod: wholeNumberOption('genMethod', options.genMethod, 0, 0, layout.genMethod.max),
    version: wholeNumberOption('version', options.version, 0, 0, layout.version.max),
    epochMs: resolveEpoch(options.epoch),
    populator,
    clock: time.now,
    time,
    rollbackToleranceMs: wholeNumberOption(
      'rollbackToleranceMs',
      options.rollbackToleranceMs,
      1000,
      0,
      3_600_000,
    ),
    stateDir: options.stateDir,
    markWindowMs: wholeNumberOption('markWindowMs', options.markWindowMs, 3000, 1, 3_600_000),
    maxStartupWaitMs: wholeNumberOption(
      'maxStartupWaitMs',
      options.maxStartupWaitMs,
      10_000,
      0,
      3_600_000,
    ),
    maxBatch: wholeNumberOption('maxBatch', options.maxBatch, 100_000, 1, 10_000_000),
    maxWaiting: wholeNumberOption(
      'maxWaiting',
      options.maxWaiting,
      DEFAULT_MAX_WAITING,
      0,
      1_000_000,
    ),
    hostLockScope: options.hostLockScope ?? process.env['VESTA_HOST_LOCK_SCOPE'] ?? 'default',
    layout,
    machineIdRange: Object.freeze({ ...machineIdRange }),
    sharedState: options.sharedState,
    logger: options.logger ?? consoleLogger,
    observer: options.observer ?? {},
    modules: Object.freeze([...(options.modules ?? [])]),
  });
}
