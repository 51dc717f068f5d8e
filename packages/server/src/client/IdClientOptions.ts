import {
  parseIdType,
  parseEpoch,
  VestaError,
  consoleLogger,
  type IdType,
  type IdTypeName,
  type Logger,
} from '@vesta/core';
import { wholeNumberOption } from '@vesta/core/kit';
import type { EmbeddedIdServiceOptions } from '@vesta/embedded';
import type { Registry } from 'prom-client';
import { parseServerAddress, type ServerAddress } from '../protocol/parseServerAddress.js';
import { MAX_TOKEN_BYTES } from '../protocol/protocolConstants.js';

/**
 * Local issuing when no server answers: an embedded service (genMethod 0) under a machine id
 * of the embedded range, with the servers' layout and epoch. Its `stateDir` keeps its own
 * high-water mark across restarts; set it where the clock may step back while the process is down.
 */
export type IdClientFallbackOptions = Omit<
  EmbeddedIdServiceOptions,
  'type' | 'epoch' | 'layout' | 'version' | 'logger'
>;

/** Options of {@link createIdClient}. */
export interface IdClientOptions {
  /** The id servers, `host:port` each (at least one, no repeats). */
  readonly servers: readonly string[];
  /** The token the servers require. @default undefined */
  readonly authToken?: string;
  /**
   * The id type the servers must issue. When absent, the first server to answer sets it (and
   * the others must match it). Needed to start while no server answers.
   * @default the first server's
   */
  readonly type?: IdType | IdTypeName;
  /** The epoch the servers must use (Unix ms, Date or ISO-8601). @default the first server's */
  readonly epoch?: number | Date | string;
  /** Connections to each server; requests are spread over them. @default 1 */
  readonly connectionsPerServer?: number;
  /** Connect plus handshake must complete within this. @default 1000 */
  readonly connectTimeoutMs?: number;
  /** A request not answered within this is retried on another server. @default 1000 */
  readonly requestTimeoutMs?: number;
  /** Tries of one call, each on a server not yet tried for it. @default 3 */
  readonly maxAttempts?: number;
  /** First wait before a down server is probed again; doubles up to `maxProbeIntervalMs`. @default 100 */
  readonly probeIntervalMs?: number;
  /** Longest wait between probes of a down server. @default 5000 */
  readonly maxProbeIntervalMs?: number;
  /** A connection idle this long is pinged (keeps it open, finds dead servers). @default 15000 */
  readonly keepAliveMs?: number;
  /** Issue ids locally while no server answers. @default undefined (fail with NO_SERVER_AVAILABLE) */
  readonly fallback?: IdClientFallbackOptions;
  /** Registry for the client's counters (fallback ids, retries, servers down). @default none */
  readonly registry?: Registry;
  /** Where warnings go (a pino logger fits). @default stderr for warnings and errors */
  readonly logger?: Logger;
}

/** The options after validation, frozen. */
export interface ResolvedIdClientOptions {
  readonly servers: readonly ServerAddress[];
  readonly authToken: string | undefined;
  readonly type: IdType | undefined;
  readonly epochMs: number | undefined;
  readonly connectionsPerServer: number;
  readonly connectTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly maxAttempts: number;
  readonly probeIntervalMs: number;
  readonly maxProbeIntervalMs: number;
  readonly keepAliveMs: number;
  readonly fallback: IdClientFallbackOptions | undefined;
  readonly registry: Registry | undefined;
  readonly logger: Logger;
}

const KNOWN = new Set([
  'servers',
  'authToken',
  'type',
  'epoch',
  'connectionsPerServer',
  'connectTimeoutMs',
  'requestTimeoutMs',
  'maxAttempts',
  'probeIntervalMs',
  'maxProbeIntervalMs',
  'keepAliveMs',
  'fallback',
  'registry',
  'logger',
]);

function invalid(message: string, cause?: unknown): VestaError {
  return new VestaError('INVALID_OPTIONS', message, cause === undefined ? {} : { cause });
}

/** Validates the client's options once; INVALID_OPTIONS names the first bad one. */
export function resolveIdClientOptions(options: IdClientOptions): ResolvedIdClientOptions {
  if (typeof options !== 'object' || options === null) throw invalid('options must be an object');
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key)) throw invalid(`unknown option ${JSON.stringify(key)}`);
  }
  if (!Array.isArray(options.servers) || options.servers.length === 0)
    throw invalid('servers must list at least one host:port');
  const servers = options.servers.map((s) => parseServerAddress(s));
  const seen = new Set(servers.map((s) => `${s.host.toLowerCase()}:${s.port}`));
  if (seen.size !== servers.length) throw invalid('servers must not list a server twice');
  if (options.authToken !== undefined) {
    if (
      typeof options.authToken !== 'string' ||
      options.authToken === '' ||
      Buffer.byteLength(options.authToken) > MAX_TOKEN_BYTES
    ) {
      throw invalid(`authToken must be 1 to ${MAX_TOKEN_BYTES} bytes`);
    }
  }
  let type: IdType | undefined;
  if (options.type !== undefined) {
    try {
      type = parseIdType(options.type);
    } catch (cause) {
      throw invalid(
        `type must be 'max-peak' (0) or 'min-granularity' (1), got ${String(options.type)}`,
        cause,
      );
    }
  }
  const epochMs = options.epoch === undefined ? undefined : parseEpoch(options.epoch);
  if (
    options.fallback !== undefined &&
    (typeof options.fallback !== 'object' || options.fallback === null)
  ) {
    throw invalid('fallback must be an object with a machineId (or machineIdProvider)');
  }
  const probeIntervalMs = wholeNumberOption(
    'probeIntervalMs',
    options.probeIntervalMs,
    100,
    1,
    600_000,
  );
  return Object.freeze({
    servers: Object.freeze(servers),
    authToken: options.authToken,
    type,
    epochMs,
    connectionsPerServer: wholeNumberOption(
      'connectionsPerServer',
      options.connectionsPerServer,
      1,
      1,
      64,
    ),
    connectTimeoutMs: wholeNumberOption(
      'connectTimeoutMs',
      options.connectTimeoutMs,
      1000,
      1,
      600_000,
    ),
    requestTimeoutMs: wholeNumberOption(
      'requestTimeoutMs',
      options.requestTimeoutMs,
      1000,
      1,
      600_000,
    ),
    maxAttempts: wholeNumberOption('maxAttempts', options.maxAttempts, 3, 1, 100),
    probeIntervalMs,
    maxProbeIntervalMs: wholeNumberOption(
      'maxProbeIntervalMs',
      options.maxProbeIntervalMs,
      5000,
      probeIntervalMs,
      3_600_000,
    ),
    keepAliveMs: wholeNumberOption('keepAliveMs', options.keepAliveMs, 15_000, 10, 3_600_000),
    fallback: options.fallback === undefined ? undefined : Object.freeze({ ...options.fallback }),
    registry: options.registry,
    logger: options.logger ?? consoleLogger,
  });
}
