import { EventEmitter } from 'node:events';
import {
  formatId,
  GenMethod,
  parseId,
  StaticMachineIdProvider,
  VestaError,
  type Id,
  type IdForm,
  type IdService,
  type IdServiceHealth,
  type IdServiceInfo,
  type IdType,
  type MakeIdFields,
  type TimeBounds,
  type TimeBoundsFilter,
  type TimerHandle,
  type VestaErrorCode,
} from '@vesta/core';
import { checkGeneratorName, DEFAULT_EPOCH_MS, checkBatchCount } from '@vesta/core/kit';
import { createEmbeddedIdService, type EmbeddedIdService } from '@vesta/embedded';
import { formatServerAddress, type ServerAddress } from '../protocol/parseServerAddress.js';
import type { Welcome } from '../protocol/WelcomeMessage.js';
import { createClientMetrics, type ClientMetrics } from './ClientMetrics.js';
import {
  resolveIdClientOptions,
  type IdClientOptions,
  type ResolvedIdClientOptions,
} from './IdClientOptions.js';
import { PrefetchBuffer, type IdClientPrefetchInfo } from './PrefetchBuffer.js';
import { ProtocolConnection, startKeepAlive } from './ProtocolConnection.js';
import { ServerLayoutReference, type Reference } from './ServerLayoutReference.js';

/** Events of an {@link IdClient}. */
export interface IdClientEvents {
  serverUp: [event: { server: string; machine: number }];
  /** A server stopped answering or is shutting down; it is probed back with backoff. */
  serverDown: [event: { server: string; error: VestaError }];
  /** A server answered with another layout or epoch, or a machine id in use; it is not used. */
  serverRefused: [event: { server: string; error: VestaError }];
  fallback: [event: { error: VestaError | undefined }];
  recovered: [event: { server: string }];
}

/** One server as the client sees it. */
export interface IdClientServerInfo {
  readonly server: string;
  /** 'up' (in use), 'connecting', 'down' (probed back with backoff) or 'refused' (handshake mismatch). */
  readonly state: 'up' | 'connecting' | 'down' | 'refused';
  readonly machine: number | undefined;
  readonly inFlight: number;
}

/** What {@link IdClient.info} reports; `machine` and `genMethod` are the last issuer's. */
export interface IdClientInfo extends IdServiceInfo {
  readonly mode: 'servers' | 'fallback';
  readonly servers: readonly IdClientServerInfo[];
  readonly prefetch: IdClientPrefetchInfo | undefined;
}

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
const SEGMENT_BUSY: ReadonlySet<VestaErrorCode> = new Set([...BUSY, 'COORDINATOR_UNAVAILABLE']);

type IdIssuer = Pick<Welcome, 'machine' | 'genMethod'>;

/** `probeIntervalMs` doubled per failure up to the max, +-25% so clients do not probe a restarted server in step. */
export function probeBackoffMs(
  failures: number,
  probeIntervalMs: number,
  maxProbeIntervalMs: number,
  random: () => number = Math.random,
): number {
  const base = Math.min(maxProbeIntervalMs, probeIntervalMs * 2 ** Math.min(20, failures - 1));
  return Math.round(base * (0.75 + random() * 0.5));
}

class ServerEndpoint {
  readonly address: ServerAddress;
  readonly name: string;
  state: IdClientServerInfo['state'] = 'down';
  connections: ProtocolConnection[] = [];
  welcome: Welcome | undefined;
  failures = 0;
  probe: Promise<void> | undefined;
  timer: TimerHandle | undefined;

  constructor(address: ServerAddress) {
    this.address = address;
    this.name = formatServerAddress(address);
  }

  get usable(): boolean {
    return this.state === 'up' && this.connections.length > 0;
  }

  leastLoaded(): ProtocolConnection {
    return this.connections.reduce((best, c) => (c.inFlight < best.inFlight ? c : best));
  }

  info(): IdClientServerInfo {
    return {
      server: this.name,
      state: this.state,
      machine: this.welcome?.machine,
      inFlight: this.connections.reduce((sum, c) => sum + c.inFlight, 0),
    };
  }
}

const remoteId = (c: ProtocolConnection): Promise<bigint> => c.generateOne();
const localId = (f: EmbeddedIdService): Promise<bigint> => f.genId();

/**
 * The central-mode client: calls go round-robin over the servers up, move on after a timeout or
 * broken connection (a retried generate may waste ids, never duplicate them), end at once on a
 * caller's error, and go to the `fallback` once no server answers. Build it with {@link createIdClient}.
 */
export class IdClient extends EventEmitter<IdClientEvents> implements IdService {
  readonly #options: ResolvedIdClientOptions;
  readonly #endpoints: readonly ServerEndpoint[];
  readonly #layout: ServerLayoutReference;
  readonly #metrics: ClientMetrics;
  readonly #prefetch: PrefetchBuffer | undefined;
  #next = 0;
  #closed = false;
  #fallback: EmbeddedIdService | undefined;
  #fallbackMaxBatch = Number.MAX_SAFE_INTEGER;
  /** Issuing locally since no server answered, until one does. */
  #fallingBack = false;
  #lastIssuer: IdIssuer | undefined;
  /** The smallest `maxBatch` of the servers seen up. */
  #serversMaxBatch = Number.MAX_SAFE_INTEGER;
  #stopKeepAlive: (() => void) | undefined;

  /** @internal Use {@link createIdClient}. */
  constructor(options: ResolvedIdClientOptions) {
    super();
    this.#options = options;
    this.#metrics = createClientMetrics(options.registry);
    this.#layout = new ServerLayoutReference(options);
    this.#endpoints = options.servers.map((address) => new ServerEndpoint(address));
    if (options.prefetch !== undefined) {
      const ids = (count: number): Promise<bigint[]> => this.#ids(count);
      const max = (): number => this.#maxBatch();
      this.#prefetch = new PrefetchBuffer(ids, options.prefetch, options.time, max, this.#metrics);
    }
  }

  /** @internal */
  async start(): Promise<void> {
    await Promise.all(this.#endpoints.map((e) => this.#probe(e)));
    if (this.#layout.reference === undefined) {
      if (this.#options.fallback === undefined) {
        await this.close();
        const names = this.#endpoints.map((e) => e.name).join(', ');
        const message = `none of ${names} answered a handshake`;
        throw new VestaError('NO_SERVER_AVAILABLE', message);
      }
      this.#layout.assumeStandard(DEFAULT_EPOCH_MS);
    }
    try {
      await this.#startFallback();
    } catch (error) {
      await this.close();
      throw error;
    }
    const every = Math.max(5, Math.floor(this.#options.keepAliveMs / 2));
    this.#stopKeepAlive = startKeepAlive(this.#options.time, every, () => this.#pingIdle());
  }

  /** With `prefetch`, from the buffer without a round trip when it holds an id. */
  genId(): Promise<bigint> {
    if (this.#prefetch !== undefined) return this.#prefetch.next();
    return this.#call(remoteId, localId, 1);
  }

  async genIds(count: number): Promise<bigint[]> {
    checkBatchCount(count, this.#maxBatch());
    const buffered = this.#prefetch?.takeRun(count);
    if (buffered !== undefined) return buffered;
    return this.#ids(count);
  }

  /** A server's UUIDv7 (the fallback's while falling back); never prefetched: its time is the call's. */
  async genUuid(): Promise<string> {
    const [uuid] = await this.genUuids(1);
    return uuid as string;
  }

  /** `count` UUIDv7s (1 to the servers' `maxBatch`), strictly increasing, from one server. */
  genUuids(count: number): Promise<string[]> {
    checkBatchCount(count, this.#maxBatch());
    const local = (f: EmbeddedIdService): Promise<string[]> => f.genUuids(count);
    return this.#call((c) => c.generateUuids(count), local, count);
  }

  /** The next number of `key` from any server (increasing per server, not across them); never from the fallback. */
  async segment(key: string): Promise<bigint> {
    const [n] = await this.segments(key, 1);
    return n as bigint;
  }

  /** The next `n` numbers of `key` (1 to the servers' `maxBatch`), from one server. */
  async segments(key: string, n: number): Promise<bigint[]> {
    checkBatchCount(n, this.#serversMaxBatch);
    return this.#call((c) => c.segments(key, n), undefined, n, SEGMENT_BUSY);
  }

  /** The servers' generator `name` (the fallback's own ids while falling back); its `close()` does nothing. */
  generator(name: string): IdService {
    checkGeneratorName(name);
    return {
      genId: () => this.#call((c) => c.generateOne(name), localId, 1),
      genIds: (count) => {
        checkBatchCount(count, this.#maxBatch());
        return this.#ids(count, name);
      },
      genUuid: () => this.genUuid(),
      genUuids: (count) => this.genUuids(count),
      expId: (id, form) => this.expId(id, form),
      formatId: (id, form) => this.formatId(id, form),
      parseId: (text, form) => this.parseId(text, form),
      makeId: (fields) => this.makeId(fields),
      transTime: (time, type) => this.transTime(time, type),
      timeBounds: (fromMs, toMs, only) => this.timeBounds(fromMs, toMs, only),
      info: () => this.info(),
      health: () => this.health(),
      close: () => Promise.resolve(),
    };
  }

  expId(id: bigint | string, form?: IdForm): Id {
    return this.#layout.codec.expId(id, form);
  }

  formatId(id: bigint, form?: IdForm): string {
    return formatId(id, form);
  }

  parseId(text: string | bigint, form?: IdForm): bigint {
    return parseId(text, form);
  }

  makeId(fields: MakeIdFields): bigint {
    const { machine, genMethod } = this.#issuer();
    return this.#layout.codec.makeId(fields, { machine, genMethod, version: this.#version() });
  }

  transTime(time: number, type?: IdType): Date {
    return this.#layout.codec.transTime(time, type);
  }

  timeBounds(fromMs: number, toMs: number, only?: TimeBoundsFilter): TimeBounds {
    return this.#layout.codec.timeBounds(fromMs, toMs, { version: this.#version(), ...only });
  }

  info(): IdClientInfo {
    const issuer = this.#issuer();
    return {
      ...this.#layout.codec.info(),
      machine: issuer.machine,
      genMethod: issuer.genMethod,
      version: this.#version(),
      populator: 'sync',
      maxBatch: this.#maxBatch(),
      mode: this.#fallingBack ? 'fallback' : 'servers',
      servers: this.#endpoints.map((e) => e.info()),
      prefetch: this.#prefetch?.info(),
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

  /** Drops prefetched ids, lets requests in flight finish (up to the request timeout), closes connections and the fallback. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#prefetch?.close();
    this.#stopKeepAlive?.();
    const closing: Promise<void>[] = [];
    for (const e of this.#endpoints) {
      e.timer?.cancel();
      for (const c of e.connections) closing.push(c.close(this.#options.requestTimeoutMs));
      e.connections = [];
      e.state = 'down';
    }
    try {
      await Promise.all(closing);
      await Promise.all(this.#probes());
    } finally {
      await this.#fallback?.close();
    }
  }

  /** Starts the fallback in the servers' layout; it holds its machine id until closed. */
  async #startFallback(): Promise<void> {
    const { fallback: options, logger } = this.#options;
    if (options === undefined) return;
    const ref = this.#layout.reference as Reference;
    const service = await createEmbeddedIdService({
      ...options,
      type: ref.type,
      epoch: ref.epochMs,
      layout: ref.layoutSpec,
      version: ref.version,
      logger,
    });
    const provider = options.machineIdProvider;
    if (provider === undefined || provider instanceof StaticMachineIdProvider) {
      logger.warn(
        { machineId: service.info().machine },
        'the client fallback issues on a fixed machine id: clients on several hosts that share ' +
          'this configuration issue the same ids while no server answers (only clients on one ' +
          'host refuse each other); give each host its own machineId, or fallback.machineIdProvider ' +
          "(a coordinator's, e.g. RedisMachineIdProvider, or StatefulSetOrdinalMachineIdProvider)",
      );
    }
    this.#fallback = service;
    this.#fallbackMaxBatch = service.info().maxBatch;
  }

  /** Who issued the last id, else a server up, else the fallback, else machine 0 of genMethod 1. */
  #issuer(): IdIssuer {
    if (this.#lastIssuer !== undefined) return this.#lastIssuer;
    const up = this.#endpoints.find((e) => e.welcome !== undefined)?.welcome;
    if (up !== undefined) return up;
    if (this.#fallback !== undefined) return localIssuer(this.#fallback);
    return { machine: 0, genMethod: GenMethod.CENTRAL_SERVER };
  }

  /** `busy` answers move on, the server kept; busy everywhere ends with that (a fallback would hide it). */
  async #call<T>(
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
        if (this.#fallingBack) this.#recovered(endpoint.name);
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
        if (endpoint.connections.includes(connection)) this.#markDown(endpoint, error);
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
      const message = `no id server answered${lastError === undefined ? '' : `: ${lastError.message}`}`;
      throw new VestaError('NO_SERVER_AVAILABLE', message + why, { cause: lastError });
    }
    if (!this.#fallingBack) {
      this.#fallingBack = true;
      this.#metrics.fallbacks.inc();
      const err = lastError?.message ?? 'no server up';
      this.#options.logger.warn({ err }, 'no id server answers; issuing ids locally (fallback)');
      this.emit('fallback', { error: lastError });
    }
    const result = await local(fallback);
    this.#metrics.fallbackIds.inc(count);
    this.#lastIssuer = localIssuer(fallback);
    return result;
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

  #probe(e: ServerEndpoint): Promise<void> {
    if (e.probe !== undefined || this.#closed) return e.probe ?? Promise.resolve();
    e.state = 'connecting';
    e.timer = undefined;
    const o = this.#options;
    e.probe = (async () => {
      const settled = await Promise.allSettled(
        Array.from({ length: o.connectionsPerServer }, () =>
          ProtocolConnection.connect(e.address, o),
        ),
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
      this.#serversMaxBatch = Math.min(this.#serversMaxBatch, welcome.maxBatch);
      for (const c of connections) this.#watch(e, c);
      o.logger.info({ server: e.name, machine: welcome.machine }, 'id server up');
      this.emit('serverUp', { server: e.name, machine: welcome.machine });
    })().finally(() => {
      e.probe = undefined;
    });
    return e.probe;
  }

  #twinCheck(e: ServerEndpoint, machine: number): VestaError | undefined {
    const twin = this.#endpoints.find(
      (o) => o !== e && o.state === 'up' && o.welcome?.machine === machine,
    );
    if (twin === undefined) return undefined;
    const message = `${e.name} and ${twin.name} both issue under machine id ${machine}: their ids would collide`;
    return new VestaError('HANDSHAKE_MISMATCH', message, { details: { server: e.name, machine } });
  }

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

  #recovered(server: string): void {
    this.#fallingBack = false;
    this.#options.logger.info({ server }, 'id servers answer again; leaving fallback');
    this.emit('recovered', { server });
  }

  #log(level: 'warn' | 'error', e: ServerEndpoint, error: VestaError, message: string): void {
    this.#options.logger[level]({ server: e.name, code: error.code, err: error.message }, message);
  }

  #markDown(e: ServerEndpoint, error: VestaError): void {
    if (e.state !== 'up') return;
    const connections = e.connections;
    e.connections = [];
    this.#fail(e, 'down');
    this.#metrics.serverDown.inc({ server: e.name });
    this.#log('warn', e, error, 'id server down');
    for (const c of connections) {
      if (error.code === 'SERVICE_CLOSED') void c.close(this.#options.requestTimeoutMs);
      else c.destroy(error);
    }
    this.emit('serverDown', { server: e.name, error });
    this.#schedule(e);
  }

  #down(e: ServerEndpoint, error: VestaError): void {
    this.#fail(e, 'down');
    if (e.failures === 1) this.#log('warn', e, error, 'id server unreachable');
    this.#schedule(e);
  }

  #refuse(e: ServerEndpoint, error: VestaError): void {
    this.#fail(e, 'refused');
    this.#log('error', e, error, 'id server refused');
    this.emit('serverRefused', { server: e.name, error });
    this.#schedule(e, this.#options.maxProbeIntervalMs);
  }

  /** Counts a failure of `e`, before anything is told of it (a listener sees `e` as it is). */
  #fail(e: ServerEndpoint, state: 'down' | 'refused'): void {
    e.state = state;
    e.failures++;
  }

  /** Probes `e` again, backed off from `firstMs`. */
  #schedule(e: ServerEndpoint, firstMs = this.#options.probeIntervalMs): void {
    if (this.#closed || e.timer !== undefined) return;
    const o = this.#options;
    const wait = probeBackoffMs(e.failures, firstMs, o.maxProbeIntervalMs);
    e.timer = o.time
      .setTimer(() => {
        e.timer = undefined;
        void this.#probe(e);
      }, wait)
      .unref();
  }

  #pingIdle(): void {
    const idleSince = this.#options.time.monotonic() - this.#options.keepAliveMs;
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

  #maxBatch(): number {
    return Math.min(this.#serversMaxBatch, this.#fallbackMaxBatch);
  }

  /** `count` ids of the servers' generator `name` (their own when undefined), else the fallback's. */
  #ids(count: number, name?: string): Promise<bigint[]> {
    const local = (f: EmbeddedIdService): Promise<bigint[]> => f.genIds(count);
    return this.#call((c) => c.generate(count, name), local, count);
  }

  #version(): number {
    return this.#layout.reference?.version ?? 0;
  }
}

function retryAfterOf(error: VestaError): number | undefined {
  const ms = error.details?.['retryAfterMs'];
  return typeof ms === 'number' ? ms : undefined;
}

function localIssuer(fallback: EmbeddedIdService): IdIssuer {
  return { machine: fallback.info().machine, genMethod: GenMethod.EMBEDDED };
}

/** Of two OVERLOADED answers, the one that asks for the shorter wait (a hint-less one: longest). */
function sooner(a: VestaError | undefined, b: VestaError): VestaError {
  return a === undefined || (retryAfterOf(b) ?? Infinity) < (retryAfterOf(a) ?? Infinity) ? b : a;
}

/** Every tried server answered OVERLOADED: the shortest wait any asked for. */
function overloadedEverywhere(overloaded: VestaError, servers: number): VestaError {
  const hint = retryAfterOf(overloaded);
  const details = { servers, ...(hint === undefined ? {} : { retryAfterMs: hint }) };
  const message = `every id server tried is overloaded: ${overloaded.message}`;
  return new VestaError('OVERLOADED', message, { cause: overloaded, details });
}

/**
 * Connects to central id servers, resolving once each was tried (one must answer, unless
 * `fallback` or `type` and `epoch` are given). INVALID_OPTIONS, NO_SERVER_AVAILABLE.
 * @example
 * const ids = await createIdClient({ servers: ['127.0.0.1:7070', '127.0.0.1:7071'], fallback: { machineId: 17 } });
 * const id = await ids.genId();
 * ids.expId(id); // decoded locally, with the layout learned in the handshake
 * await ids.close();
 */
export async function createIdClient(options: IdClientOptions): Promise<IdClient> {
  const client = new IdClient(resolveIdClientOptions(options));
  await client.start();
  return client;
}
