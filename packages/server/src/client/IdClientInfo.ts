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

/**
 * What {@link IdClient.info} reports: the layout learned in the handshake (as
 * `IdServiceInfo`), plus the servers' states and whether ids come from the fallback.
 * `machine` and `genMethod` are those of the last issuer: a server (genMethod 1) or, while in
 * fallback, the local service (genMethod 0).
 */
export interface IdClientInfo extends IdServiceInfo {
  readonly mode: 'servers' | 'fallback';
  readonly servers: readonly IdClientServerInfo[];
}
