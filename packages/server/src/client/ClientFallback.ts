import { GenMethod, type Logger, type VestaError } from '@vesta/core';
import type { EmbeddedIdService } from '@vesta/embedded';
import type { ClientMetrics } from './ClientMetrics.js';
import type { EventEmitter } from 'node:events';
import type { IdClientEvents } from './IdClientEvents.js';

/**
 * Local issuing while no server answers: the embedded service, the switch into fallback and
 * back (logged, emitted, counted), and who issued last.
 */
export class ClientFallback {
  readonly service: EmbeddedIdService;
  readonly #logger: Logger;
  readonly #metrics: ClientMetrics;
  readonly #events: Pick<EventEmitter<IdClientEvents>, 'emit'>;
  #active = false;

  constructor(
    service: EmbeddedIdService,
    logger: Logger,
    metrics: ClientMetrics,
    events: Pick<EventEmitter<IdClientEvents>, 'emit'>,
  ) {
    this.service = service;
    this.#logger = logger;
    this.#metrics = metrics;
    this.#events = events;
  }

  /** Whether ids come from the fallback now. */
  get active(): boolean {
    return this.#active;
  }

  /** The fallback's machine id and genMethod (0). */
  get issuer(): { machine: number; genMethod: number } {
    return { machine: this.service.info().machine, genMethod: GenMethod.EMBEDDED };
  }

  /** Issues `count` ids locally, switching into fallback first when the servers were in use. */
  async issue<T>(
    local: (f: EmbeddedIdService) => Promise<T>,
    count: number,
    lastError: VestaError | undefined,
  ): Promise<T> {
    if (!this.#active) {
      this.#active = true;
      this.#metrics.fallbacks.inc();
      this.#logger.warn(
        { err: lastError?.message ?? 'no server up' },
        'no id server answers; issuing ids locally (fallback)',
      );
      this.#events.emit('fallback', { error: lastError });
    }
    const result = await local(this.service);
    this.#metrics.fallbackIds.inc(count);
    return result;
  }

  /** A server answered: leave fallback (once). */
  recovered(server: string): void {
    if (!this.#active) return;
    this.#active = false;
    this.#logger.info({ server }, 'id servers answer again; leaving fallback');
    this.#events.emit('recovered', { server });
  }
}
