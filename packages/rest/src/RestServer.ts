import type { IdGenerators, IdService } from '@vesta/core';
import type { VestaMetrics } from '@vesta/metrics';
import type { Express } from 'express';
import type { Server } from 'node:http';

/** A running REST id server, as {@link startRestServer} returns it. */
export interface RestServer {
  /** The base URL, e.g. `http://127.0.0.1:8080`. */
  readonly url: string;
  readonly host: string;
  /** The port actually bound (useful with port 0). */
  readonly port: number;
  readonly service: IdService;
  /** The named generators over `service` (`?key=<name>`). */
  readonly generators: IdGenerators;
  readonly metrics: VestaMetrics;
  /** The express app over the server's handlers (exact GET/HEAD paths go to them directly). */
  readonly app: Express;
  readonly server: Server;
  /** Graceful stop: requests in flight finish (up to the shutdown timeout), the service closes. */
  close(): Promise<void>;
}
