import { type IdGeneratorsOptions, type IdServiceOptions, type Logger } from '@vesta/core';
import {
  defineOptions,
  hostOption,
  objectWith,
  portOption,
  resolveStateDir,
  serverOptionsShape,
  wholeNumber,
} from '@vesta/core/kit';
import type { VestaMetrics } from '@vesta/metrics';

/**
 * Options of {@link startIdServer}: the id service's options (less genMethod and machine-id
 * range, which the mode fixes: 1 and 924-1023) plus the listener's.
 */
export interface IdServerOptions extends Omit<
  IdServiceOptions,
  'genMethod' | 'machineIdRange' | 'stateDir' | 'observer'
> {
  /** Address to listen on. @default '127.0.0.1' */
  readonly host?: string;
  /** Port to listen on; 0 asks the OS for a free one. @default 7070 */
  readonly port?: number;
  /**
   * Directory where the time high-water mark survives restarts, so a restarted server never
   * reissues ids even after a clock step back. `false` keeps it in memory only.
   * @default '.vesta-state' (under the working directory)
   */
  readonly stateDir?: string | false;
  /** A token clients must present in the handshake: 1 to 1024 visible ASCII characters. @default undefined (no auth) */
  readonly authToken?: string;
  /**
   * A connection with no traffic for this long is closed; so is one whose frame has been
   * arriving (incomplete) for this long, however slowly its bytes trickle in. @default 60000
   */
  readonly idleTimeoutMs?: number;
  /** A connection that has not completed the handshake after this long is closed. @default 5000 */
  readonly handshakeTimeoutMs?: number;
  /** Requests worked on at once per connection; further frames wait in the socket. @default 256 */
  readonly maxInFlight?: number;
  /**
   * Connections open at once. A connection beyond the cap makes room by closing the one idle
   * the longest (no request in flight; sent GOAWAY); when every connection has a request in
   * flight, the new one is answered OVERLOADED and closed.
   * @default the soft open-files limit (RLIMIT_NOFILE) less 256, at least 16; 1000 where it cannot be read
   */
  readonly maxConnections?: number;
  /**
   * Answer bytes buffered per connection before the server stops reading its requests (a slow
   * reader cannot make the server buffer without bound: at most this plus one answer).
   * @default 4194304 (4 MiB)
   */
  readonly writeBufferBytes?: number;
  /**
   * Requests worked on at once on all connections together; a connection that would go beyond
   * waits (paused) in line with the others, first come, first served. @default 1024
   */
  readonly maxTotalInFlight?: number;
  /**
   * Answer bytes being built or queued on all connections together before the server stops
   * reading requests (connections with nothing in flight and nothing queued are still read, so
   * peers that stopped reading cannot starve those that read). @default 67108864 (64 MiB)
   */
  readonly maxBufferedBytes?: number;
  /** On close, connections still open after this long are cut. @default 5000 */
  readonly shutdownGraceMs?: number;
  /** Port of the HTTP listener for /metrics and /health; undefined: none. @default undefined */
  readonly metricsPort?: number;
  /** Address of the metrics listener. @default the value of `host` */
  readonly metricsHost?: string;
  /** The metrics to record in. @default createVestaMetrics() */
  readonly metrics?: VestaMetrics;
  /**
   * Named generators, asked for by a GENERATE with a key (see `IdGeneratorsOptions` in core):
   * names share the server's generator (ids unique across all names) unless given a shape and
   * machine id of their own.
   * @default only `default`
   */
  readonly generators?: IdGeneratorsOptions;
  /** Where the server logs (a pino logger fits). @default pino at level 'info' on stdout */
  readonly logger?: Logger;
}

/** The listener's options after validation, frozen. */
export interface ResolvedIdServerOptions {
  readonly host: string;
  readonly port: number;
  readonly stateDir: string | undefined;
  readonly authToken: Buffer | undefined;
  readonly idleTimeoutMs: number;
  readonly handshakeTimeoutMs: number;
  readonly maxInFlight: number;
  readonly maxConnections: number;
  readonly writeBufferBytes: number;
  readonly maxTotalInFlight: number;
  readonly maxBufferedBytes: number;
  readonly shutdownGraceMs: number;
  readonly metricsPort: number | undefined;
  readonly metricsHost: string;
  readonly generators: IdGeneratorsOptions;
}

/** The default port of `vesta server`. */
export const DEFAULT_ID_SERVER_PORT = 7070;

/** The declaration of the TCP listener's options (every server's shared ones first); the rest are the id service's. */
export const idServerListenerOptions = defineOptions('id server', {
  ...serverOptionsShape(DEFAULT_ID_SERVER_PORT),
  idleTimeoutMs: wholeNumber(100, 86_400_000).default(60_000),
  handshakeTimeoutMs: wholeNumber(10, 600_000).default(5000),
  maxInFlight: wholeNumber(1, 65_536).default(256),
  writeBufferBytes: wholeNumber(1024, 1024 * 1024 * 1024).default(4 * 1024 * 1024),
  maxTotalInFlight: wholeNumber(1, 1_048_576).default(1024),
  maxBufferedBytes: wholeNumber(1024, 64 * 1024 * 1024 * 1024).default(64 * 1024 * 1024),
  shutdownGraceMs: wholeNumber(0, 600_000).default(5000),
  metricsPort: portOption.optional(),
  metricsHost: hostOption.optional(),
  metrics: objectWith<VestaMetrics>(
    'VestaMetrics (createVestaMetrics)',
    'requestRecorder',
  ).optional(),
});

/** The option names of the listener; every other option is the id service's. */
export const ID_SERVER_LISTENER_KEYS: ReadonlySet<string> = new Set(
  Object.keys(idServerListenerOptions.schema.shape),
);

/** Validates the listener's options once (the id service's are ignored here); INVALID_OPTIONS names the first bad one. */
export function resolveIdServerOptions(
  options: IdServerOptions,
  cwd: string = process.cwd(),
): ResolvedIdServerOptions {
  const listener =
    typeof options === 'object' && options !== null
      ? Object.fromEntries(
          Object.entries(options).filter(([key]) => ID_SERVER_LISTENER_KEYS.has(key)),
        )
      : options;
  const o = idServerListenerOptions.resolve(listener);
  return Object.freeze({
    host: o.host,
    port: o.port,
    stateDir: resolveStateDir(o.stateDir, cwd),
    authToken: o.authToken === undefined ? undefined : Buffer.from(o.authToken, 'utf8'),
    idleTimeoutMs: o.idleTimeoutMs,
    handshakeTimeoutMs: o.handshakeTimeoutMs,
    maxInFlight: o.maxInFlight,
    maxConnections: o.maxConnections,
    writeBufferBytes: o.writeBufferBytes,
    maxTotalInFlight: o.maxTotalInFlight,
    maxBufferedBytes: o.maxBufferedBytes,
    shutdownGraceMs: o.shutdownGraceMs,
    metricsPort: o.metricsPort,
    metricsHost: o.metricsHost ?? o.host,
    generators: o.generators,
  });
}
