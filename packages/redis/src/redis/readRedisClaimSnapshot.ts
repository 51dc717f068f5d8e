import type { MachineIdRange } from '@vesta/core';
import type { ClaimSnapshot, IdRecord } from '@vesta/core/kit';
import type { RedisConnection } from './RedisConnection.js';
import type { RedisLayout } from './RedisLayout.js';

/** An id's record as stored (`{prefix}:id:<n>`). */
export interface RedisIdRecord {
  readonly owner: string | null;
  readonly instance: string | null;
  readonly markMs: number;
  readonly touchedMs: number;
  readonly version: number;
  readonly host: string | undefined;
  readonly pid: number | undefined;
}

/** Decodes a record hash; undefined when it is absent or unreadable (never guessed). */
export function decodeRedisIdRecord(hash: Record<string, string>): RedisIdRecord | undefined {
  const markMs = Number(hash['markMs']);
  const touchedMs = Number(hash['touchedMs']);
  const version = Number(hash['version']);
  if (![markMs, touchedMs, version].every(Number.isSafeInteger)) return undefined;
  const pid = Number(hash['pid']);
  return {
    owner: hash['owner'] === undefined || hash['owner'] === '' ? null : hash['owner'],
    instance: hash['instance'] === undefined || hash['instance'] === '' ? null : hash['instance'],
    markMs,
    touchedMs,
    version,
    host: hash['host'] === '' ? undefined : hash['host'],
    pid: Number.isSafeInteger(pid) && pid > 0 ? pid : undefined,
  };
}

/** What one claim round read: the planner's snapshot and the records themselves. */
export interface RedisClaimRead {
  readonly snapshot: ClaimSnapshot;
  readonly records: ReadonlyMap<number, RedisIdRecord>;
}

/** Reads the used ids of a range, their records and live keys, and the key's own id. */
export async function readRedisClaimSnapshot(
  conn: RedisConnection,
  layout: RedisLayout,
  input: {
    readonly key: string;
    readonly stableKey: boolean;
    readonly range: MachineIdRange;
    readonly skip: ReadonlySet<number>;
    readonly ownerWaitOver: boolean;
    readonly reclaimAfterMs: number;
  },
): Promise<RedisClaimRead> {
  const { min, max } = input.range;
  const [members, ownText, nowMs] = await Promise.all([
    conn.run((r) => r.smembers(layout.ids)),
    input.stableKey ? conn.run((r) => r.get(layout.key(input.key))) : Promise.resolve(null),
    conn.nowMs(),
  ]);
  const used = members
    .map(Number)
    .filter((id) => Number.isInteger(id) && id >= min && id <= max)
    .sort((a, b) => a - b);
  const rows = await conn.run(async (r) => {
    const pipeline = r.pipeline();
    for (const id of used) pipeline.hgetall(layout.id(id)).exists(layout.live(id));
    return (await pipeline.exec()) ?? [];
  });
  const live = new Set<number>();
  const records = new Map<number, RedisIdRecord>();
  used.forEach((id, i) => {
    const [hashError, hash] = rows[2 * i] ?? [];
    const [liveError, exists] = rows[2 * i + 1] ?? [];
    if (liveError === null && exists === 1) live.add(id);
    const record =
      hashError === null ? decodeRedisIdRecord(hash as Record<string, string>) : undefined;
    if (record !== undefined) records.set(id, record);
  });
  const ownNumber = ownText === null ? undefined : Number(ownText);
  const ownId =
    ownNumber !== undefined && records.get(ownNumber)?.owner === input.key ? ownNumber : undefined;
  const idle = new Map<number, IdRecord>();
  for (const [machineId, record] of records) {
    if (live.has(machineId) || input.skip.has(machineId)) continue;
    idle.set(machineId, {
      machineId,
      owner: record.owner,
      idleMs: Math.max(0, nowMs - record.touchedMs),
    });
  }
  if (ownId !== undefined && !idle.has(ownId) && !live.has(ownId)) {
    const record = records.get(ownId);
    if (record !== undefined)
      idle.set(ownId, { machineId: ownId, owner: record.owner, idleMs: nowMs - record.touchedMs });
  }
  return {
    snapshot: {
      range: input.range,
      live,
      used: new Set(used),
      skip: input.skip,
      ownId,
      ownerWaitOver: input.ownerWaitOver,
      records: idle,
      reclaimAfterMs: input.reclaimAfterMs,
    },
    records,
  };
}
