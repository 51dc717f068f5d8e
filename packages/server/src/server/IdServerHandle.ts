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
  readonly service: IdService;
  readonly generators: IdGenerators;
  readonly metrics: VestaMetrics;
  readonly connections: number;
  /**
   * Graceful shutdown: stops accepting, sends GOAWAY, answers what is in flight, waits up to
   * `shutdownGraceMs` for clients to close, cuts the rest, then closes the id service (which
   * persists the high-water mark). Idempotent.
   */
  close(): Promise<void>;
}
