import { hostname } from 'node:os';
import { VestaError } from '@vesta/core';
import { decodeJournalEntry, encodeJournalEntry, holdingOf, withDeadline } from '@vesta/lease';
import type { LeaseClaimant, LeaseEraState, LeaseJournalEntry, ReleaseOutcome } from '@vesta/lease';
import { Redis } from 'ioredis';
import type { ResolvedRedisMachineIdOptions as Resolved } from './RedisMachineIdOptions.js';

// Redis's clock (scripts replicate by effects, so TIME is allowed); the era check of every write.
const NOW = `local t = redis.call('TIME') local now = t[1] * 1000 + math.floor(t[2] / 1000)\n`;
const ERA = `if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then return 'era' end\n`;

/** The Lua scripts, each atomic, each answering 'ok' or why not; KEYS as `#eval` lists them. */
const SCRIPTS = {
  // ARGV token, pattern, limit: look and write in one script (SCAN: allowed without @dangerous).
  initEra: `local found, cursor = {}, '0'
repeat
  local page = redis.call('SCAN', cursor, 'MATCH', ARGV[2], 'COUNT', 1000) cursor = page[1]
  for _, key in ipairs(page[2]) do if #found < tonumber(ARGV[3]) then found[#found + 1] = key end end
until cursor == '0'
if #found > 0 then return found end
redis.call('HSET', KEYS[1], 'token', ARGV[1], 'open', '1') return 'ok'`,
  openEra: `${ERA}redis.call('HSET', KEYS[1], 'open', '1') return 'ok'`,
  // ARGV base, min, max, all, record fields → {now, own id, {id, live, record or false}...}: a
  // record only of the ids not live (of all with `all`) and the key's own; one round trip.
  readIds: `${NOW}local min, max, own = tonumber(ARGV[2]), tonumber(ARGV[3]), redis.call('GET', KEYS[5])
local rows = {tostring(now), own or ''}
for _, m in ipairs(redis.call('SMEMBERS', KEYS[4])) do
  local id = tonumber(m)
  if id and id == math.floor(id) and id >= min and id <= max then
    local live = redis.call('EXISTS', ARGV[1] .. ':live:' .. m)
    local read = live == 0 or m == own or ARGV[4] == '1'
    rows[#rows + 1] = {m, live, read and redis.call('HMGET', ARGV[1] .. ':id:' .. m, unpack(ARGV, 5))}
  end
end
return rows`,
  // ARGV token, version, ttlMs, machineId, stable, instance, the record's fields and values
  claim: `${NOW}${ERA}if redis.call('HGET', KEYS[1], 'open') ~= '1' then return 'era' end
if redis.call('EXISTS', KEYS[3]) == 1 then return 'live' end
local v = tonumber(redis.call('HGET', KEYS[2], 'version') or '0')
if v ~= tonumber(ARGV[2]) then return 'raced' end
redis.call('HSET', KEYS[2], 'touchedMs', now, 'version', v + 1, unpack(ARGV, 7))
redis.call('SET', KEYS[3], ARGV[6], 'PX', ARGV[3]) redis.call('SADD', KEYS[4], ARGV[4])
if ARGV[5] == '1' then redis.call('SET', KEYS[5], ARGV[4]) end return 'ok'`,
  // ARGV token, instance, markMs, ttlMs; never lowers the mark (a resent renewal may land late)
  renew: `${NOW}${ERA}if redis.call('HGET', KEYS[2], 'instance') ~= ARGV[2] then return 'moved' end
local live = redis.call('GET', KEYS[3])
if live and live ~= ARGV[2] then return 'moved' end
redis.call('SET', KEYS[3], ARGV[2], 'PX', ARGV[4])
local mark = math.max(tonumber(redis.call('HGET', KEYS[2], 'markMs') or '0'), tonumber(ARGV[3]))
redis.call('HSET', KEYS[2], 'markMs', string.format('%d', mark), 'touchedMs', now)
redis.call('HINCRBY', KEYS[2], 'version', 1) return 'ok'`,
  // ARGV token, instance, finalMarkMs, keepOwner
  release: `${NOW}${ERA}if redis.call('HGET', KEYS[2], 'instance') ~= ARGV[2] then return 'moved' end
redis.call('HSET', KEYS[2], 'markMs', ARGV[3], 'touchedMs', now)
if ARGV[4] ~= '1' then redis.call('HSET', KEYS[2], 'owner', '', 'instance', '') end
redis.call('HINCRBY', KEYS[2], 'version', 1) redis.call('DEL', KEYS[3]) return 'ok'`,
  // ARGV entry, retention
  append: `redis.call('RPUSH', KEYS[6], ARGV[1]) redis.call('LTRIM', KEYS[6], -ARGV[2], -1) return 'ok'`,
  // ARGV version, force, machineId → released | missing | raced | live
  adminRelease: `local v = redis.call('HGET', KEYS[2], 'version')
if not v then return 'missing' elseif v ~= ARGV[1] then return 'raced' end
if ARGV[2] ~= '1' and redis.call('EXISTS', KEYS[3]) == 1 then return 'live' end
redis.call('HSET', KEYS[2], 'owner', '', 'instance', '') redis.call('HINCRBY', KEYS[2], 'version', 1)
redis.call('DEL', KEYS[3])
if redis.call('GET', KEYS[5]) == ARGV[3] then redis.call('DEL', KEYS[5]) end
return 'released'`,
};

const FIELDS = ['owner', 'instance', 'host', 'markMs', 'touchedMs', 'version', 'pid'];
type IdRow = [id: string, live: number, fields: (string | null)[] | null];

/** A record's FIELDS (HMGET) decoded; undefined when absent or unreadable (never guessed). */
function decodeRecord(fields: (string | null)[] | null) {
  const [owner, instance, host, ...numbers] = fields ?? [];
  const [markMs = NaN, touchedMs = NaN, version = NaN, pid = NaN] = numbers.map((v) =>
    Number(v ?? NaN),
  );
  if (!fields || ![markMs, touchedMs, version].every(Number.isSafeInteger)) return undefined;
  const valid = Number.isSafeInteger(pid) && pid > 0;
  return {
    ...{ owner: owner || null, instance: instance || null, markMs, touchedMs, version },
    ...{ host: host || undefined, pid: valid ? pid : undefined },
  };
}

/** A connection to a fleet's keys; every request has a deadline (ioredis would queue it forever). */
export class RedisKeyspace {
  #redis: Redis;
  #closed = false;
  readonly #b: string;

  constructor(
    readonly o: Pick<Resolved, 'target' | 'prefix' | 'connectTimeoutMs' | 'operationTimeoutMs'> &
      Partial<Pick<Resolved, 'leaseTtlMs'>>,
  ) {
    this.#redis = this.#client();
    this.#b = `{${o.prefix}}`;
  }

  #client(): Redis {
    const retryStrategy = (times: number) => Math.min(50 * times, 500);
    const o = { connectTimeout: this.o.connectTimeoutMs, maxRetriesPerRequest: 1, retryStrategy };
    const redis = new Redis({ ...this.o.target.client, ...o, lazyConnect: true });
    redis.on('error', () => undefined); // failures surface through the requests
    return redis;
  }

  connect(): Promise<void> {
    return this.run((r) => r.connect(), this.o.connectTimeoutMs, 'connect').catch((e) => {
      this.close();
      throw e;
    });
  }

  run<T>(request: (redis: Redis) => Promise<T>, ms = this.o.operationTimeoutMs, what = 'answer') {
    const asked = Promise.resolve().then(() => request(this.#redis));
    const late = () => new Error(`Redis did not ${what} within ${ms} ms`);
    return withDeadline(asked, ms, late, { unref: true }).catch((cause: unknown) => {
      if (VestaError.is(cause)) throw cause;
      const [host, why] = [this.o.target.where, cause instanceof Error ? cause.message : cause];
      const details = { coordinator: 'redis', host };
      const message = `Redis at ${host} failed: ${String(why)}`;
      throw new VestaError('COORDINATOR_UNAVAILABLE', message, { cause, details });
    });
  }

  /** `script` on the keys of machine id `id` and key `key`; a boolean argument as '1' or '0'. */
  #eval(script: keyof typeof SCRIPTS, id: number, key: string, ...args: unknown[]) {
    const b = this.#b;
    const keys = [`${b}:era`, `${b}:id:${id}`, `${b}:live:${id}`, `${b}:ids`, `${b}:key:${key}`];
    const argv = args.map((a) => (typeof a === 'boolean' ? (a ? '1' : '0') : String(a)));
    return this.run((r) => r.eval(SCRIPTS[script], 6, ...keys, `${b}:history`, ...argv));
  }

  readonly ok = async (script: keyof typeof SCRIPTS, id: number, ...args: unknown[]) =>
    (await this.#eval(script, id, '', ...args)) === 'ok';

  async nowMs(): Promise<number> {
    const [s, us] = await this.run((r) => r.time());
    return Number(s) * 1000 + Math.floor(Number(us) / 1000);
  }

  /**
   * Leaves the connection for a new client, connected by the next request; what was asked on the
   * old one fails. ioredis's own reconnect would resend it (an abandoned renewal's `WAIT` then holds
   * the next renewal past its turn, abandoned in turn), and asked while connecting through Sentinel
   * it ends the client for good: a holder fenced forever after a failover.
   */
  readonly reconnect = (): void => {
    if (this.#closed) return;
    const old = this.#redis;
    this.#redis = this.#client();
    old.disconnect(false);
  };

  readonly close = (): void => {
    this.#closed = true;
    this.#redis.disconnect(false);
  };

  readonly eraStore = {
    readEra: async () => {
      const [token, open] = await this.run((r) => r.hmget(`${this.#b}:era`, 'token', 'open'));
      return token == null ? undefined : { era: token, open: open === '1' };
    },
    createEra: async (era: string) =>
      (await this.run((r) => r.hsetnx(`${this.#b}:era`, 'token', era))) === 1,
    openEra: async ({ era }: LeaseEraState) => void (await this.ok('openEra', 0, era)),
  };

  async initEra(era: string, limit: number) {
    const found = await this.#eval('initEra', 0, '', era, `${this.#b}:*`, limit);
    return found === 'ok' ? { created: true as const } : { found: found as string[] };
  }

  /** Every id's row with its record (`alive`, `ageMs`: as admins name them), or id `id`'s. */
  async read(id?: number) {
    const [min, max] = [id ?? Number.MIN_SAFE_INTEGER, id ?? Number.MAX_SAFE_INTEGER];
    const { rows } = await this.readClaimRows('', min, max, true);
    return rows.map((row) => ({ ...row, alive: row.live, ageMs: row.idleMs }));
  }

  /** The ids in `min..max` with a record, and the records a claim plans on (`all`: every one). */
  async readClaimRows(key: string, min: number, max: number, all = false) {
    const round = await this.#eval('readIds', 0, key, this.#b, min, max, all, ...FIELDS);
    const [now, own, ...ids] = round as [string, string, ...IdRow[]];
    const rows = ids.map(([id, live, fields]) => {
      const record = decodeRecord(fields);
      const idleMs = record === undefined ? 0 : Math.max(0, Number(now) - record.touchedMs);
      const [owner, markMs] = [record?.owner, record?.markMs];
      return { machineId: Number(id), live: live === 1, owner, markMs, idleMs, record };
    });
    // The key's own id, while its record still names the key.
    const ownRow = rows.find((r) => own !== '' && r.machineId === Number(own) && r.owner === key);
    return { ownId: ownRow?.machineId, rows };
  }

  /** `version` 0: the id has no record yet. */
  async claim(era: string, id: number, version: number, c: LeaseClaimant, markMs: number) {
    const record = { ...holdingOf(c, markMs), host: hostname(), pid: process.pid };
    const { key, stableKey, instance } = c;
    const args = [era, version, this.o.leaseTtlMs, id, stableKey, instance];
    return (await this.#eval('claim', id, key, ...args, ...Object.entries(record).flat())) === 'ok';
  }

  adminRelease(id: number, owner: string, version: number, force: boolean) {
    return this.#eval('adminRelease', id, owner, version, force, id) as Promise<ReleaseOutcome>;
  }

  async append(entry: LeaseJournalEntry, retention: number): Promise<void> {
    await this.ok('append', 0, encodeJournalEntry(entry), retention);
  }

  async history() {
    const texts = await this.run((r) => r.lrange(`${this.#b}:history`, 0, -1));
    return texts.flatMap((t) => decodeJournalEntry(t) ?? []);
  }
}

export type RedisRow = Awaited<ReturnType<RedisKeyspace['read']>>[number];
