import { VestaError } from '@vesta/core';
import { checkRedisPrefix, checkRedisUrl } from './RedisMachineIdOptions.js';
import { RedisConnection } from './redis/RedisConnection.js';
import { RedisLayout } from './redis/RedisLayout.js';
import { REDIS_SCRIPTS } from './redis/REDIS_SCRIPTS.js';
import { decodeRedisIdRecord } from './redis/readRedisClaimSnapshot.js';

const RELEASE_ATTEMPTS = 5;

/** Options of {@link RedisAdmin}. */
export interface RedisAdminOptions {
  /** The Redis server, `redis://host:port[/db]`. */
  readonly url: string;
  /** The fleet's key prefix. @default 'vesta' */
  readonly prefix?: string;
  /** Deadline of the connection and of each request. @default 5000 */
  readonly timeoutMs?: number;
}

/** One machine id's allocation, as {@link RedisAdmin.list} reports it. */
export interface RedisMachineIdAllocation {
  readonly machineId: number;
  /** The owner's key; null when released. */
  readonly owner: string | null;
  /** Whether a live lease holds it now. */
  readonly alive: boolean;
  /** The last published time mark (Unix ms). */
  readonly markMs: number;
  /** Milliseconds since the owner last raised the mark (Redis's clock). */
  readonly ageMs: number;
  readonly host: string | undefined;
  readonly pid: number | undefined;
}

/** Operators' view of a fleet's allocations in Redis: list them, release an id by hand. */
export class RedisAdmin {
  readonly #url: string;
  readonly #layout: RedisLayout;
  readonly #timeoutMs: number;

  constructor(options: RedisAdminOptions) {
    this.#url = checkRedisUrl(options.url);
    this.#layout = new RedisLayout(checkRedisPrefix(options.prefix ?? 'vesta'));
    const timeoutMs = options.timeoutMs ?? 5000;
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1) {
      throw new VestaError(
        'INVALID_OPTIONS',
        `timeoutMs must be a positive whole number, got ${String(timeoutMs)}`,
      );
    }
    this.#timeoutMs = timeoutMs;
  }

  /** Every allocated id under the prefix, in id order. */
  async list(): Promise<RedisMachineIdAllocation[]> {
    return this.#with(async (conn) => {
      const L = this.#layout;
      const ids = (await conn.run((r) => r.smembers(L.ids)))
        .map(Number)
        .filter(Number.isInteger)
        .sort((a, b) => a - b);
      const nowMs = await conn.nowMs();
      const rows = await Promise.all(
        ids.map(async (machineId): Promise<RedisMachineIdAllocation | undefined> => {
          const [hash, live] = await Promise.all([
            conn.run((r) => r.hgetall(L.id(machineId))),
            conn.run((r) => r.exists(L.live(machineId))),
          ]);
          const record = decodeRedisIdRecord(hash);
          if (record === undefined) return undefined;
          return {
            machineId,
            owner: record.owner,
            alive: live === 1,
            markMs: record.markMs,
            ageMs: Math.max(0, nowMs - record.touchedMs),
            host: record.host,
            pid: record.pid,
          };
        }),
      );
      return rows.filter((r): r is RedisMachineIdAllocation => r !== undefined);
    });
  }

  /**
   * Releases an id: its owner is cleared (its mark stays, so whoever takes it next issues after
   * it) and its key mapping removed. A live id is refused with INVALID_ARGUMENT unless `force`,
   * which also drops the live key: the holder finds out at its next renewal and stops for good.
   */
  async release(
    machineId: number,
    options: { force?: boolean } = {},
  ): Promise<RedisMachineIdAllocation> {
    if (!Number.isInteger(machineId) || machineId < 0 || machineId > 1023) {
      throw new VestaError(
        'INVALID_ARGUMENT',
        `machine id must be a whole number from 0 to 1023, got ${String(machineId)}`,
      );
    }
    return this.#with(async (conn) => {
      const L = this.#layout;
      for (let attempt = 0; attempt < RELEASE_ATTEMPTS; attempt++) {
        const hash = await conn.run((r) => r.hgetall(L.id(machineId)));
        if (Object.keys(hash).length === 0) {
          throw new VestaError(
            'NOT_FOUND',
            `machine id ${machineId} is not allocated under ${L.prefix}`,
          );
        }
        const record = decodeRedisIdRecord(hash);
        if (record === undefined) {
          throw new VestaError(
            'INVALID_ARGUMENT',
            `machine id ${machineId} holds data this tool cannot read; refusing to touch it`,
          );
        }
        const alive = (await conn.run((r) => r.exists(L.live(machineId)))) === 1;
        const [outcome] = (await conn.eval(
          REDIS_SCRIPTS.adminRelease,
          [L.id(machineId), L.live(machineId), L.key(record.owner ?? '')],
          [record.version, options.force === true ? '1' : '0', machineId],
        )) as string[];
        if (outcome === 'live') {
          throw new VestaError(
            'INVALID_ARGUMENT',
            `machine id ${machineId} is held by a live instance (${record.owner ?? 'unknown'}); use --force to take it away`,
          );
        }
        if (outcome === 'missing') {
          throw new VestaError(
            'NOT_FOUND',
            `machine id ${machineId} is not allocated under ${L.prefix}`,
          );
        }
        if (outcome === 'ok') {
          return {
            machineId,
            owner: record.owner,
            alive,
            markMs: record.markMs,
            ageMs: 0,
            host: record.host,
            pid: record.pid,
          };
        }
      }
      throw new VestaError(
        'INVALID_ARGUMENT',
        `machine id ${machineId} changed while being released; try again`,
      );
    });
  }

  async #with<T>(work: (conn: RedisConnection) => Promise<T>): Promise<T> {
    const conn = new RedisConnection(this.#url, {
      connectTimeoutMs: this.#timeoutMs,
      operationTimeoutMs: this.#timeoutMs,
    });
    try {
      await conn.connect();
      return await work(conn);
    } finally {
      conn.close();
    }
  }
}
