import type { IdServiceOptions } from '@vesta/core';
import {
  defineOptions,
  hostOption,
  objectWith,
  portOption,
  resolveStateDir,
  segmentsOption,
  serverOptionsShape,
  splitOptions,
  wholeNumber,
} from '@vesta/core/kit';
import type { VestaMetrics } from '@vesta/metrics';
import type { z } from 'zod';
import { DEFAULT_ID_SERVER_PORT } from '../defaults.js';

/** The TCP listener's options (core's `serverOptionsShape` first); the rest are the id service's. */
export const idServerListenerOptions = defineOptions('id server', {
  ...serverOptionsShape(DEFAULT_ID_SERVER_PORT),
  /** A connection idle, or with a frame incomplete, for this long is closed. @default 60000 */
  idleTimeoutMs: wholeNumber(100, 86_400_000).default(60_000),
  /** A connection that has not completed the handshake after this long is closed. @default 5000 */
  handshakeTimeoutMs: wholeNumber(10, 600_000).default(5000),
  /** Requests worked on at once per connection; further frames wait in the socket. @default 256 */
  maxInFlight: wholeNumber(1, 65_536).default(256),
  /** Answer bytes buffered per connection before its requests stop being read. @default 4194304 (4 MiB) */
  writeBufferBytes: wholeNumber(1024, 1024 * 1024 * 1024).default(4 * 1024 * 1024),
  /** Requests worked on at once on all connections; beyond, connections wait in line (README, "Fair service"). @default 1024 */
  maxTotalInFlight: wholeNumber(1, 1_048_576).default(1024),
  /** Answer bytes built or queued on all connections before requests stop being read (but from idle connections). @default 67108864 (64 MiB) */
  maxBufferedBytes: wholeNumber(1024, 64 * 1024 * 1024 * 1024).default(64 * 1024 * 1024),
  /** On close, connections still open after this long are cut. @default 5000 */
  shutdownGraceMs: wholeNumber(0, 600_000).default(5000),
  /** Port of the HTTP listener for /metrics and /health; undefined: none. @default undefined */
  metricsPort: portOption.optional(),
  /** Address of the metrics listener. @default the value of `host` */
  metricsHost: hostOption.optional(),
  /** Segment mode's numbers (`@vesta/segment`), not closed by the server. @default none: SEGMENT_KEY_UNKNOWN */
  segments: segmentsOption,
  /** The metrics to record in. @default createVestaMetrics() */
  metrics: objectWith<VestaMetrics>(
    'VestaMetrics (createVestaMetrics)',
    'requestRecorder',
  ).optional(),
});

/** Options of {@link startIdServer}: the id service's (less genMethod and machine-id range) and the listener's. */
export type IdServerOptions = Omit<
  IdServiceOptions,
  'genMethod' | 'machineIdRange' | 'stateDir' | 'observer' | 'logger'
> &
  Readonly<z.input<typeof idServerListenerOptions.schema>>;

/** The listener's options after validation, frozen (what {@link resolveIdServerOptions} returns). */
export type ResolvedIdServerOptions = ReturnType<typeof resolveIdServerOptions>;

/** The option names of the listener; every other option is the id service's. */
export const ID_SERVER_LISTENER_KEYS: ReadonlySet<string> = new Set(
  Object.keys(idServerListenerOptions.schema.shape),
);

/** Validates the listener's options once (the id service's are ignored here); INVALID_OPTIONS names the first bad one. */
export function resolveIdServerOptions(options: IdServerOptions, cwd: string = process.cwd()) {
  const { stateDir, authToken, metricsHost, ...o } = idServerListenerOptions.resolve(
    splitOptions(ID_SERVER_LISTENER_KEYS, options).own,
  );
  return Object.freeze({
    ...o,
    stateDir: resolveStateDir(stateDir, cwd),
    authToken: authToken === undefined ? undefined : Buffer.from(authToken, 'utf8'),
    metricsHost: metricsHost ?? o.host,
  });
}
