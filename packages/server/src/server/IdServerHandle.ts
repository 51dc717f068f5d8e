import type { IdGenerators, IdService } from '@vesta/core';
import type { VestaMetrics } from '@vesta/metrics';

/** A running id server. */
export interface IdServerHandle {
  /** Where the TCP listener is bound (the real port when 0 was asked). */
  readonly address: { readonly host: string; readonly port: number };
  /** `host:port`, as clients list it in `servers`. */
  readonly url: string;
  /** Where /metrics and /health are served, when `metricsPort` was given. */
  readonly metricsAddress: { readonly host: string; readonly port: number } | undefined;
  /** The id service behind the listener. */
  readonly service: IdService;
  /** The named generators over `service` (a GENERATE with a key). */
  readonly generators: IdGenerators;
  readonly metrics: VestaMetrics;
  /** Open client connections. */
  readonly connections: number;
  /**
   * Graceful shutdown: stops accepting, sends GOAWAY, answers what is in flight, waits up to
   * `shutdownGraceMs` for clients to close, cuts the rest, then closes the id service (which
   * persists the high-water mark). Idempotent.
   */
  close(): Promise<void>;
}
