import { EventEmitter } from 'node:events';
import {
  DEFAULT_EPOCH_MS,
  GenMethod,
  IdCodec,
  IdType,
  standardLayout,
  vestaLayout,
  VestaError,
  type Id,
  type IdLayout,
  type IdLayoutWidths,
  type IdService,
  type IdServiceHealth,
  type MakeIdFields,
  type VestaErrorCode,
} from '@vesta/core';
import { createEmbeddedIdService, type EmbeddedIdService } from '@vesta/embedded';
import { formatServerAddress, type ServerAddress } from '../protocol/parseServerAddress.js';
import type { Welcome } from '../protocol/WelcomeMessage.js';
import { createClientMetrics, type ClientMetrics } from './ClientMetrics.js';
import type { IdClientEvents } from './IdClientEvents.js';
import type { IdClientInfo } from './IdClientInfo.js';
import type { ResolvedIdClientOptions } from './IdClientOptions.js';
import { ProtocolConnection } from './ProtocolConnection.js';

interface Endpoint {
  readonly address: ServerAddress;
  readonly name: string;
  state: 'up' | 'connecting' | 'down' | 'refused';
  connections: ProtocolConnection[];
  welcome: Welcome | undefined;
  failures: number;
  probe: Promise<void> | undefined;
  timer: NodeJS.Timeout | undefined;
}

/** The layout every server of one client must share. */
interface Reference {
  readonly type: IdType;
  readonly epochMs: number;
  readonly layout: IdLayoutWidths;
  readonly version: number;
}

/** Errors that are the caller's, not the server's: the same request would fail anywhere. */
const CALLER_ERRORS: ReadonlySet<VestaErrorCode> = new Set([
  'INVALID_ARGUMENT',
  'PAYLOAD_TOO_LARGE',
  'INVALID_LAYOUT',
]);

/**
 * The central-mode client: the embedded service's surface, with ids from a set of peer id
 * servers. Requests are pipelined and spread round-robin over the servers that are up; a
 * timeout or a broken connection marks a server down (probed back with backoff) and the call
 * is retried on another server (a retried generate may waste ids, never duplicate them).
 * With `fallback`, ids are issued locally (genMethod 0) while no server answers.
 * Build it with {@link createIdClient}.
 */
export class IdClient extends EventEmitter<IdClientEvents> implements IdService {
  readonly #options: ResolvedIdClientOptions;
  readonly #endpoints: Endpoint[];
  readonly #metrics: ClientMetrics;
  #reference: Reference | undefined;
  #codec: IdCodec | undefined;
  #maxBatch = Number.MAX_SAFE_INTEGER;
  #fallback: EmbeddedIdService | undefined;
  #mode: 'servers' | 'fallback' = 'servers';
  #lastIssuer: { machine: number; genMethod: number } | undefined;
  #rr = 0;
  #closed = false;
  #keepAlive: NodeJS.Timeout | undefined;

  /** @internal Use {@link createIdClient}. */
  constructor(options: ResolvedIdClientOptions) {
    super();
    this.#options = options;
    this.#metrics = createClientMetrics(options.registry);
    this.#endpoints = options.servers.map((address) => ({
      address,
      name: formatServerAddress(address),
      state: 'down',
      connections: [],
      welcome: undefined,
      failures: 0,
      probe: undefined,
      timer: undefined,
    }));
    if (options.type !== undefined && options.epochMs !== undefined) {
      this.#setReference(
        {
          type: options.type,
          epochMs: options.epochMs,
          layout: standardLayout(options.type).widths,
          version: 0,
        },
        false,
      );
    }
  }

  /** @internal Connects to every server once; then builds the fallback. */
  async start(): Promise<void> {
    await Promise.all(this.#endpoints.map((e) => this.#probe(e)));
    if (this.#reference === undefined) {
      if (this.#options.fallback === undefined) {
        await this.close();
        throw new VestaError(
          'NO_SERVER_AVAILABLE',
          `none of ${this.#endpoints.map((e) => e.name).join(', ')} answered a handshake`,
        );
      }
      const type = this.#options.type ?? IdType.MAX_PEAK;
      const epochMs = this.#options.epochMs ?? DEFAULT_EPOCH_MS;
      this.#options.logger.warn(
        { type, epochMs },
        'no id server answered; the fallback assumes this layout until one does',
      );
      this.#setReference({ type, epochMs, layout: standardLayout(type).widths, version: 0 }, false);
    }
    const fallback = this.#options.fallback;
    if (fallback !== undefined) {
      const ref = this.#reference as Reference;
      try {
        this.#fallback = await createEmbeddedIdService({
          ...fallback,
          type: ref.type,
          epoch: ref.epochMs,
          layout: ref.layout,
          version: ref.version,
          logger: this.#options.logger,
        });
      } catch (error) {
        await this.close();
        throw error;
      }
      this.#maxBatch = Math.min(this.#maxBatch, this.#fallback.info().maxBatch);
    }
    const every = Math.max(5, Math.floor(this.#options.keepAliveMs / 2));
    this.#keepAlive = setInterval(() => this.#pingIdle(), every);
    this.#keepAlive.unref();
  }

  async genId(): Promise<bigint> {
    return this.#call(
      (c) => c.generateOne(),
      (f) => f.genId(),
      1,
    );
  }

  async genIds(count: number): Promise<bigint[]> {
    if (!Number.isInteger(count) || count < 1 || count > this.#maxBatch) {
      throw new VestaError(
        'INVALID_ARGUMENT',
        `count must be a whole number from 1 to ${this.#maxBatch}, got ${String(count)}`,
        {
          details: { count: String(count), maxBatch: this.#maxBatch },
        },
      );
    }
    return this.#call(
      (c) => c.generate(count),
      (f) => f.genIds(count),
      count,
    );
  }

  expId(id: bigint | string): Id {
    return this.#conv().expId(id);
  }

  makeId(fields: MakeIdFields): bigint {
    const issuer = this.#issuer();
    return this.#conv().makeId(fields, {
      machine: issuer.machine,
      genMethod: issuer.genMethod,
      version: this.#ref().version,
    });
  }

  transTime(time: number, type?: IdType): Date {
    return this.#conv().transTime(time, type);
  }

  info(): IdClientInfo {
    const issuer = this.#issuer();
    return {
      ...this.#conv().info(),
      machine: issuer.machine,
      genMethod: issuer.genMethod,
      version: this.#ref().version,
      populator: 'sync',
      maxBatch: this.#maxBatch,
      mode: this.#mode,
      servers: this.#endpoints.map((e) => ({
        server: e.name,
        state: e.state,
        machine: e.welcome?.machine,
        inFlight: e.connections.reduce((sum, c) => sum + c.inFlight, 0),
      })),
    };
  }

  health(): IdServiceHealth {
    if (this.#closed)
      return { ok: false, code: 'SERVICE_CLOSED', message: 'the id client is closed' };
    if (this.#endpoints.some((e) => e.state === 'up')) return { ok: true };
    if (this.#fallback !== undefined) return this.#fallback.health();
    return {
      ok: false,
      code: 'NO_SERVER_AVAILABLE',
      message: 'no id server is up and no fallback is configured',
    };
  }

  /** Stops probing, lets requests in flight finish (up to the request timeout), closes every connection and the fallback. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#keepAlive);
    const closing: Promise<void>[] = [];
    for (const e of this.#endpoints) {
      clearTimeout(e.timer);
      for (const c of e.connections) closing.push(c.close(this.#options.requestTimeoutMs));
      e.connections = [];
      e.state = 'down';
    }
    await Promise.all(closing);
    await Promise.all(this.#endpoints.map((e) => e.probe));
    await this.#fallback?.close();
  }

  async #call<T>(
    remote: (c: ProtocolConnection) => Promise<T>,
    local: (f: EmbeddedIdService) => Promise<T>,
    count: number,
  ): Promise<T> {
    if (this.#closed) throw new VestaError('SERVICE_CLOSED', 'the id client is closed');
    let tried: Set<Endpoint> | undefined;
    let lastError: VestaError | undefined;
    // OVERLOADED answers from every server tried end the call with OVERLOADED, not a fallback.
    let overloaded: VestaError | undefined;
    let onlyOverloaded = true;
    for (let attempt = 0; attempt < this.#options.maxAttempts; attempt++) {
      let endpoint = this.#pick(tried);
      if (endpoint === undefined && this.#fallback === undefined) {
        const probes = this.#endpoints.flatMap((e) => (e.probe === undefined ? [] : [e.probe]));
        if (probes.length > 0) {
          await Promise.race(probes);
          endpoint = this.#pick(tried);
        }
      }
      if (endpoint === undefined) break;
      const connection = leastLoaded(endpoint.connections);
      if (attempt > 0) this.#metrics.retries.inc();
      try {
        const result = await remote(connection);
        endpoint.failures = 0;
        this.#lastIssuer = endpoint.welcome;
        if (this.#mode === 'fallback') {
          this.#mode = 'servers';
          this.#options.logger.info(
            { server: endpoint.name },
            'id servers answer again; leaving fallback',
          );
          this.emit('recovered', { server: endpoint.name });
        }
        return result;
      } catch (error) {
        if (!VestaError.is(error) || CALLER_ERRORS.has(error.code)) throw error;
        lastError = error;
        (tried ??= new Set()).add(endpoint);
        if (error.code === 'OVERLOADED') {
          // The server answered: its connection is healthy, only busy. Try another one.
          if (overloaded === undefined || retryAfterOf(error) < retryAfterOf(overloaded))
            overloaded = error;
          continue;
        }
        onlyOverloaded = false;
        if (endpoint.connections.includes(connection)) this.#markDown(endpoint, error);
      }
    }
    if (this.#closed) throw new VestaError('SERVICE_CLOSED', 'the id client is closed');
    if (overloaded !== undefined && onlyOverloaded) {
      const retryAfterMs = overloaded.details?.['retryAfterMs'];
      throw new VestaError(
        'OVERLOADED',
        `every id server tried is overloaded: ${overloaded.message}`,
        {
          cause: overloaded,
          details: {
            servers: tried?.size ?? 0,
            ...(typeof retryAfterMs === 'number' ? { retryAfterMs } : {}),
          },
        },
      );
    }
    const fallback = this.#fallback;
    if (fallback === undefined) {
      throw new VestaError(
        'NO_SERVER_AVAILABLE',
        `no id server answered${lastError === undefined ? '' : `: ${lastError.message}`}`,
        {
          ...(lastError === undefined ? {} : { cause: lastError }),
        },
      );
    }
    if (this.#mode === 'servers') {
      this.#mode = 'fallback';
      this.#metrics.fallbacks.inc();
      this.#options.logger.warn(
        { err: lastError?.message ?? 'no server up' },
        'no id server answers; issuing ids locally (fallback)',
      );
      this.emit('fallback', { error: lastError });
    }
    const result = await local(fallback);
    this.#lastIssuer = { machine: fallback.info().machine, genMethod: GenMethod.EMBEDDED };
    this.#metrics.fallbackIds.inc(count);
    return result;
  }

  #pick(tried: Set<Endpoint> | undefined): Endpoint | undefined {
    const endpoints = this.#endpoints;
    const n = endpoints.length;
    for (let i = 0; i < n; i++) {
      const e = endpoints[(this.#rr + i) % n] as Endpoint;
      if (e.state === 'up' && e.connections.length > 0 && (tried === undefined || !tried.has(e))) {
        this.#rr = (this.#rr + i + 1) % n;
        return e;
      }
    }
    return undefined;
  }

  #probe(e: Endpoint): Promise<void> {
    if (e.probe !== undefined || this.#closed) return e.probe ?? Promise.resolve();
    e.state = 'connecting';
    e.timer = undefined;
    const o = this.#options;
    const connect = (): Promise<ProtocolConnection> =>
      ProtocolConnection.connect(e.address, {
        connectTimeoutMs: o.connectTimeoutMs,
        requestTimeoutMs: o.requestTimeoutMs,
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
      const mismatch = this.#check(e, welcome);
      if (mismatch !== undefined) {
        for (const c of connections) c.destroy();
        this.#refuse(e, mismatch);
        return;
      }
      e.welcome = welcome;
      e.connections = connections;
      e.state = 'up';
      this.#maxBatch = Math.min(this.#maxBatch, welcome.maxBatch);
      for (const c of connections) {
        c.on('close', (error) => {
          if (e.connections.includes(c))
            this.#markDown(
              e,
              error ?? new VestaError('NO_SERVER_AVAILABLE', `${e.name} closed the connection`),
            );
        });
        c.on('goaway', () => {
          if (e.connections.includes(c))
            this.#markDown(e, new VestaError('SERVICE_CLOSED', `${e.name} is shutting down`));
        });
        c.on('timeout', () => {
          if (e.connections.includes(c))
            this.#markDown(e, new VestaError('TIMEOUT', `${e.name} did not answer in time`));
        });
      }
      o.logger.info({ server: e.name, machine: welcome.machine }, 'id server up');
      this.emit('serverUp', { server: e.name, machine: welcome.machine });
    })().finally(() => {
      e.probe = undefined;
    });
    return e.probe;
  }

  /** Why a server may not be used (another layout, epoch, or a machine id already in use), or undefined. */
  #check(e: Endpoint, w: Welcome): VestaError | undefined {
    let layout: IdLayout;
    try {
      layout = vestaLayout(w.type === IdType.MIN_GRANULARITY ? w.type : IdType.MAX_PEAK, w.layout);
    } catch (cause) {
      return new VestaError('HANDSHAKE_MISMATCH', `${e.name} announced an invalid layout`, {
        cause,
      });
    }
    if (w.genMethod !== GenMethod.CENTRAL_SERVER) {
      return new VestaError(
        'HANDSHAKE_MISMATCH',
        `${e.name} issues with genMethod ${w.genMethod}, not ${GenMethod.CENTRAL_SERVER}`,
      );
    }
    const ref = this.#reference;
    if (ref === undefined) {
      if (this.#options.type !== undefined && w.type !== this.#options.type) {
        return new VestaError(
          'HANDSHAKE_MISMATCH',
          `${e.name} issues ids of type ${w.type}, the client expects ${this.#options.type}`,
        );
      }
      if (this.#options.epochMs !== undefined && w.epochMs !== this.#options.epochMs) {
        return new VestaError(
          'HANDSHAKE_MISMATCH',
          `${e.name} uses epoch ${w.epochMs}, the client expects ${this.#options.epochMs}`,
        );
      }
      this.#setReference(
        { type: w.type, epochMs: w.epochMs, layout: layout.widths, version: w.version },
        true,
      );
      return undefined;
    }
    const same =
      w.type === ref.type &&
      w.epochMs === ref.epochMs &&
      w.version === ref.version &&
      (Object.keys(ref.layout) as (keyof IdLayoutWidths)[]).every(
        (k) => ref.layout[k] === layout.widths[k],
      );
    if (!same) {
      return new VestaError(
        'HANDSHAKE_MISMATCH',
        `${e.name} issues type ${w.type}, epoch ${new Date(w.epochMs).toISOString()}, version ${w.version}, layout ${JSON.stringify(w.layout)}; ` +
          `the others type ${ref.type}, epoch ${new Date(ref.epochMs).toISOString()}, version ${ref.version}, layout ${JSON.stringify(ref.layout)}`,
        { details: { server: e.name } },
      );
    }
    const twin = this.#endpoints.find(
      (o) => o !== e && o.state === 'up' && o.welcome?.machine === w.machine,
    );
    if (twin !== undefined) {
      return new VestaError(
        'HANDSHAKE_MISMATCH',
        `${e.name} and ${twin.name} both issue under machine id ${w.machine}: their ids would collide`,
        {
          details: { server: e.name, machine: w.machine },
        },
      );
    }
    return undefined;
  }

  #setReference(ref: Reference, learned: boolean): void {
    this.#reference = Object.freeze(ref);
    this.#codec = new IdCodec(vestaLayout(ref.type, ref.layout), ref.epochMs);
    if (learned) this.#codec.warnIfExpiring(this.#options.logger, Date.now());
  }

  #markDown(e: Endpoint, error: VestaError): void {
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

  #down(e: Endpoint, error: VestaError): void {
    e.state = 'down';
    e.failures++;
    if (e.failures === 1)
      this.#options.logger.warn(
        { server: e.name, code: error.code, err: error.message },
        'id server unreachable',
      );
    this.#schedule(e);
  }

  #refuse(e: Endpoint, error: VestaError): void {
    e.state = 'refused';
    e.failures++;
    this.#options.logger.error(
      { server: e.name, code: error.code, err: error.message },
      'id server refused',
    );
    this.emit('serverRefused', { server: e.name, error });
    this.#schedule(e, this.#options.maxProbeIntervalMs);
  }

  #schedule(e: Endpoint, delayMs?: number): void {
    if (this.#closed || e.timer !== undefined) return;
    const o = this.#options;
    const base =
      delayMs ??
      Math.min(o.maxProbeIntervalMs, o.probeIntervalMs * 2 ** Math.min(20, e.failures - 1));
    // Jitter keeps many clients from probing a restarted server in step.
    const wait = Math.round(base * (0.75 + Math.random() * 0.5));
    e.timer = setTimeout(() => {
      e.timer = undefined;
      void this.#probe(e);
    }, wait);
    e.timer.unref();
  }

  #pingIdle(): void {
    const idleSince = performance.now() - this.#options.keepAliveMs;
    for (const e of this.#endpoints) {
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

  #ref(): Reference {
    return this.#reference as Reference;
  }

  #conv(): IdCodec {
    return this.#codec as IdCodec;
  }

  #issuer(): { machine: number; genMethod: number } {
    if (this.#lastIssuer !== undefined) return this.#lastIssuer;
    const up = this.#endpoints.find((e) => e.welcome !== undefined)?.welcome;
    if (up !== undefined) return up;
    return {
      machine: this.#fallback?.info().machine ?? 0,
      genMethod: this.#fallback === undefined ? GenMethod.CENTRAL_SERVER : GenMethod.EMBEDDED,
    };
  }
}

/** An OVERLOADED answer's retry-after hint, Infinity when it has none. */
function retryAfterOf(error: VestaError | undefined): number {
  const ms = error?.details?.['retryAfterMs'];
  return typeof ms === 'number' ? ms : Infinity;
}

function leastLoaded(connections: readonly ProtocolConnection[]): ProtocolConnection {
  let best = connections[0] as ProtocolConnection;
  for (let i = 1; i < connections.length; i++) {
    const c = connections[i] as ProtocolConnection;
    if (c.inFlight < best.inFlight) best = c;
  }
  return best;
}
