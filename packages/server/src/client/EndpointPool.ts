import type { EventEmitter } from 'node:events';
import { GenMethod, VestaError, type VestaErrorCode } from '@vesta/core';
import type { EmbeddedIdService } from '@vesta/embedded';
import type { ClientFallback } from './ClientFallback.js';
import type { ClientMetrics } from './ClientMetrics.js';
import type { IdClientEvents } from './IdClientEvents.js';
import type { IdClientServerInfo } from './IdClientInfo.js';
import type { ResolvedIdClientOptions } from './IdClientOptions.js';
import { EndpointProber } from './EndpointProber.js';
import type { ProtocolConnection } from './ProtocolConnection.js';
import { ServerEndpoint } from './ServerEndpoint.js';
import type { ServerLayoutReference } from './ServerLayoutReference.js';

/** Errors that are the caller's, not the server's: the same request would fail anywhere. */
const CALLER_ERRORS: ReadonlySet<VestaErrorCode> = new Set([
  'INVALID_ARGUMENT',
  'PAYLOAD_TOO_LARGE',
  'INVALID_LAYOUT',
  // Servers of one cluster name the same generators; a name one lacks, all lack.
  'UNKNOWN_GENERATOR',
  // Servers of one segment store know the same keys, and a key that ran out ran out for all.
  'SEGMENT_KEY_UNKNOWN',
  'SEGMENT_SEQUENCE_OVERFLOW',
]);

/** Answers that say the server is busy, not broken: the call moves on, the connection stays. */
const BUSY: ReadonlySet<VestaErrorCode> = new Set(['OVERLOADED']);

/** A segment call's: also a server whose segment store is down. */
export const SEGMENT_BUSY: ReadonlySet<VestaErrorCode> = new Set([
  'OVERLOADED',
  'COORDINATOR_UNAVAILABLE',
]);

/** Who issued an id: a server or the fallback. */
export interface IdIssuer {
  readonly machine: number;
  readonly genMethod: number;
}

/**
 * The client's failover: calls spread round-robin over the servers up, retried on another after
 * a timeout or a broken connection (marking that one down), ended at once by a caller's error,
 * given to the fallback once no server answers. The {@link EndpointProber} keeps server states.
 */
export class EndpointPool {
  readonly #endpoints: readonly ServerEndpoint[];
  readonly #options: ResolvedIdClientOptions;
  readonly #metrics: ClientMetrics;
  readonly #prober: EndpointProber;
  #next = 0;
  #closed = false;
  #fallback: ClientFallback | undefined;
  #lastIssuer: IdIssuer | undefined;

  constructor(
    options: ResolvedIdClientOptions,
    layout: ServerLayoutReference,
    metrics: ClientMetrics,
    events: Pick<EventEmitter<IdClientEvents>, 'emit'>,
  ) {
    this.#options = options;
    this.#metrics = metrics;
    this.#endpoints = options.servers.map((address) => new ServerEndpoint(address));
    this.#prober = new EndpointProber(this.#endpoints, options, layout, metrics, events);
  }

  async connect(): Promise<void> {
    await Promise.all(this.#endpoints.map((e) => this.#prober.probe(e)));
  }

  useFallback(fallback: ClientFallback): void {
    this.#fallback = fallback;
  }

  startKeepAlive(): void {
    this.#prober.startKeepAlive();
  }

  get maxBatch(): number {
    return this.#prober.maxBatch;
  }

  /** Who issued the last id, else a server up, else the fallback, else machine 0 of genMethod 1. */
  issuer(): IdIssuer {
    if (this.#lastIssuer !== undefined) return this.#lastIssuer;
    const up = this.#endpoints.find((e) => e.welcome !== undefined)?.welcome;
    if (up !== undefined) return up;
    if (this.#fallback !== undefined) return this.#fallback.issuer;
    return { machine: 0, genMethod: GenMethod.CENTRAL_SERVER };
  }

  anyUp(): boolean {
    return this.#endpoints.some((e) => e.state === 'up');
  }

  names(): string {
    return this.#endpoints.map((e) => e.name).join(', ');
  }

  info(): IdClientServerInfo[] {
    return this.#endpoints.map((e) => e.info());
  }

  /**
   * One call on up to `maxAttempts` servers, then the fallback (`local`; undefined for segment
   * numbers, which come from servers only). `busy` answers move it on without marking the server
   * down; busy everywhere, it ends with that answer (a fallback would hide the overload).
   */
  async call<T>(
    remote: (c: ProtocolConnection) => Promise<T>,
    local: ((f: EmbeddedIdService) => Promise<T>) | undefined,
    count: number,
    busy: ReadonlySet<VestaErrorCode> = BUSY,
  ): Promise<T> {
    if (this.#closed) throw new VestaError('SERVICE_CLOSED', 'the id client is closed');
    let tried: Set<ServerEndpoint> | undefined;
    let lastError: VestaError | undefined;
    let overloaded: VestaError | undefined;
    let unavailable: VestaError | undefined;
    let onlyOverloaded = true;
    const fallback = local === undefined ? undefined : this.#fallback;
    for (let attempt = 0; attempt < this.#options.maxAttempts; attempt++) {
      const endpoint = await this.#nextEndpoint(tried, fallback !== undefined);
      if (endpoint === undefined) break;
      const connection = endpoint.leastLoaded();
      if (attempt > 0) this.#metrics.retries.inc();
      try {
        const result = await remote(connection);
        endpoint.failures = 0;
        this.#lastIssuer = endpoint.welcome;
        this.#fallback?.recovered(endpoint.name);
        return result;
      } catch (error) {
        if (!VestaError.is(error) || CALLER_ERRORS.has(error.code)) throw error;
        lastError = error;
        (tried ??= new Set()).add(endpoint);
        if (busy.has(error.code)) {
          if (error.code === 'OVERLOADED') overloaded = sooner(overloaded, error);
          else unavailable = error;
          continue;
        }
        onlyOverloaded = false;
        if (endpoint.connections.includes(connection)) this.#prober.markDown(endpoint, error);
      }
    }
    if (this.#closed) throw new VestaError('SERVICE_CLOSED', 'the id client is closed');
    if (onlyOverloaded && unavailable !== undefined) throw unavailable;
    if (overloaded !== undefined && onlyOverloaded) {
      throw overloadedEverywhere(overloaded, tried?.size ?? 0);
    }
    if (fallback === undefined || local === undefined) {
      const why =
        local === undefined && this.#fallback !== undefined
          ? ' (segment numbers come from the servers only: the fallback never issues them)'
          : '';
      throw new VestaError(
        'NO_SERVER_AVAILABLE',
        `no id server answered${lastError === undefined ? '' : `: ${lastError.message}`}${why}`,
        lastError === undefined ? {} : { cause: lastError },
      );
    }
    const result = await fallback.issue(local, count, lastError);
    this.#lastIssuer = fallback.issuer;
    return result;
  }

  /** Lets requests in flight finish (up to the request timeout), closes all; waits for probes under way. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#prober.stop();
    const closing: Promise<void>[] = [];
    for (const e of this.#endpoints) {
      e.timer?.cancel();
      for (const c of e.connections) closing.push(c.close(this.#options.requestTimeoutMs));
      e.connections = [];
      e.state = 'down';
    }
    await Promise.all(closing);
    await Promise.all(this.#probes());
  }

  #pick(tried: ReadonlySet<ServerEndpoint> | undefined): ServerEndpoint | undefined {
    const n = this.#endpoints.length;
    for (let i = 0; i < n; i++) {
      const e = this.#endpoints[(this.#next + i) % n] as ServerEndpoint;
      if (e.usable && (tried === undefined || !tried.has(e))) {
        this.#next = (this.#next + i + 1) % n;
        return e;
      }
    }
    return undefined;
  }

  #probes(): Promise<void>[] {
    return this.#endpoints.flatMap((e) => (e.probe === undefined ? [] : [e.probe]));
  }

  /** The next server to try; without a fallback, waits for a probe under way rather than fail. */
  async #nextEndpoint(
    tried: Set<ServerEndpoint> | undefined,
    withFallback: boolean,
  ): Promise<ServerEndpoint | undefined> {
    const endpoint = this.#pick(tried);
    if (endpoint !== undefined || withFallback) return endpoint;
    const probes = this.#probes();
    if (probes.length === 0) return undefined;
    await Promise.race(probes);
    return this.#pick(tried);
  }
}

/** An OVERLOADED answer's retry-after hint, Infinity when it has none. */
function retryAfterOf(error: VestaError): number {
  const ms = error.details?.['retryAfterMs'];
  return typeof ms === 'number' ? ms : Infinity;
}

/** Of two OVERLOADED answers, the one that asks for the shorter wait. */
function sooner(a: VestaError | undefined, b: VestaError): VestaError {
  return a === undefined || retryAfterOf(b) < retryAfterOf(a) ? b : a;
}

/** Every tried server answered OVERLOADED: the shortest wait any asked for. */
function overloadedEverywhere(overloaded: VestaError, servers: number): VestaError {
  const retryAfterMs = overloaded.details?.['retryAfterMs'];
  return new VestaError(
    'OVERLOADED',
    `every id server tried is overloaded: ${overloaded.message}`,
    {
      cause: overloaded,
      details: { servers, ...(typeof retryAfterMs === 'number' ? { retryAfterMs } : {}) },
    },
  );
}
