import { GenMethod, StaticMachineIdProvider, type Logger, type VestaError } from '@vesta/core';
import { createEmbeddedIdService, type EmbeddedIdService } from '@vesta/embedded';
import type { ClientMetrics } from './ClientMetrics.js';
import type { IdClientEmitter } from './IdClientEvents.js';
import type { IdClientFallbackOptions } from './IdClientOptions.js';
import type { ServerLayoutReference } from './ServerLayoutReference.js';

type ServerReference = NonNullable<ServerLayoutReference['reference']>;

/** Local issuing while no server answers, and the switch into fallback and back (logged, emitted, counted). */
export class ClientFallback {
  readonly service: EmbeddedIdService;
  readonly #logger: Logger;
  readonly #metrics: ClientMetrics;
  readonly #events: IdClientEmitter;
  #active = false;

  constructor(
    service: EmbeddedIdService,
    logger: Logger,
    metrics: ClientMetrics,
    events: IdClientEmitter,
  ) {
    this.service = service;
    this.#logger = logger;
    this.#metrics = metrics;
    this.#events = events;
  }

  /** Builds the embedded service in the servers' layout; its machine id is held until the client closes. */
  static async create(
    options: IdClientFallbackOptions,
    reference: ServerReference,
    logger: Logger,
    metrics: ClientMetrics,
    events: IdClientEmitter,
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

  get active(): boolean {
    return this.#active;
  }

  get issuer(): { machine: number; genMethod: number } {
    return { machine: this.service.info().machine, genMethod: GenMethod.EMBEDDED };
  }

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

  recovered(server: string): void {
    if (!this.#active) return;
    this.#active = false;
    this.#logger.info({ server }, 'id servers answer again; leaving fallback');
    this.#events.emit('recovered', { server });
  }

  close(): Promise<void> {
    return this.service.close();
  }
}
