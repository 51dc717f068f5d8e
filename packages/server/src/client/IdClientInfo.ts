import type { IdServiceInfo } from '@vesta/core';

/** One server as the client sees it. */
export interface IdClientServerInfo {
  readonly server: string;
  /** 'up' (in use), 'connecting', 'down' (probed back with backoff) or 'refused' (handshake mismatch). */
  readonly state: 'up' | 'connecting' | 'down' | 'refused';
  readonly machine: number | undefined;
  readonly inFlight: number;
}

/** The prefetch buffer of an {@link IdClient} (`prefetch` option), as `info().prefetch` reports it. */
export interface IdClientPrefetchInfo {
  readonly buffered: number;
  /** The size of the next refill, adapted to the callers' rate. */
  readonly batchSize: number;
  /** A refill starts when fewer ids than this remain. */
  readonly lowWater: number;
  readonly refills: number;
  readonly refilling: boolean;
  /** Ids dropped, never served, as older than `maxAgeMs`. */
  readonly droppedStale: number;
  readonly maxAgeMs: number;
}

/** What {@link IdClient.info} reports; `machine` and `genMethod` are the last issuer's. */
export interface IdClientInfo extends IdServiceInfo {
  readonly mode: 'servers' | 'fallback';
  readonly servers: readonly IdClientServerInfo[];
  readonly prefetch: IdClientPrefetchInfo | undefined;
}
