import { hostname } from 'node:os';
import { VestaError } from '@vesta/core';
import { decodeJournalEntry, encodeJournalEntry, withDeadline } from '@vesta/lease';
import type { LeaseClaimant, LeaseEraState, LeaseEraStore, LeaseJournalEntry } from '@vesta/lease';
import type { ReleaseOutcome } from '@vesta/lease';
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
  local page = redis.call('SCAN', cursor, 'MATCH', ARGV[2], 'COUNT', 1000)
  cursor = page[1]
  for _, key in ipairs(page[2]) do if #found < tonumber(ARGV[3]) then found[#found + 1] = key end end
until cursor == '0'
if #found > 0 then return found end
redis.call('HSET', KEYS[1], 'token', ARGV[1], 'open', '1') return 'ok'`,
  openEra: `${ERA}redis.call('HSET', KEYS[1], 'open', '1') return 'ok'`,
  // ARGV base, min, max, all, record fields → {now, own id, used ids, live ids, records of the
  // used ids not live (all with `all`) and of the key's own}: one round trip for any fleet.
  readIds: `${NOW}local min, max, own = tonumber(ARGV[2]), tonumber(ARGV[3]), redis.call('GET', KEYS[5]) or ''
local used, live, records = {}, {}, {}
for _, m in ipairs(redis.call('SMEMBERS', KEYS[4])) do
  local id = tonumber(m)
  if id and id == math.floor(id) and id >= min and id <= max then
    used[#used + 1] = m
    local held = redis.call('EXISTS', ARGV[1] .. ':live:' .. m) == 1
    if held then live[#live + 1] = m end
    if not held or m == own or ARGV[4] == '1' then
      records[#records + 1] = m
      records[#records + 1] = redis.call('HMGET', ARGV[1] .. ':id:' .. m, unpack(ARGV, 5))
    end
  end
end
return {tostring(now), own, table.concat(used, ','), table.concat(live, ','), records}`,
  // ARGV token, version, ttlMs, machineId, stable, instance, the record's fields and values
  claim: `${NOW}${ERA}if redis.call('HGET', KEYS[1], 'open') ~= '1' then return 'era' end
if redis.call('EXISTS', KEYS[3]) == 1 then return 'live' end
local v = tonumber(redis.call('HGET', KEYS[2], 'version') or '0')
if v ~= tonumber(ARGV[2]) then return 'raced' end
redis.call('HSET', KEYS[2], 'touchedMs', now, 'version', v + 1, unpack(ARGV, 7))
redis.call('SET', KEYS[3], ARGV[6], 'PX', ARGV[3])
redis.call('SADD', KEYS[4], ARGV[4])
if ARGV[5] == '1' then redis.call('SET', KEYS[5], ARGV[4]) end
return 'ok'`,
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

/** A record hash's FIELDS (HMGET) decoded; undefined when absent or unreadable (never guessed). */
function decodeRecord([owner, instance, host, ...numbers]: (string | null)[]) {
  const [markMs = NaN, touchedMs = NaN, version = NaN, pid = NaN] = numbers.map((v) =>
    Number(v ?? NaN),
  );
  if (![markMs, touchedMs, version].every(Number.isSafeInteger)) return undefined;
  const valid = Number.isSafeInteger(pid) && pid > 0;
  return {
    ...{ owner: owner || null, instance: instance || null, markMs, touchedMs, version },
    ...{ host: host || undefined, pid: valid ? pid : undefined },
  };
}

export type RedisRecord = NonNullable<ReturnType<typeof decodeRecord>>;
type Round = [now: string, own: string, used: string, live: string, records: (string | string[])[]];
const idsOf = (text: string): number[] => (text === '' ? [] : text.split(',').map(Number));

/** A connection to a fleet's keys; every request has a deadline (ioredis would queue it forever). */
export class RedisKeyspace {
  readonly redis: Redis;
  readonly #b: string;
  readonly #era: string;

  constructor(
    readonly o: Pick<Resolved, 'target' | 'prefix' | 'connectTimeoutMs' | 'operationTimeoutMs'> &
      Partial<Pick<Resolved, 'leaseTtlMs'>>,
  ) {
    const retryStrategy = (times: number) => Math.min(50 * times, 500);
    const more = { connectTimeout: o.connectTimeoutMs, maxRetriesPerRequest: 1, retryStrategy };
    this.redis = new Redis({ ...o.target.client, ...more, lazyConnect: true });
    this.redis.on('error', () => undefined); // failures surface through the requests
    [this.#b, this.#era] = [`{${o.prefix}}`, `{${o.prefix}}:era`];
  }

  async connect(): Promise<void> {
    await this.#deadline(this.redis.connect(), this.o.connectTimeoutMs, 'connect').catch((e) => {
      this.close();
      throw e;
    });
  }

  run<T>(request: (redis: Redis) => Promise<T>): Promise<T> {
    const asked = Promise.resolve().then(() => request(this.redis));
    return this.#deadline(asked, this.o.operationTimeoutMs, 'answer');
  }

  #deadline<T>(request: Promise<T>, ms: number, what: string): Promise<T> {
    const late = () => new Error(`Redis did not ${what} within ${ms} ms`);
    return withDeadline(request, ms, late, { unref: true }).catch((cause: unknown) => {
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
    const keys = [this.#era, `${b}:id:${id}`, `${b}:live:${id}`, `${b}:ids`, `${b}:key:${key}`];
    const argv = args.map((a) => (typeof a === 'boolean' ? (a ? '1' : '0') : String(a)));
    return this.run((r) => r.eval(SCRIPTS[script], 6, ...keys, `${b}:history`, ...argv));
  }

  async #ok(script: keyof typeof SCRIPTS, id: number, ...args: unknown[]): Promise<boolean> {
    return (await this.#eval(script, id, '', ...args)) === 'ok';
  }

  async nowMs(): Promise<number> {
    const [s, us] = await this.run((r) => r.time());
    return Number(s) * 1000 + Math.floor(Number(us) / 1000);
  }

  readonly reconnect = (): void => this.redis.disconnect(true);
  readonly close = (): void => this.redis.disconnect(false);

  readonly eraStore: LeaseEraStore<LeaseEraState> = {
    readEra: async () => {
      const [token, open] = await this.run((r) => r.hmget(this.#era, 'token', 'open'));
      return token == null ? undefined : { era: token, open: open === '1' };
    },
    createEra: async (era) => (await this.run((r) => r.hsetnx(this.#era, 'token', era))) === 1,
    openEra: async ({ era }) => void (await this.#ok('openEra', 0, era)),
  };

  async initEra(era: string, limit: number) {
    const found = await this.#eval('initEra', 0, '', era, `${this.#b}:*`, limit);
    return found === 'ok' ? { created: true as const } : { found: found as string[] };
  }

  /** One id's row: its record (undefined when unreadable) and whether a live key holds it. */
  async read(id: number) {
    return (await this.readClaimRows('', id, id, true)).rows[0];
  }

  /** The ids in `min..max` with a record, and the records a claim plans on (`all`: every one). */
  async readClaimRows(key: string, min: number, max: number, all = false) {
    const round = await this.#eval('readIds', 0, key, this.#b, min, max, all, ...FIELDS);
    const [nowText, ownText, used, live, flat] = round as Round;
    const records = new Map<number, RedisRecord>();
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const record = decodeRecord(flat[i + 1] as string[]);
      if (record !== undefined) records.set(Number(flat[i]), record);
    }
    const liveIds = new Set(idsOf(live));
    const rows = idsOf(used).map((machineId) => {
      const record = records.get(machineId);
      const idleMs = record === undefined ? 0 : Math.max(0, Number(nowText) - record.touchedMs);
      const [live, owner, markMs] = [liveIds.has(machineId), record?.owner, record?.markMs];
      return { machineId, live, owner, markMs, idleMs, record };
    });
    // The key's own id, while its record still names the key.
    const own = ownText === '' ? undefined : Number(ownText);
    return { ownId: records.get(own ?? -1)?.owner === key ? own : undefined, rows, records };
  }

  /** `version` 0: the id has no record yet. */
  async claim(era: string, id: number, version: number, c: LeaseClaimant, markMs: number) {
    const { key, instance, request: r } = c;
    const record = { owner: key, instance, markMs, genMethod: r.genMethod, type: r.type };
    const fields = Object.entries({ ...record, host: hostname(), pid: process.pid }).flat();
    const args = [era, version, this.o.leaseTtlMs, id, c.stableKey, instance, ...fields];
    return (await this.#eval('claim', id, key, ...args)) === 'ok';
  }

  renew(era: string, id: number, instance: string, markMs: number): Promise<boolean> {
    return this.#ok('renew', id, era, instance, markMs, this.o.leaseTtlMs);
  }

  release(era: string, id: number, instance: string, markMs: number, keepOwner: boolean) {
    return this.#ok('release', id, era, instance, markMs, keepOwner);
  }

  adminRelease(id: number, owner: string, version: number, force: boolean) {
    return this.#eval('adminRelease', id, owner, version, force, id) as Promise<ReleaseOutcome>;
  }

  async append(entry: LeaseJournalEntry, retention: number): Promise<void> {
    await this.#ok('append', 0, encodeJournalEntry(entry), retention);
  }

  async history() {
    const texts = await this.run((r) => r.lrange(`${this.#b}:history`, 0, -1));
    return texts.flatMap((t) => decodeJournalEntry(t) ?? []);
  }
}
