import { EventEmitter } from 'node:events';
import {
  formatId,
  parseId,
  VestaError,
  type Id,
  type IdForm,
  type IdService,
  type IdServiceHealth,
  type IdType,
  type MakeIdFields,
  type TimeBounds,
  type TimeBoundsFilter,
} from '@vesta/core';
import { checkGeneratorName, DEFAULT_EPOCH_MS, checkBatchCount } from '@vesta/core/kit';
import type { EmbeddedIdService } from '@vesta/embedded';
import { createClientMetrics, type ClientMetrics } from './ClientMetrics.js';
import { EndpointPool, SEGMENT_BUSY } from './EndpointPool.js';
import type { IdClientEvents } from './IdClientEvents.js';
import type { IdClientInfo } from './IdClientInfo.js';
import {
  resolveIdClientOptions,
  type IdClientOptions,
  type ResolvedIdClientOptions,
} from './IdClientOptions.js';
import { PrefetchBuffer } from './PrefetchBuffer.js';
import type { ProtocolConnection } from './ProtocolConnection.js';
import { ServerLayoutReference } from './ServerLayoutReference.js';

const remoteId = (c: ProtocolConnection): Promise<bigint> => c.generateOne();
const localId = (f: EmbeddedIdService): Promise<bigint> => f.genId();

/**
 * The central-mode client: an id service over id servers with failover (a retried generate may
 * waste ids, never duplicate them), one layout they agree on (decoded locally), an optional
 * local `fallback` (genMethod 0) and `prefetch`. Build it with {@link createIdClient}.
 */
export class IdClient extends EventEmitter<IdClientEvents> implements IdService {
  readonly #options: ResolvedIdClientOptions;
  readonly #pool: EndpointPool;
  readonly #layout: ServerLayoutReference;
  readonly #metrics: ClientMetrics;
  #fallbackMaxBatch = Number.MAX_SAFE_INTEGER;
  #fallback: EmbeddedIdService | undefined;
  readonly #prefetch: PrefetchBuffer | undefined;
  #closed = false;

  /** @internal Use {@link createIdClient}. */
  constructor(options: ResolvedIdClientOptions) {
    super();
    this.#options = options;
    this.#metrics = createClientMetrics(options.registry);
    this.#layout = new ServerLayoutReference(options);
    this.#pool = new EndpointPool(options, this.#layout, this.#metrics, this);
    if (options.prefetch !== undefined) {
      const ids = (count: number): Promise<bigint[]> => this.#ids(count);
      const max = (): number => this.#maxBatch();
      this.#prefetch = new PrefetchBuffer(ids, options.prefetch, options.time, max, this.#metrics);
    }
  }

  /** @internal */
  async start(): Promise<void> {
    await this.#pool.connect();
    if (this.#layout.reference === undefined) {
      if (this.#options.fallback === undefined) {
        await this.close();
        const message = `none of ${this.#pool.names()} answered a handshake`;
        throw new VestaError('NO_SERVER_AVAILABLE', message);
      }
      this.#layout.assumeStandard(DEFAULT_EPOCH_MS);
    }
    try {
      this.#fallback = await this.#pool.startFallback();
    } catch (error) {
      await this.close();
      throw error;
    }
    if (this.#fallback !== undefined) this.#fallbackMaxBatch = this.#fallback.info().maxBatch;
    this.#pool.startKeepAlive();
  }

  /** With `prefetch`, from the buffer without a round trip when it holds an id. */
  genId(): Promise<bigint> {
    if (this.#prefetch !== undefined) return this.#prefetch.next();
    return this.#pool.call(remoteId, localId, 1);
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
    return this.#pool.call((c) => c.generateUuids(count), local, count);
  }

  /**
   * The next number of the segment key `key` from any server of one segment store (increasing
   * per server, not across them); never from the fallback. SEGMENT_KEY_UNKNOWN,
   * SEGMENT_SEQUENCE_OVERFLOW and INVALID_ARGUMENT are answered at once.
   */
  async segment(key: string): Promise<bigint> {
    const [n] = await this.segments(key, 1);
    return n as bigint;
  }

  /** The next `n` numbers of `key` (1 to the servers' `maxBatch`), from one server. */
  async segments(key: string, n: number): Promise<bigint[]> {
    checkBatchCount(n, this.#pool.maxBatch);
    return this.#pool.call((c) => c.segments(key, n), undefined, n, SEGMENT_BUSY);
  }

  /**
   * The servers' generator `name`: its ids are asked for under that name (the fallback's own
   * while falling back), the rest is this client's. UNKNOWN_GENERATOR, INVALID_ARGUMENT. Its
   * `close()` does nothing.
   */
  generator(name: string): IdService {
    checkGeneratorName(name);
    return {
      genId: () => this.#pool.call((c) => c.generateOne(name), localId, 1),
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
    const { machine, genMethod } = this.#pool.issuer();
    return this.#layout.codec.makeId(fields, { machine, genMethod, version: this.#version() });
  }

  transTime(time: number, type?: IdType): Date {
    return this.#layout.codec.transTime(time, type);
  }

  timeBounds(fromMs: number, toMs: number, only?: TimeBoundsFilter): TimeBounds {
    return this.#layout.codec.timeBounds(fromMs, toMs, { version: this.#version(), ...only });
  }

  info(): IdClientInfo {
    const issuer = this.#pool.issuer();
    return {
      ...this.#layout.codec.info(),
      machine: issuer.machine,
      genMethod: issuer.genMethod,
      version: this.#version(),
      populator: 'sync',
      maxBatch: this.#maxBatch(),
      mode: this.#pool.fallingBack ? 'fallback' : 'servers',
      servers: this.#pool.info(),
      prefetch: this.#prefetch?.info(),
    };
  }

  health(): IdServiceHealth {
    if (this.#closed)
      return { ok: false, code: 'SERVICE_CLOSED', message: 'the id client is closed' };
    if (this.#pool.anyUp()) return { ok: true };
    if (this.#fallback !== undefined) return this.#fallback.health();
    return {
      ok: false,
      code: 'NO_SERVER_AVAILABLE',
      message: 'no id server is up and no fallback is configured',
    };
  }

  /** Drops prefetched ids, lets requests in flight finish, closes connections and the fallback. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#prefetch?.close();
    try {
      await this.#pool.close();
    } finally {
      await this.#fallback?.close();
    }
  }

  #maxBatch(): number {
    return Math.min(this.#pool.maxBatch, this.#fallbackMaxBatch);
  }

  /** `count` ids of the servers' generator `name` (their own when undefined), else the fallback's. */
  #ids(count: number, name?: string): Promise<bigint[]> {
    const local = (f: EmbeddedIdService): Promise<bigint[]> => f.genIds(count);
    return this.#pool.call((c) => c.generate(count, name), local, count);
  }

  #version(): number {
    return this.#layout.reference?.version ?? 0;
  }
}

/**
 * Connects to central id servers, resolving once each was tried (one must answer, unless
 * `fallback` or `type` and `epoch` are given). INVALID_OPTIONS, NO_SERVER_AVAILABLE.
 *
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
