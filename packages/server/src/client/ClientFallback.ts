import { GenMethod, StaticMachineIdProvider, type Logger, type VestaError } from '@vesta/core';
import { createEmbeddedIdService, type EmbeddedIdService } from '@vesta/embedded';
import type { ClientMetrics } from './ClientMetrics.js';
import type { EventEmitter } from 'node:events';
import type { IdClientEvents } from './IdClientEvents.js';
import type { IdClientFallbackOptions } from './IdClientOptions.js';
import type { ServerLayoutReference } from './ServerLayoutReference.js';

/** What the servers fix of the fallback's embedded service: their layout, epoch and version. */
type ServerReference = NonNullable<ServerLayoutReference['reference']>;

/**
 * Local issuing while no server answers: the embedded service, the switch into fallback and
 * back (logged, emitted, counted), and who issued last. Build it with {@link ClientFallback.create}.
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

  /**
   * Builds the fallback's embedded service in the servers' layout, epoch and version: its machine
   * id is acquired now (a coordinator's provider leases it, and fences issuing when the lease is
   * lost) and held until the client closes. A fixed machine id is logged as a warning: nothing
   * keeps clients on other hosts with the same configuration off it.
   */
  static async create(
    options: IdClientFallbackOptions,
    reference: ServerReference,
    logger: Logger,
    metrics: ClientMetrics,
    events: Pick<EventEmitter<IdClientEvents>, 'emit'>,
  ): Promise<ClientFallback> {
    const service = await createEmbeddedIdService({
      ...options,
      type: reference.type,
      epoch: reference.epochMs,
      layout: reference.layoutSpec,
      version: reference.version,
      logger,
    });
    if (
      options.machineIdProvider === undefined ||
      options.machineIdProvider instanceof StaticMachineIdProvider
    ) {
      logger.warn(
        { machineId: service.info().machine },
        'the client fallback issues on a fixed machine id: clients on several hosts that share ' +
          'this configuration issue the same ids while no server answers (only clients on one ' +
          'host refuse each other); give each host its own machineId, or fallback.machineIdProvider ' +
          "(a coordinator's, e.g. RedisMachineIdProvider, or StatefulSetOrdinalMachineIdProvider)",
      );
    }
    return new ClientFallback(service, logger, metrics, events);
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

  /** Closes the embedded service, which gives its machine id (and any lease) back. */
  close(): Promise<void> {
    return this.service.close();
  }
}
