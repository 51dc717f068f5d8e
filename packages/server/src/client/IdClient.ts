import { EventEmitter } from 'node:events';
import {
  checkGeneratorName,
  DEFAULT_EPOCH_MS,
  formatId,
  GenMethod,
  parseId,
  VestaError,
  type Id,
  type IdForm,
  type IdService,
  type IdServiceHealth,
  type IdType,
  type MakeIdFields,
  type VestaErrorCode,
} from '@vesta/core';
import { checkBatchCount } from '@vesta/core/kit';
import { createEmbeddedIdService, type EmbeddedIdService } from '@vesta/embedded';
import { ClientFallback } from './ClientFallback.js';
import { createClientMetrics, type ClientMetrics } from './ClientMetrics.js';
import { EndpointPool } from './EndpointPool.js';
import type { IdClientEvents } from './IdClientEvents.js';
import type { IdClientInfo } from './IdClientInfo.js';
import type { ResolvedIdClientOptions } from './IdClientOptions.js';
import { overloadedEverywhere, sooner } from './overloadedEverywhere.js';
import { PrefetchBuffer } from './PrefetchBuffer.js';
import { probeBackoffMs } from './probeBackoff.js';
import { ProtocolConnection } from './ProtocolConnection.js';
import type { ServerEndpoint } from './ServerEndpoint.js';
import { ServerLayoutReference } from './ServerLayoutReference.js';
import { startKeepAlive } from './startKeepAlive.js';

/** Errors that are the caller's, not the server's: the same request would fail anywhere. */
const CALLER_ERRORS: ReadonlySet<VestaErrorCode> = new Set([
  'INVALID_ARGUMENT',
  'PAYLOAD_TOO_LARGE',
  'INVALID_LAYOUT',
  // Servers of one cluster name the same generators; a name one lacks, all lack.
  'UNKNOWN_GENERATOR',
]);

/**
 * The central-mode client: the embedded service's surface, with ids from a set of peer id
 * servers. Requests are pipelined and spread round-robin over the servers that are up
 * ({@link EndpointPool}); a timeout or a broken connection marks a server down (probed back
 * with {@link probeBackoffMs}) and the call is retried on another server (a retried generate
 * may waste ids, never duplicate them). The servers must agree on one layout
 * ({@link ServerLayoutReference}, which also decodes their ids locally). With `fallback`, ids
 * are issued locally (genMethod 0, {@link ClientFallback}) while no server answers. With
 * `prefetch`, single ids come from a {@link PrefetchBuffer} refilled ahead of use.
 * Build it with {@link createIdClient}.
 */
export class IdClient extends EventEmitter<IdClientEvents> implements IdService {
  readonly #options: ResolvedIdClientOptions;
  readonly #pool: EndpointPool;
  readonly #layout: ServerLayoutReference;
  readonly #metrics: ClientMetrics;
  #maxBatch = Number.MAX_SAFE_INTEGER;
  #fallback: ClientFallback | undefined;
  readonly #prefetch: PrefetchBuffer | undefined;
  readonly #prefetchSize: (() => number) | undefined;
  #lastIssuer: { machine: number; genMethod: number } | undefined;
  #closed = false;
  #stopKeepAlive: (() => void) | undefined;

  /** @internal Use {@link createIdClient}. */
  constructor(options: ResolvedIdClientOptions) {
    super();
    this.#options = options;
    this.#metrics = createClientMetrics(options.registry);
    this.#pool = new EndpointPool(options.servers);
    this.#layout = new ServerLayoutReference(
      { type: options.type, epochMs: options.epochMs, layout: options.layout },
      options.logger,
      options.time,
    );
    if (options.prefetch !== undefined) {
      const prefetch = new PrefetchBuffer(
        (count) => {
          this.#metrics.prefetchRefills.inc();
          return this.#call(
            (c) => c.generate(count),
            (f) => f.genIds(count),
            count,
          );
        },
        options.prefetch,
        options.time,
        () => this.#maxBatch,
        (count) => this.#metrics.prefetchStaleIds.inc(count),
      );
      this.#prefetch = prefetch;
      this.#prefetchSize = () => prefetch.size;
      this.#metrics.prefetchBuffered.add(this.#prefetchSize);
    }
  }

  /** @internal Connects to every server once; then builds the fallback. */
  async start(): Promise<void> {
    await Promise.all(this.#pool.endpoints.map((e) => this.#probe(e)));
    if (this.#layout.reference === undefined) {
      if (this.#options.fallback === undefined) {
        await this.close();
        throw new VestaError(
          'NO_SERVER_AVAILABLE',
          `none of ${this.#pool.names()} answered a handshake`,
        );
      }
      this.#layout.assumeStandard(DEFAULT_EPOCH_MS);
    }
    const fallback = this.#options.fallback;
    if (fallback !== undefined) {
      const ref = this.#layout.reference as NonNullable<ServerLayoutReference['reference']>;
      let service: EmbeddedIdService;
      try {
        service = await createEmbeddedIdService({
          ...fallback,
          type: ref.type,
          epoch: ref.epochMs,
          layout: ref.layoutSpec,
          version: ref.version,
          logger: this.#options.logger,
        });
      } catch (error) {
        await this.close();
        throw error;
      }
      this.#fallback = new ClientFallback(service, this.#options.logger, this.#metrics, this);
      this.#maxBatch = Math.min(this.#maxBatch, service.info().maxBatch);
    }
    const every = Math.max(5, Math.floor(this.#options.keepAliveMs / 2));
    this.#stopKeepAlive = startKeepAlive(this.#options.time, every, () => this.#pingIdle());
  }

  /** With `prefetch`, from the buffer without a round trip when it holds an id. */
  genId(): Promise<bigint> {
    if (this.#prefetch !== undefined) return this.#prefetch.next();
    return this.#call(
      (c) => c.generateOne(),
      (f) => f.genId(),
      1,
    );
  }

  async genIds(count: number): Promise<bigint[]> {
    checkBatchCount(count, this.#maxBatch);
    // From the buffer only when it holds `count` ids in strictly increasing order.
    const buffered = this.#prefetch?.takeRun(count);
    if (buffered !== undefined) return buffered;
    return this.#call(
      (c) => c.generate(count),
      (f) => f.genIds(count),
      count,
    );
  }

  /**
   * The servers' generator `name` (a GENERATE with a key; see the servers' `generators`
   * option): `genId`/`genIds` ask for ids under that name, with the same failover; the rest
   * (decoding, making, info) is this client's. A name the servers do not know is
   * UNKNOWN_GENERATOR, a malformed one INVALID_ARGUMENT. While the client falls back to local
   * issuing, every name is issued by the fallback's own generator (unique across all names).
   * Its `close()` does nothing; close the client.
   */
  generator(name: string): IdService {
    checkGeneratorName(name);
    return {
      genId: () =>
        this.#call(
          (c) => c.generateOne(name),
          (f) => f.genId(),
          1,
        ),
      genIds: (count) => {
        checkBatchCount(count, this.#maxBatch);
        return this.#call(
          (c) => c.generate(count, name),
          (f) => f.genIds(count),
          count,
        );
      },
      expId: (id, form) => this.expId(id, form),
      formatId: (id, form) => this.formatId(id, form),
      parseId: (text, form) => this.parseId(text, form),
      makeId: (fields) => this.makeId(fields),
      transTime: (time, type) => this.transTime(time, type),
      info: () => this.info(),
      health: () => this.health(),
      close: () => Promise.resolve(),
    };
  }

  expId(id: bigint | string, form?: IdForm): Id {
    return this.#layout.codec.expId(id, form);
  }

  /** Local: the forms need no server. */
  formatId(id: bigint, form?: IdForm): string {
    return formatId(id, form);
  }

  /** Local: the forms need no server. */
  parseId(text: string | bigint, form?: IdForm): bigint {
    return parseId(text, form);
  }

  makeId(fields: MakeIdFields): bigint {
    const issuer = this.#issuer();
    return this.#layout.codec.makeId(fields, {
      machine: issuer.machine,
      genMethod: issuer.genMethod,
      version: this.#version(),
    });
  }

  transTime(time: number, type?: IdType): Date {
    return this.#layout.codec.transTime(time, type);
  }

  info(): IdClientInfo {
    const issuer = this.#issuer();
    return {
      ...this.#layout.codec.info(),
      machine: issuer.machine,
      genMethod: issuer.genMethod,
      version: this.#version(),
      populator: 'sync',
      maxBatch: this.#maxBatch,
      mode: this.#fallback?.active === true ? 'fallback' : 'servers',
      servers: this.#pool.endpoints.map((e) => e.info()),
      prefetch: this.#prefetch?.info(),
    };
  }

  health(): IdServiceHealth {
    if (this.#closed)
      return { ok: false, code: 'SERVICE_CLOSED', message: 'the id client is closed' };
    if (this.#pool.anyUp()) return { ok: true };
    if (this.#fallback !== undefined) return this.#fallback.service.health();
    return {
      ok: false,
      code: 'NO_SERVER_AVAILABLE',
      message: 'no id server is up and no fallback is configured',
    };
  }

  /**
   * Drops the prefetch buffer (its ids are never served), stops probing, lets requests in
   * flight finish (up to the request timeout), closes every connection and the fallback.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#prefetch?.close();
    if (this.#prefetchSize !== undefined) this.#metrics.prefetchBuffered.delete(this.#prefetchSize);
    this.#stopKeepAlive?.();
    const closing: Promise<void>[] = [];
    for (const e of this.#pool.endpoints) {
      e.timer?.cancel();
      for (const c of e.connections) closing.push(c.close(this.#options.requestTimeoutMs));
      e.connections = [];
      e.state = 'down';
    }
    await Promise.all(closing);
    await Promise.all(this.#pool.probes());
    await this.#fallback?.service.close();
  }

  /**
   * One call: on up to `maxAttempts` servers not yet tried for it, then the fallback. A caller's
   * error ends it at once; OVERLOADED answers from every server tried end it with OVERLOADED
   * (never a fallback: that would hide the overload from the caller).
   */
  async #call<T>(
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

  /** The next server to try; without a fallback, waits for a probe under way rather than fail. */
  async #nextEndpoint(tried: Set<ServerEndpoint> | undefined): Promise<ServerEndpoint | undefined> {
    const endpoint = this.#pool.pick(tried);
    if (endpoint !== undefined || this.#fallback !== undefined) return endpoint;
    const probes = this.#pool.probes();
    if (probes.length === 0) return undefined;
    await Promise.race(probes);
    return this.#pool.pick(tried);
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
      this.emit('serverUp', { server: e.name, machine: welcome.machine });
    })().finally(() => {
      e.probe = undefined;
    });
    return e.probe;
  }

  /** A server announcing the machine id of another one up: their ids would collide. */
  #twinCheck(e: ServerEndpoint, machine: number): VestaError | undefined {
    const twin = this.#pool.twinOf(e, machine);
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
    this.emit('serverDown', { server: e.name, error });
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
    this.emit('serverRefused', { server: e.name, error });
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
    for (const e of this.#pool.endpoints) {
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

  #version(): number {
    return this.#layout.reference?.version ?? 0;
  }

  #issuer(): { machine: number; genMethod: number } {
    if (this.#lastIssuer !== undefined) return this.#lastIssuer;
    const up = this.#pool.endpoints.find((e) => e.welcome !== undefined)?.welcome;
    if (up !== undefined) return up;
    if (this.#fallback !== undefined) return this.#fallback.issuer;
    return { machine: 0, genMethod: GenMethod.CENTRAL_SERVER };
  }
}
