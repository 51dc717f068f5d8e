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
import { ClientFallback } from './ClientFallback.js';
import { createClientMetrics, type ClientMetrics } from './ClientMetrics.js';
import { EndpointPool, SEGMENT_BUSY } from './EndpointPool.js';
import type { IdClientEvents } from './IdClientEvents.js';
import type { IdClientInfo } from './IdClientInfo.js';
import type { ResolvedIdClientOptions } from './IdClientOptions.js';
import { PrefetchBuffer } from './PrefetchBuffer.js';
import { ServerLayoutReference } from './ServerLayoutReference.js';

/**
 * The central-mode client: the embedded service's surface, with ids from a set of peer id
 * servers. Requests are pipelined and spread round-robin over the servers that are up; a
 * timeout or a broken connection marks a server down (probed back with backoff) and the call
 * is retried on another server (a retried generate may waste ids, never duplicate them): that
 * failover is the {@link EndpointPool}'s, this class is the service's facade over it. The servers must agree on one layout
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
  /** The fallback's `maxBatch` (the servers' is the pool's). */
  #fallbackMaxBatch = Number.MAX_SAFE_INTEGER;
  #fallback: ClientFallback | undefined;
  readonly #prefetch: PrefetchBuffer | undefined;
  readonly #prefetchSize: (() => number) | undefined;
  #closed = false;

  /** @internal Use {@link createIdClient}. */
  constructor(options: ResolvedIdClientOptions) {
    super();
    this.#options = options;
    this.#metrics = createClientMetrics(options.registry);
    this.#layout = new ServerLayoutReference(
      { type: options.type, epochMs: options.epochMs, layout: options.layout },
      options.logger,
      options.time,
    );
    this.#pool = new EndpointPool(options, this.#layout, this.#metrics, this);
    if (options.prefetch !== undefined) {
      const prefetch = new PrefetchBuffer(
        (count) => {
          this.#metrics.prefetchRefills.inc();
          return this.#pool.call(
            (c) => c.generate(count),
            (f) => f.genIds(count),
            count,
          );
        },
        options.prefetch,
        options.time,
        () => this.#maxBatch(),
        (count) => this.#metrics.prefetchStaleIds.inc(count),
      );
      this.#prefetch = prefetch;
      this.#prefetchSize = () => prefetch.size;
      this.#metrics.prefetchBuffered.add(this.#prefetchSize);
    }
  }

  /** @internal Connects to every server once; then builds the fallback. */
  async start(): Promise<void> {
    await this.#pool.connect();
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
      try {
        this.#fallback = await ClientFallback.create(
          fallback,
          ref,
          this.#options.logger,
          this.#metrics,
          this,
        );
      } catch (error) {
        await this.close();
        throw error;
      }
      this.#pool.useFallback(this.#fallback);
      this.#fallbackMaxBatch = this.#fallback.service.info().maxBatch;
    }
    this.#pool.startKeepAlive();
  }

  /** With `prefetch`, from the buffer without a round trip when it holds an id. */
  genId(): Promise<bigint> {
    if (this.#prefetch !== undefined) return this.#prefetch.next();
    return this.#pool.call(
      (c) => c.generateOne(),
      (f) => f.genId(),
      1,
    );
  }

  async genIds(count: number): Promise<bigint[]> {
    checkBatchCount(count, this.#maxBatch());
    // From the buffer only when it holds `count` ids in strictly increasing order.
    const buffered = this.#prefetch?.takeRun(count);
    if (buffered !== undefined) return buffered;
    return this.#pool.call(
      (c) => c.generate(count),
      (f) => f.genIds(count),
      count,
    );
  }

  /**
   * One UUIDv7 of a server (GENERATE_UUID), with the same failover as ids; while the client
   * falls back, of the fallback (its own machine id). Never from the prefetch buffer: a UUID
   * is made at its request, its time is the call's.
   */
  async genUuid(): Promise<string> {
    const [uuid] = await this.genUuids(1);
    return uuid as string;
  }

  /** `count` UUIDv7s (1 to the servers' `maxBatch`), strictly increasing, from one server. */
  genUuids(count: number): Promise<string[]> {
    checkBatchCount(count, this.#maxBatch());
    return this.#pool.call(
      (c) => c.generateUuids(count),
      (f) => f.genUuids(count),
      count,
    );
  }

  /**
   * The next number of the segment key `key` (segment mode: SEGMENT, served by the servers'
   * `segments`), with the same failover as ids: servers on one segment store never hand out a
   * number twice, so a call may go to any of them; a server whose store is down
   * (COORDINATOR_UNAVAILABLE) passes the call on without being marked down. Numbers are strictly
   * increasing per server and key, not across servers. There is no local fallback: with no
   * server answering it is NO_SERVER_AVAILABLE even when the client has a `fallback` (a client
   * cannot make up numbers of a store). SEGMENT_KEY_UNKNOWN for a key the store does not have
   * (or servers without a store), SEGMENT_SEQUENCE_OVERFLOW for a key that ran out (it
   * served 2^63 - 2, the largest number), INVALID_ARGUMENT for a malformed key: answered at once, no server marked down.
   */
  async segment(key: string): Promise<bigint> {
    const [n] = await this.segments(key, 1);
    return n as bigint;
  }

  /** The next `n` numbers of `key` (1 to the servers' `maxBatch`), strictly increasing, from one server. */
  async segments(key: string, n: number): Promise<bigint[]> {
    checkBatchCount(n, this.#pool.maxBatch);
    return this.#pool.call((c) => c.segments(key, n), undefined, n, SEGMENT_BUSY);
  }

  /**
   * The servers' generator `name` (a GENERATE with a key; see the servers' `generators`
   * option): `genId`/`genIds` ask for ids under that name, with the same failover; the rest
   * (decoding, making, info) is this client's. A name the servers do not know is
   * UNKNOWN_GENERATOR, a malformed one INVALID_ARGUMENT. While the client falls back to local
   * issuing, every name is issued by the fallback's own generator (unique across all names).
   * Its UUIDs are the servers' own generator's (a UUID carries no name).
   * Its `close()` does nothing; close the client.
   */
  generator(name: string): IdService {
    checkGeneratorName(name);
    return {
      genId: () =>
        this.#pool.call(
          (c) => c.generateOne(name),
          (f) => f.genId(),
          1,
        ),
      genIds: (count) => {
        checkBatchCount(count, this.#maxBatch());
        return this.#pool.call(
          (c) => c.generate(count, name),
          (f) => f.genIds(count),
          count,
        );
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

  /** Local: the forms need no server. */
  formatId(id: bigint, form?: IdForm): string {
    return formatId(id, form);
  }

  /** Local: the forms need no server. */
  parseId(text: string | bigint, form?: IdForm): bigint {
    return parseId(text, form);
  }

  makeId(fields: MakeIdFields): bigint {
    const issuer = this.#pool.issuer();
    return this.#layout.codec.makeId(fields, {
      machine: issuer.machine,
      genMethod: issuer.genMethod,
      version: this.#version(),
    });
  }

  transTime(time: number, type?: IdType): Date {
    return this.#layout.codec.transTime(time, type);
  }

  /** Local, with the servers' layout and version. */
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
      mode: this.#fallback?.active === true ? 'fallback' : 'servers',
      servers: this.#pool.info(),
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
   * flight finish (up to the request timeout), closes every connection and the fallback (which
   * gives its machine id back: a coordinator's lease is released).
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#prefetch?.close();
    if (this.#prefetchSize !== undefined) this.#metrics.prefetchBuffered.delete(this.#prefetchSize);
    try {
      await this.#pool.close();
    } finally {
      // The fallback's machine id (a coordinator's lease) goes back whatever the pool did.
      await this.#fallback?.close();
    }
  }

  /** The largest batch every server seen and the fallback take. */
  #maxBatch(): number {
    return Math.min(this.#pool.maxBatch, this.#fallbackMaxBatch);
  }

  #version(): number {
    return this.#layout.reference?.version ?? 0;
  }
}
