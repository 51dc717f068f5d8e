import type { EventEmitter } from 'node:events';
import { GenMethod, VestaError, type VestaErrorCode } from '@vesta/core';
import type { EmbeddedIdService } from '@vesta/embedded';
import type { ClientFallback } from './ClientFallback.js';
import type { ClientMetrics } from './ClientMetrics.js';
import type { IdClientEvents } from './IdClientEvents.js';
import type { IdClientServerInfo } from './IdClientInfo.js';
import type { ResolvedIdClientOptions } from './IdClientOptions.js';
import { overloadedEverywhere, sooner } from './overloadedEverywhere.js';
import { probeBackoffMs } from './probeBackoff.js';
import { ProtocolConnection } from './ProtocolConnection.js';
import { ServerEndpoint } from './ServerEndpoint.js';
import type { ServerLayoutReference } from './ServerLayoutReference.js';
import { startKeepAlive } from './startKeepAlive.js';

/** Errors that are the caller's, not the server's: the same request would fail anywhere. */
const CALLER_ERRORS: ReadonlySet<VestaErrorCode> = new Set([
  'INVALID_ARGUMENT',
  'PAYLOAD_TOO_LARGE',
  'INVALID_LAYOUT',
  // Servers of one cluster name the same generators; a name one lacks, all lack.
  'UNKNOWN_GENERATOR',
]);

/** Who issued an id: a server's machine id and genMethod, or the fallback's. */
export interface IdIssuer {
  readonly machine: number;
  readonly genMethod: number;
}

/**
 * The client's servers and its failover: each server's state (connecting, up, down, refused),
 * probed with {@link probeBackoffMs} and checked against the shared layout and the others'
 * machine ids; calls spread round-robin over the servers up, retried on another server after a
 * timeout or a broken connection (marking that one down), ended at once by a caller's error,
 * and given to the fallback (when there is one) once no server answers. Idle connections are
 * pinged so a dead one is found before a call needs it.
 */
export class EndpointPool {
  readonly endpoints: readonly ServerEndpoint[];
  readonly #options: ResolvedIdClientOptions;
  readonly #layout: ServerLayoutReference;
  readonly #metrics: ClientMetrics;
  readonly #events: Pick<EventEmitter<IdClientEvents>, 'emit'>;
  #next = 0;
  #closed = false;
  #maxBatch = Number.MAX_SAFE_INTEGER;
  #fallback: ClientFallback | undefined;
  #lastIssuer: IdIssuer | undefined;
  #stopKeepAlive: (() => void) | undefined;

  constructor(
    options: ResolvedIdClientOptions,
    layout: ServerLayoutReference,
    metrics: ClientMetrics,
    events: Pick<EventEmitter<IdClientEvents>, 'emit'>,
  ) {
    this.#options = options;
    this.#layout = layout;
    this.#metrics = metrics;
    this.#events = events;
    this.endpoints = options.servers.map((address) => new ServerEndpoint(address));
  }

  /** Connects to every server once. */
  async connect(): Promise<void> {
    await Promise.all(this.endpoints.map((e) => this.#probe(e)));
  }

  /** From now on, calls no server answers are issued by `fallback`. */
  useFallback(fallback: ClientFallback): void {
    this.#fallback = fallback;
  }

  /** Pings connections idle for `keepAliveMs`, until {@link close}. */
  startKeepAlive(): void {
    const o = this.#options;
    const every = Math.max(5, Math.floor(o.keepAliveMs / 2));
    this.#stopKeepAlive = startKeepAlive(o.time, every, () => this.#pingIdle());
  }

  /** The smallest `maxBatch` of the servers seen so far (MAX_SAFE_INTEGER before any). */
  get maxBatch(): number {
    return this.#maxBatch;
  }

  /**
   * Who issued the last id: the server that answered last (or the fallback), else a server up,
   * else the fallback, else a central server of machine 0.
   */
  issuer(): IdIssuer {
    if (this.#lastIssuer !== undefined) return this.#lastIssuer;
    const up = this.endpoints.find((e) => e.welcome !== undefined)?.welcome;
    if (up !== undefined) return up;
    if (this.#fallback !== undefined) return this.#fallback.issuer;
    return { machine: 0, genMethod: GenMethod.CENTRAL_SERVER };
  }

  /** Whether any server is up. */
  anyUp(): boolean {
    return this.endpoints.some((e) => e.state === 'up');
  }

  /** `host:port, host:port` of every server. */
  names(): string {
    return this.endpoints.map((e) => e.name).join(', ');
  }

  /** Each server's state, as `info()` shows it. */
  info(): IdClientServerInfo[] {
    return this.endpoints.map((e) => e.info());
  }

  /**
   * One call: on up to `maxAttempts` servers not yet tried for it, then the fallback. A caller's
   * error ends it at once; OVERLOADED answers from every server tried end it with OVERLOADED
   * (never a fallback: that would hide the overload from the caller).
   */
  async call<T>(
    remote: (c: ProtocolConnection) => Promise<T>,
    local: (f: EmbeddedIdService) => Promise<T>,
    count: number,
  ): Promise<T> {
    if (this.#closed) throw new VestaError('SERVICE_CLOSED', 'the id client is closed');
    let tried: Set<ServerEndpoint> | undefined;
    let lastError: VestaError | undefined;
    let overloaded: VestaError | undefined;
    let onlyOverloaded = true;
    for (let attempt = 0; attempt < this.#options.maxAttempts; attempt++) {
      const endpoint = await this.#nextEndpoint(tried);
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
        if (error.code === 'OVERLOADED') {
          // The server answered: its connection is healthy, only busy. Try another one.
          overloaded = sooner(overloaded, error);
          continue;
        }
        onlyOverloaded = false;
        if (endpoint.connections.includes(connection)) this.#markDown(endpoint, error);
      }
    }
    if (this.#closed) throw new VestaError('SERVICE_CLOSED', 'the id client is closed');
    if (overloaded !== undefined && onlyOverloaded) {
      throw overloadedEverywhere(overloaded, tried?.size ?? 0);
    }
    const fallback = this.#fallback;
    if (fallback === undefined) {
      throw new VestaError(
        'NO_SERVER_AVAILABLE',
        `no id server answered${lastError === undefined ? '' : `: ${lastError.message}`}`,
        lastError === undefined ? {} : { cause: lastError },
      );
    }
    const result = await fallback.issue(local, count, lastError);
    this.#lastIssuer = fallback.issuer;
    return result;
  }

  /**
   * Stops probing and pinging, lets requests in flight finish (up to the request timeout) and
   * closes every connection; resolves once the probes under way are over.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#stopKeepAlive?.();
    const closing: Promise<void>[] = [];
    for (const e of this.endpoints) {
      e.timer?.cancel();
      for (const c of e.connections) closing.push(c.close(this.#options.requestTimeoutMs));
      e.connections = [];
      e.state = 'down';
    }
    await Promise.all(closing);
    await Promise.all(this.#probes());
  }

  /** The next usable server not in `tried`, round-robin; undefined when there is none. */
  #pick(tried: ReadonlySet<ServerEndpoint> | undefined): ServerEndpoint | undefined {
    const n = this.endpoints.length;
    for (let i = 0; i < n; i++) {
      const e = this.endpoints[(this.#next + i) % n] as ServerEndpoint;
      if (e.usable && (tried === undefined || !tried.has(e))) {
        this.#next = (this.#next + i + 1) % n;
        return e;
      }
    }
    return undefined;
  }

  /** The probes under way. */
  #probes(): Promise<void>[] {
    return this.endpoints.flatMap((e) => (e.probe === undefined ? [] : [e.probe]));
  }

  /** The next server to try; without a fallback, waits for a probe under way rather than fail. */
  async #nextEndpoint(tried: Set<ServerEndpoint> | undefined): Promise<ServerEndpoint | undefined> {
    const endpoint = this.#pick(tried);
    if (endpoint !== undefined || this.#fallback !== undefined) return endpoint;
    const probes = this.#probes();
    if (probes.length === 0) return undefined;
    await Promise.race(probes);
    return this.#pick(tried);
  }

  #probe(e: ServerEndpoint): Promise<void> {
    if (e.probe !== undefined || this.#closed) return e.probe ?? Promise.resolve();
    e.state = 'connecting';
    e.timer = undefined;
    const o = this.#options;
    const connect = (): Promise<ProtocolConnection> =>
      ProtocolConnection.connect(e.address, {
        connectTimeoutMs: o.connectTimeoutMs,
        requestTimeoutMs: o.requestTimeoutMs,
        time: o.time,
        ...(o.authToken === undefined ? {} : { authToken: o.authToken }),
      });
    e.probe = (async () => {
      const settled = await Promise.allSettled(
        Array.from({ length: o.connectionsPerServer }, connect),
      );
      const connections = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
      const first = settled.find((s) => s.status === 'rejected');
      if (this.#closed) {
        for (const c of connections) c.destroy();
        return;
      }
      const welcome = connections[0]?.welcome;
      if (welcome === undefined) {
        const reason = (first as PromiseRejectedResult).reason as unknown;
        const error = VestaError.is(reason)
          ? reason
          : new VestaError('NO_SERVER_AVAILABLE', String(reason));
        if (error.code === 'UNAUTHORIZED' || error.code === 'HANDSHAKE_MISMATCH')
          this.#refuse(e, error);
        else this.#down(e, error);
        return;
      }
      const mismatch = this.#layout.check(e.name, welcome) ?? this.#twinCheck(e, welcome.machine);
      if (mismatch !== undefined) {
        for (const c of connections) c.destroy();
        this.#refuse(e, mismatch);
        return;
      }
      e.welcome = welcome;
      e.connections = connections;
      e.state = 'up';
      this.#maxBatch = Math.min(this.#maxBatch, welcome.maxBatch);
      for (const c of connections) this.#watch(e, c);
      o.logger.info({ server: e.name, machine: welcome.machine }, 'id server up');
      this.#events.emit('serverUp', { server: e.name, machine: welcome.machine });
    })().finally(() => {
      e.probe = undefined;
    });
    return e.probe;
  }

  /** A server announcing the machine id of another one up: their ids would collide. */
  #twinCheck(e: ServerEndpoint, machine: number): VestaError | undefined {
    const twin = this.endpoints.find(
      (o) => o !== e && o.state === 'up' && o.welcome?.machine === machine,
    );
    if (twin === undefined) return undefined;
    return new VestaError(
      'HANDSHAKE_MISMATCH',
      `${e.name} and ${twin.name} both issue under machine id ${machine}: their ids would collide`,
      { details: { server: e.name, machine } },
    );
  }

  /** Marks the server down when one of its connections closes, goes away or times out. */
  #watch(e: ServerEndpoint, c: ProtocolConnection): void {
    const down = (error: VestaError): void => {
      if (e.connections.includes(c)) this.#markDown(e, error);
    };
    c.on('close', (error) =>
      down(error ?? new VestaError('NO_SERVER_AVAILABLE', `${e.name} closed the connection`)),
    );
    c.on('goaway', () => down(new VestaError('SERVICE_CLOSED', `${e.name} is shutting down`)));
    c.on('timeout', () => down(new VestaError('TIMEOUT', `${e.name} did not answer in time`)));
  }

  #markDown(e: ServerEndpoint, error: VestaError): void {
    if (e.state !== 'up') return;
    const connections = e.connections;
    e.connections = [];
    e.state = 'down';
    e.failures++;
    this.#metrics.serverDown.inc({ server: e.name });
    this.#options.logger.warn(
      { server: e.name, code: error.code, err: error.message },
      'id server down',
    );
    for (const c of connections) {
      if (error.code === 'SERVICE_CLOSED') void c.close(this.#options.requestTimeoutMs);
      else c.destroy(error);
    }
    this.#events.emit('serverDown', { server: e.name, error });
    this.#schedule(e);
  }

  #down(e: ServerEndpoint, error: VestaError): void {
    e.state = 'down';
    e.failures++;
    if (e.failures === 1)
      this.#options.logger.warn(
        { server: e.name, code: error.code, err: error.message },
        'id server unreachable',
      );
    this.#schedule(e);
  }

  #refuse(e: ServerEndpoint, error: VestaError): void {
    e.state = 'refused';
    e.failures++;
    this.#options.logger.error(
      { server: e.name, code: error.code, err: error.message },
      'id server refused',
    );
    this.#events.emit('serverRefused', { server: e.name, error });
    this.#schedule(e, this.#options.maxProbeIntervalMs);
  }

  #schedule(e: ServerEndpoint, delayMs?: number): void {
    if (this.#closed || e.timer !== undefined) return;
    const o = this.#options;
    const wait =
      delayMs === undefined
        ? probeBackoffMs(e.failures, o.probeIntervalMs, o.maxProbeIntervalMs)
        : probeBackoffMs(1, delayMs, delayMs);
    e.timer = o.time
      .setTimer(() => {
        e.timer = undefined;
        void this.#probe(e);
      }, wait)
      .unref();
  }

  #pingIdle(): void {
    const idleSince = this.#options.time.monotonic() - this.#options.keepAliveMs;
    for (const e of this.endpoints) {
      if (e.state !== 'up') continue;
      for (const c of e.connections) {
        if (c.inFlight === 0 && c.lastUsedAt < idleSince) {
          c.ping().catch((error: unknown) => {
            if (VestaError.is(error) && e.connections.includes(c)) this.#markDown(e, error);
          });
        }
      }
    }
  }
}
