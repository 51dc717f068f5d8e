import type { IdServiceInfo } from '@vesta/core';

/** One server as the client sees it. */
export interface IdClientServerInfo {
  /** `host:port`. */
  readonly server: string;
  /** 'up' (in use), 'connecting', 'down' (probed back with backoff) or 'refused' (handshake mismatch). */
  readonly state: 'up' | 'connecting' | 'down' | 'refused';
  /** The server's machine id, once it has answered a handshake. */
  readonly machine: number | undefined;
  readonly inFlight: number;
}

/** The prefetch buffer of an {@link IdClient} (`prefetch` option), as `info().prefetch` reports it. */
export interface IdClientPrefetchInfo {
  /** Ids buffered now (some may still be dropped as stale before they are served). */
  readonly buffered: number;
  /** The size of the next refill, adapted to the callers' rate. */
  readonly batchSize: number;
  /** A refill starts when fewer ids than this remain buffered. */
  readonly lowWater: number;
  /** Refills asked for so far (one in flight at most). */
  readonly refills: number;
  /** Whether a refill is in flight now. */
  readonly refilling: boolean;
  /** Ids dropped, never served, because they were older than `maxAgeMs`. */
  readonly droppedStale: number;
  /** The staleness bound of the `prefetch` option. */
  readonly maxAgeMs: number;
}

/**
 * What {@link IdClient.info} reports: the layout learned in the handshake (as
 * `IdServiceInfo`), plus the servers' states and whether ids come from the fallback.
 * `machine` and `genMethod` are those of the last issuer: a server (genMethod 1) or, while in
 * fallback, the local service (genMethod 0).
 */
export interface IdClientInfo extends IdServiceInfo {
  readonly mode: 'servers' | 'fallback';
  readonly servers: readonly IdClientServerInfo[];
  /** The prefetch buffer; undefined when `prefetch` is off. */
  readonly prefetch: IdClientPrefetchInfo | undefined;
}
