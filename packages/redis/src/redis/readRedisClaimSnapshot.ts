import type { MachineIdRange } from '@vesta/core';
import { snapshotOfRows, type ClaimRoundState, type ClaimSnapshot } from '@vesta/core/kit';
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
    readonly reclaimAfterMs: number;
  } & ClaimRoundState,
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
  const claimRows = used.map((machineId) => {
    const record = records.get(machineId);
    return {
      machineId,
      live: live.has(machineId),
      owner: record?.owner,
      idleMs: record === undefined ? 0 : Math.max(0, nowMs - record.touchedMs),
    };
  });
  return {
    snapshot: snapshotOfRows(claimRows, { ...input, ownId }),
    records,
  };
}
