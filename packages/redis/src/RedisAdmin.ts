import {
  defineAdminOptions,
  type CoordinatorAdminOptions,
  withAdminSession,
  listAllocations,
  releaseAllocation,
  initLeaseStore,
  type LeaseAllocation,
  type LeaseStoreInit,
  type ReleaseOutcome,
} from '@vesta/lease';
import { redisMachineIdOptions, type RedisMachineIdOptions } from './RedisMachineIdOptions.js';
import { RedisConnection } from './redis/RedisConnection.js';
import { RedisLayout } from './redis/RedisLayout.js';
import { REDIS_SCRIPTS } from './redis/REDIS_SCRIPTS.js';
import { decodeRedisIdRecord, type RedisIdRecord } from './redis/readRedisClaimSnapshot.js';

/** The provider's options an admin connects with (their declarations and TSDoc are the provider's). */
const CONNECTION = { url: true, prefix: true } as const;

/** The declaration of {@link RedisAdminOptions}: the provider's connection, a deadline. */
const redisAdminOptions = defineAdminOptions(
  'Redis',
  redisMachineIdOptions.schema.pick(CONNECTION).shape,
);

/** Options of {@link RedisAdmin}: the provider's connection options and `timeoutMs`. */
export type RedisAdminOptions = Pick<RedisMachineIdOptions, keyof typeof CONNECTION> &
  CoordinatorAdminOptions;

/**
 * One machine id's allocation, as {@link RedisAdmin.list} reports it: `alive` when a live lease
 * holds it, `ageMs` on Redis's clock.
 */
export type RedisMachineIdAllocation = LeaseAllocation;

/** How many keys a refused init reports (it names five, then "and more"). */
const INIT_FOUND_LIMIT = 6;

/** An id's allocation from its record and its live key (age 0 unless given). */
function allocationOf(
  machineId: number,
  record: RedisIdRecord,
  alive: boolean,
  ageMs = 0,
): RedisMachineIdAllocation {
  const { owner, markMs, host, pid } = record;
  return { machineId, owner, alive, markMs, ageMs, host, pid };
}

/**
 * Operators' view of a fleet's allocations in Redis: list them, release an id by hand, declare a
 * prefix new.
 */
export class RedisAdmin {
  readonly #url: string;
  readonly #layout: RedisLayout;
  readonly #timeoutMs: number;

  /** Validates the options (INVALID_OPTIONS); connects on each call. */
  constructor(options: RedisAdminOptions) {
    const o = redisAdminOptions.resolve(options);
    this.#url = o.url;
    this.#layout = new RedisLayout(o.prefix);
    this.#timeoutMs = o.timeoutMs;
  }

  /** Every allocated id under the prefix, in id order. */
  async list(): Promise<RedisMachineIdAllocation[]> {
    return this.#with(async (conn) => {
      const ids = await conn.run((r) => r.smembers(this.#layout.ids));
      const nowMs = await conn.nowMs();
      return listAllocations(ids, async (machineId) => {
        const { record, alive } = await this.#read(conn, machineId);
        if (record === undefined) return undefined;
        return allocationOf(machineId, record, alive, Math.max(0, nowMs - record.touchedMs));
      });
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
    const L = this.#layout;
    return this.#with((conn) =>
      releaseAllocation(machineId, options, `under ${L.prefix}`, async () => {
        const { hash, record, alive } = await this.#read(conn, machineId);
        if (Object.keys(hash).length === 0) return undefined;
        if (record === undefined) return 'unreadable';
        return {
          allocation: allocationOf(machineId, record, alive),
          release: async () => {
            const [outcome] = (await conn.eval(
              REDIS_SCRIPTS.adminRelease,
              [L.id(machineId), L.live(machineId), L.key(record.owner ?? '')],
              [record.version, options.force === true ? '1' : '0', machineId],
            )) as [string];
            return outcome === 'ok' ? 'released' : (outcome as ReleaseOutcome);
          },
        };
      }),
    );
  }

  /**
   * Declares the prefix new (`vesta machine-ids init`): creates its allocation era OPEN, so the
   * first start takes an id at once instead of waiting out `eraWaitMs`; in one script, and only
   * when no key at all lies under the prefix (no era, id record, live key or key mapping). Only
   * for a Redis known to be new: one that lost its data looks just as empty, while holders of the
   * lost data may still be issuing (the era wait covers them). Errors: COORDINATOR_NOT_NEW
   * naming the keys found.
   */
  async init(): Promise<LeaseStoreInit> {
    const L = this.#layout;
    return this.#with((conn) =>
      initLeaseStore(`Redis under prefix ${L.prefix}`, async (era) => {
        // The prefix is letters, digits and . _ - : / only: nothing in the pattern is a glob.
        const [outcome, ...found] = (await conn.eval(
          REDIS_SCRIPTS.initEra,
          [L.era],
          [era, `{${L.prefix}}:*`, INIT_FOUND_LIMIT],
        )) as string[];
        return outcome === 'ok' ? { created: true } : { found };
      }),
    );
  }

  async #read(conn: RedisConnection, machineId: number) {
    const [hash, live] = await Promise.all([
      conn.run((r) => r.hgetall(this.#layout.id(machineId))),
      conn.run((r) => r.exists(this.#layout.live(machineId))),
    ]);
    return { hash, record: decodeRedisIdRecord(hash), alive: live === 1 };
  }

  async #with<T>(work: (conn: RedisConnection) => Promise<T>): Promise<T> {
    const session = {
      store: 'Redis',
      open: () =>
        new RedisConnection(this.#url, {
          connectTimeoutMs: this.#timeoutMs,
          operationTimeoutMs: this.#timeoutMs,
        }),
      close: (conn: RedisConnection) => conn.close(),
    };
    return withAdminSession(session, async (conn) => {
      await conn.connect();
      return work(conn);
    });
  }
}
