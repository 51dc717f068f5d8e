import { parseEpoch, VestaError, type IdType, type LayoutOption } from '@vesta/core';
import {
  parseIdType,
  resolveLayoutOption,
  authTokenOption,
  checkOption,
  DEFAULT_STATE_DIR,
  hostOption,
  nonEmptyString,
  idServiceOptions,
  resolveStateDir,
} from '@vesta/core/kit';
import { Option, type Command } from 'commander';
import { parseLayoutFlag } from './parseLayoutFlag.js';
import { PORT, wholeFlag } from './wholeFlag.js';

/** The log levels of `--log-level` (pino's). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The raw values commander hands over for the flags {@link addServiceOptions} adds. */
export interface ServiceFlags {
  host?: string;
  /** A string from commander (a number is accepted from code). */
  port?: string | number;
  type?: string;
  layout?: string;
  epoch?: string;
  /** A path, `false` after `--no-state-dir` (`true` means the default). */
  stateDir?: string | boolean;
  authToken?: string;
  maxBatch?: string;
  markWindowMs?: string;
  /** The first release's epoch, to adopt its mark files (`adoptLegacyMark`). */
  adoptLegacyMark?: string;
  logLevel?: string;
  /** Comma-separated generator names. */
  generators?: string;
  generatorsOnDemand?: boolean;
}

/** Defaults that differ between the server commands. */
export interface ServiceFlagDefaults {
  /** The port when neither --port nor VESTA_PORT is given. */
  readonly port: number;
  /** The largest batch when neither --max-batch nor VESTA_MAX_BATCH is given. */
  readonly maxBatch: number;
}

/** The flags after validation: every default filled, frozen. */
export interface ServiceFlagValues {
  readonly host: string;
  /** 0 asks the OS for a free port. */
  readonly port: number;
  readonly type: IdType;
  /** The layout of --layout (a preset name or spec), when given. */
  readonly layout?: LayoutOption;
  /** The epoch in Unix ms (the preset's when --layout names one and --epoch is absent). */
  readonly epochMs: number;
  /** Absolute path of the state directory, or undefined when turned off. */
  readonly stateDir: string | undefined;
  readonly authToken: string | undefined;
  readonly maxBatch: number;
  /** How far ahead of use the time mark is written (ms). */
  readonly markWindowMs: number;
  /** The epoch (Unix ms) the first release's mark files were written under, when stated. */
  readonly adoptLegacyMarkEpochMs: number | undefined;
  readonly logLevel: LogLevel;
  /** The named generators (names share the server's generator), checked by the server. */
  readonly generators: { readonly names: readonly string[]; readonly onDemand: boolean };
}

/** The largest --max-batch any server accepts. */
export const MAX_MAX_BATCH = 1_000_000;

/**
 * Adds the flags the REST and TCP server commands share, each mirrored by a `VESTA_*`
 * environment variable (the flag wins over the variable):
 * --host, --port, --type, --layout, --epoch, --state-dir / --no-state-dir, --auth-token, --max-batch,
 * --mark-window-ms, --adopt-legacy-mark, --generators, --generators-on-demand, --log-level. Parse their values with {@link resolveServiceFlags}.
 */
export function addServiceOptions(command: Command, defaults: ServiceFlagDefaults): Command {
  return command
    .addOption(
      new Option('--host <host>', 'address to listen on').env('VESTA_HOST').default('127.0.0.1'),
    )
    .addOption(
      new Option('--port <port>', 'port to listen on (0: any free port)')
        .env('VESTA_PORT')
        .default(String(defaults.port)),
    )
    .addOption(
      new Option(
        '--type <type>',
        "id type: 'max-peak' (0, seconds) or 'min-granularity' (1, ms) (default: max-peak, or the --layout preset's)",
      ).env('VESTA_TYPE'),
    )
    .addOption(
      new Option(
        '--layout <layout>',
        'id layout: a preset (vesta-max-peak, vesta-min-granularity, twitter, leaf, nacos, uid-generator, sonyflake, discord, js-safe), uid-generator:T,W,S, or a JSON layout spec (default: the --type layout)',
      ).env('VESTA_LAYOUT'),
    )
    .addOption(
      new Option(
        '--epoch <date>',
        'epoch of the time field: ISO-8601 date-time with Z or an offset, a date (UTC), or Unix ms digits (default 2025-01-01)',
      ).env('VESTA_EPOCH'),
    )
    .addOption(
      new Option('--state-dir <dir>', 'directory where the time high-water mark survives restarts')
        .env('VESTA_STATE_DIR')
        .default(DEFAULT_STATE_DIR),
    )
    .addOption(
      new Option(
        '--no-state-dir',
        'keep the high-water mark in memory only (not safe across clock steps)',
      ).env('VESTA_NO_STATE_DIR'),
    )
    .addOption(
      new Option(
        '--auth-token <token>',
        'require this token from clients (REST: "Authorization: Bearer <token>"; TCP: in the handshake); prefer the env variable',
      ).env('VESTA_AUTH_TOKEN'),
    )
    .addOption(
      new Option('--max-batch <count>', 'largest count of one batch request')
        .env('VESTA_MAX_BATCH')
        .default(String(defaults.maxBatch)),
    )
    .addOption(
      new Option(
        '--mark-window-ms <ms>',
        'how far ahead of use the time mark is written; a crash costs at most this much wait at restart',
      )
        .env('VESTA_MARK_WINDOW_MS')
        .default('3000'),
    )
    .addOption(
      new Option(
        '--adopt-legacy-mark <epoch>',
        "adopt the state dir's time-mark files of the first release (no epoch recorded: STATE_MISMATCH without this), stating the epoch they were written under (read like --epoch); each is then rewritten in the current format",
      ).env('VESTA_ADOPT_LEGACY_MARK'),
    )
    .addOption(
      new Option(
        '--generators <names>',
        "named generators, comma-separated (orders,users): asked for with REST's ?key= or the TCP client's generator(name); they share this server's generator, so ids are unique across names",
      ).env('VESTA_GENERATORS'),
    )
    .addOption(
      new Option(
        '--generators-on-demand',
        'create an unknown generator name on first use (up to 1000 names) instead of UNKNOWN_GENERATOR',
      ).env('VESTA_GENERATORS_ON_DEMAND'),
    )
    .addOption(
      new Option('--log-level <level>', 'log level')
        .env('VESTA_LOG_LEVEL')
        .choices(LOG_LEVELS)
        .default('info'),
    );
}

function invalid(message: string): VestaError {
  return new VestaError('INVALID_OPTIONS', message);
}

/**
 * Parses --epoch with core's {@link parseEpoch} (the library's `epoch` option reads the same:
 * digits are Unix ms, else an ISO-8601 date-time with Z or an offset, or a bare date at UTC
 * midnight) and refuses an epoch in the future; INVALID_OPTIONS otherwise.
 */
export function parseEpochFlag(raw: string | undefined): number {
  const epochMs = parseEpoch(raw, '--epoch');
  if (epochMs > Date.now())
    throw invalid(`--epoch must not lie in the future, got ${new Date(epochMs).toISOString()}`);
  return epochMs;
}

/**
 * Validates the shared flags once and returns them frozen; a bad value is INVALID_OPTIONS
 * with a one-line message naming the flag. `cwd` anchors a relative --state-dir.
 */
export function resolveServiceFlags(
  flags: ServiceFlags,
  defaults: ServiceFlagDefaults,
  cwd: string = process.cwd(),
): ServiceFlagValues {
  const host = checkOption(hostOption, '--host', flags.host ?? '127.0.0.1');

  let typeFlag: IdType | undefined;
  try {
    typeFlag = flags.type === undefined ? undefined : parseIdType(flags.type);
  } catch {
    throw invalid(
      `--type must be 'max-peak' (0) or 'min-granularity' (1), got ${JSON.stringify(flags.type)}`,
    );
  }
  const layout = flags.layout === undefined ? undefined : parseLayoutFlag(flags.layout);
  const resolvedLayout = resolveLayoutOption(layout, typeFlag);
  const type = resolvedLayout.layout.idType;

  const epochMs =
    flags.epoch === undefined && layout !== undefined
      ? resolvedLayout.defaultEpochMs
      : parseEpochFlag(flags.epoch);

  const stateDir =
    flags.stateDir === false
      ? undefined
      : resolveStateDir(
          typeof flags.stateDir === 'string'
            ? checkOption(nonEmptyString, '--state-dir', flags.stateDir.trim())
            : DEFAULT_STATE_DIR,
          cwd,
        );

  const authToken =
    flags.authToken === undefined
      ? undefined
      : checkOption(authTokenOption, '--auth-token', flags.authToken);

  const logLevel = (flags.logLevel ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel))
    throw invalid(
      `--log-level must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(logLevel)}`,
    );

  return Object.freeze({
    host,
    port:
      wholeFlag('--port', flags.port === undefined ? undefined : String(flags.port), PORT) ??
      defaults.port,
    type,
    ...(layout === undefined ? {} : { layout }),
    epochMs,
    stateDir,
    authToken,
    maxBatch:
      wholeFlag('--max-batch', flags.maxBatch, { min: 1, max: MAX_MAX_BATCH }) ?? defaults.maxBatch,
    // The id service's own option, its range and default declared there.
    markWindowMs: checkOption(
      idServiceOptions.schema.shape.markWindowMs,
      '--mark-window-ms',
      wholeFlag('--mark-window-ms', flags.markWindowMs),
    ),
    adoptLegacyMarkEpochMs:
      flags.adoptLegacyMark === undefined
        ? undefined
        : parseEpoch(flags.adoptLegacyMark, '--adopt-legacy-mark'),
    logLevel,
    generators: Object.freeze({
      // Each name is checked by the server (INVALID_OPTIONS naming it); empty items are typos.
      names: Object.freeze(
        flags.generators === undefined ? [] : flags.generators.split(',').map((n) => n.trim()),
      ),
      onDemand: flags.generatorsOnDemand === true,
    }),
  });
}
