import { hostname } from 'node:os';
import {
  decodeJournalEntry,
  encodeJournalEntry,
  type LeaseClaimant,
  type LeaseEraState,
  type LeaseEraStore,
  type LeaseJournal,
  type LeaseJournalEntry,
} from '@vesta/lease';
import type { RedisConnection } from './RedisConnection.js';

/** Redis's clock in Unix ms (scripts replicate by effects, so TIME is allowed). */
const NOW = `local function nowMs()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`;
/** Every lease write first checks the era: nothing lands in another era's data. */
const ERA_STANDS = `if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then return {'era'} end
`;

/** The Lua scripts, each atomic; each answers a table whose first element is the outcome. */
const SCRIPTS = {
  // KEYS era; ARGV token → ok | era
  createEra: `if redis.call('HGET', KEYS[1], 'token') then return {'era'} end
redis.call('HSET', KEYS[1], 'token', ARGV[1], 'open', '0')
return {'ok'}`,
  // KEYS era; ARGV token, pattern, limit → ok (era created OPEN) | found, key... The scan runs in
  // the script so nothing is written between the look and the write (the prefix is one slot).
  initEra: `local found = {'found'}
local cursor = '0'
repeat
  local page = redis.call('SCAN', cursor, 'MATCH', ARGV[2], 'COUNT', 1000)
  cursor = page[1]
  for _, key in ipairs(page[2]) do
    if #found <= tonumber(ARGV[3]) then found[#found + 1] = key end
  end
until cursor == '0'
if #found > 1 then return found end
redis.call('HSET', KEYS[1], 'token', ARGV[1], 'open', '1')
return {'ok'}`,
  // KEYS era; ARGV token → ok | era
  openEra: `${ERA_STANDS}redis.call('HSET', KEYS[1], 'open', '1')
return {'ok'}`,
  // KEYS ids, key; ARGV base, min, max → {nowMs, ownId, used, live, records}: one round trip
  // whatever the fleet's size; records only of the used ids not live and of the key's own.
  readIds: `${NOW}local min, max = tonumber(ARGV[2]), tonumber(ARGV[3])
local own = redis.call('GET', KEYS[2]) or ''
local used, live, records = {}, {}, {}
for _, m in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local id = tonumber(m)
  if id and id == math.floor(id) and id >= min and id <= max then
    used[#used + 1] = m
    local held = redis.call('EXISTS', ARGV[1] .. ':live:' .. m) == 1
    if held then live[#live + 1] = m end
    if not held or m == own then
      records[#records + 1] = m
      records[#records + 1] = redis.call('HGETALL', ARGV[1] .. ':id:' .. m)
    end
  end
end
return {tostring(nowMs()), own, table.concat(used, ','), table.concat(live, ','), records}`,
  // KEYS era, id, live, ids, key; ARGV token, version, owner, instance, markMs, genMethod, type,
  // host, pid, ttlMs, machineId, stable → ok | era | live | raced
  claim: `${NOW}${ERA_STANDS}if redis.call('HGET', KEYS[1], 'open') ~= '1' then return {'era'} end
if redis.call('EXISTS', KEYS[3]) == 1 then return {'live'} end
local v = tonumber(redis.call('HGET', KEYS[2], 'version') or '0')
if v ~= tonumber(ARGV[2]) then return {'raced'} end
redis.call('HSET', KEYS[2], 'owner', ARGV[3], 'instance', ARGV[4], 'markMs', ARGV[5],
  'genMethod', ARGV[6], 'type', ARGV[7], 'host', ARGV[8], 'pid', ARGV[9],
  'touchedMs', nowMs(), 'version', v + 1)
redis.call('SET', KEYS[3], ARGV[4], 'PX', ARGV[10])
redis.call('SADD', KEYS[4], ARGV[11])
if ARGV[12] == '1' then redis.call('SET', KEYS[5], ARGV[11]) end
return {'ok'}`,
  // KEYS era, id, live; ARGV token, instance, markMs, ttlMs → ok | era | moved, owner
  renew: `${NOW}${ERA_STANDS}if redis.call('HGET', KEYS[2], 'instance') ~= ARGV[2] then
  return {'moved', redis.call('HGET', KEYS[2], 'owner') or ''}
end
local live = redis.call('GET', KEYS[3])
if live and live ~= ARGV[2] then return {'moved', ''} end
redis.call('SET', KEYS[3], ARGV[2], 'PX', ARGV[4])
-- Never lower the mark: a renewal resent after a reconnect may land after a later one.
local mark = math.max(tonumber(redis.call('HGET', KEYS[2], 'markMs') or '0'), tonumber(ARGV[3]))
redis.call('HSET', KEYS[2], 'markMs', string.format('%d', mark), 'touchedMs', nowMs())
redis.call('HINCRBY', KEYS[2], 'version', 1)
return {'ok'}`,
  // KEYS era, id, live; ARGV token, instance, finalMarkMs, keepOwner → ok | era | moved
  release: `${NOW}${ERA_STANDS}if redis.call('HGET', KEYS[2], 'instance') ~= ARGV[2] then return {'moved'} end
redis.call('HSET', KEYS[2], 'markMs', ARGV[3], 'touchedMs', nowMs())
if ARGV[4] ~= '1' then redis.call('HSET', KEYS[2], 'owner', '', 'instance', '') end
redis.call('HINCRBY', KEYS[2], 'version', 1)
redis.call('DEL', KEYS[3])
return {'ok'}`,
  // KEYS id, live, key; ARGV version, force, machineId → ok | missing | raced | live
  adminRelease: `local v = redis.call('HGET', KEYS[1], 'version')
if not v then return {'missing'} end
if v ~= ARGV[1] then return {'raced'} end
if ARGV[2] ~= '1' and redis.call('EXISTS', KEYS[2]) == 1 then return {'live'} end
redis.call('HSET', KEYS[1], 'owner', '', 'instance', '')
redis.call('HINCRBY', KEYS[1], 'version', 1)
redis.call('DEL', KEYS[2])
if redis.call('GET', KEYS[3]) == ARGV[3] then redis.call('DEL', KEYS[3]) end
return {'ok'}`,
};

/** A record hash (HGETALL's pairs) decoded; undefined when absent or unreadable (never guessed). */
function decodeRecord(pairs: string[]) {
  const hash = new Map(pairs.flatMap((k, i) => (i % 2 === 0 ? [[k, pairs[i + 1]] as const] : [])));
  const [markMs, touchedMs, version, pid] = ['markMs', 'touchedMs', 'version', 'pid'].map((f) =>
    Number(hash.get(f)),
  ) as [number, number, number, number];
  if (![markMs, touchedMs, version].every(Number.isSafeInteger)) return undefined;
  const text = (field: string) => (hash.get(field) === '' ? undefined : hash.get(field));
  return {
    owner: text('owner') ?? null,
    instance: text('instance') ?? null,
    markMs,
    touchedMs,
    version,
    host: text('host'),
    pid: Number.isSafeInteger(pid) && pid > 0 ? pid : undefined,
  };
}

const idsOf = (text: string): number[] => (text === '' ? [] : text.split(',').map(Number));

/**
 * One fleet's keys and the data verbs on them, all under the hash tag `{prefix}` (one slot):
 * `:era` hash (`token`, `open`; gone when Redis lost its data), `:ids` set of ids with a record,
 * `:id:<n>` hash (the record, kept), `:live:<n>` (the holding instance, PX `ttlMs`), `:key:<key>`
 * (a stable key's id), `:history` list (the lease journal, oldest first).
 */
export class RedisKeyspace {
  readonly #base: string;
  readonly #era: string;

  constructor(
    readonly conn: RedisConnection,
    prefix: string,
    readonly ttlMs = 0,
  ) {
    this.#base = `{${prefix}}`;
    this.#era = `${this.#base}:era`;
  }

  #keys(id: number, key?: string): string[] {
    const b = this.#base;
    return [this.#era, `${b}:id:${id}`, `${b}:live:${id}`, `${b}:ids`, `${b}:key:${key}`];
  }

  async #eval(script: keyof typeof SCRIPTS, keys: string[], args: (string | number)[]) {
    return (await this.conn.eval(SCRIPTS[script], keys, args)) as [string, ...unknown[]];
  }

  readonly eraStore: LeaseEraStore<LeaseEraState> = {
    readEra: async () => {
      const [token, open] = await this.conn.run((r) => r.hmget(this.#era, 'token', 'open'));
      return token == null ? undefined : { era: token, open: open === '1' };
    },
    createEra: async (era) => (await this.#eval('createEra', [this.#era], [era]))[0] === 'ok',
    openEra: async (found) => {
      await this.#eval('openEra', [this.#era], [found.era]);
    },
  };

  /** Creates the era OPEN only when no key lies under the prefix (a pattern without globs). */
  async initEra(era: string, limit: number) {
    const [outcome, ...found] = await this.#eval(
      'initEra',
      [this.#era],
      [era, `${this.#base}:*`, limit],
    );
    return outcome === 'ok' ? { created: true as const } : { found: found as string[] };
  }

  /** One id's record, whether its hash exists, and whether a live key holds it. */
  async read(id: number) {
    const [, record, live] = this.#keys(id) as [string, string, string];
    const [pairs, alive] = await Promise.all([
      this.conn.run((r) => r.call('HGETALL', record) as Promise<string[]>),
      this.conn.run((r) => r.exists(live)),
    ]);
    return { found: pairs.length > 0, record: decodeRecord(pairs), live: alive === 1 };
  }

  /** Every id with a record. */
  ids(): Promise<string[]> {
    return this.conn.run((r) => r.smembers(`${this.#base}:ids`));
  }

  /** One claim round's read of `key` in `min`-`max` (one round trip whatever the fleet's size). */
  async readClaimRows(key: string, min: number, max: number) {
    const [, , , ids, keyKey] = this.#keys(0, key);
    const [nowText, ownText, used, live, flat] = (await this.#eval(
      'readIds',
      [ids as string, keyKey as string],
      [this.#base, min, max],
    )) as [string, string, string, string, (string | string[])[]];
    const records = new Map<number, NonNullable<ReturnType<typeof decodeRecord>>>();
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const record = decodeRecord(flat[i + 1] as string[]);
      if (record !== undefined) records.set(Number(flat[i]), record);
    }
    const liveIds = new Set(idsOf(live));
    const rows = idsOf(used).map((machineId) => {
      const record = records.get(machineId);
      const idleMs = record === undefined ? 0 : Math.max(0, Number(nowText) - record.touchedMs);
      return { machineId, live: liveIds.has(machineId), owner: record?.owner, idleMs };
    });
    // The key's own id, while its record still names the key.
    const own = ownText === '' ? undefined : Number(ownText);
    return { ownId: records.get(own ?? -1)?.owner === key ? own : undefined, rows, records };
  }

  /** Claims `id` for `c` at the record's `version` (0: none) under the open `era`. */
  async claim(era: string, id: number, version: number, c: LeaseClaimant, markMs: number) {
    const { key, instance, request: r } = c;
    const args = [era, version, key, instance, markMs, r.genMethod, r.type, hostname()];
    const stable = c.stableKey ? '1' : '0';
    const outcome = await this.#eval('claim', this.#keys(id, key), [
      ...args,
      process.pid,
      this.ttlMs,
      id,
      stable,
    ]);
    return outcome[0] === 'ok';
  }

  /** Publishes `markMs` and pushes the live key back while `instance` holds `id` under `era`. */
  async renew(era: string, id: number, instance: string, markMs: number) {
    const args = [era, instance, markMs, this.ttlMs];
    return (await this.#eval('renew', this.#keys(id).slice(0, 3), args))[0] === 'ok';
  }

  /** Publishes the final mark and drops the live key; unless `keepOwner`, clears the owner. */
  async release(era: string, id: number, instance: string, markMs: number, keepOwner: boolean) {
    const args = [era, instance, markMs, keepOwner ? '1' : '0'];
    return (await this.#eval('release', this.#keys(id).slice(0, 3), args))[0] === 'ok';
  }

  /** The admin's release of the record at `version` (with `force`, of a live one too). */
  async adminRelease(id: number, owner: string, version: number, force: boolean) {
    const keys = this.#keys(id, owner).filter((_, i) => i === 1 || i === 2 || i === 4);
    return (await this.#eval('adminRelease', keys, [version, force ? '1' : '0', id]))[0];
  }

  /** The lease journal, trimmed to its newest `retention` entries. */
  journal(retention: number): LeaseJournal {
    const history = `${this.#base}:history`;
    return {
      append: async (entry) => {
        const replies = await this.conn.run((r) =>
          r.multi().rpush(history, encodeJournalEntry(entry)).ltrim(history, -retention, -1).exec(),
        );
        // A transaction reports a failed command in its replies, not by rejecting.
        const failed = (replies ?? []).find(([error]) => error !== null)?.[0];
        if (failed != null) throw failed;
        if (replies === null) throw new Error('the journal append was aborted');
      },
    };
  }

  /** Every journal entry kept, oldest first. */
  async history(): Promise<LeaseJournalEntry[]> {
    const texts = await this.conn.run((r) => r.lrange(`${this.#base}:history`, 0, -1));
    return texts.flatMap((t) => decodeJournalEntry(t) ?? []);
  }
}
