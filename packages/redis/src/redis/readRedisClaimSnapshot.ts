import type { MachineIdRange } from '@vesta/core';
import { snapshotOfRows, type ClaimRoundState, type ClaimSnapshot } from '@vesta/lease';
import type { RedisConnection } from './RedisConnection.js';
import type { RedisLayout } from './RedisLayout.js';
import { REDIS_SCRIPTS } from './REDIS_SCRIPTS.js';

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

/** The ids of a comma-separated list. */
const idsOf = (text: string): number[] => (text === '' ? [] : text.split(',').map(Number));

/**
 * Reads the used ids of a range, which are live, the records a claim plans on and the key's own
 * id, in one script (see REDIS_SCRIPTS.readIds): one round trip whatever the fleet's size.
 */
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
  const [nowText, ownText, usedText, liveText, flat] = (await conn.eval(
    REDIS_SCRIPTS.readIds,
    [layout.ids, layout.key(input.key)],
    [`{${layout.prefix}}`, min, max],
  )) as [string, string, string, string, (string | string[])[]];
  const nowMs = Number(nowText);
  const live = new Set(idsOf(liveText));
  const records = new Map<number, RedisIdRecord>();
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const pairs = flat[i + 1] as string[];
    const hash: Record<string, string> = {};
    for (let j = 0; j + 1 < pairs.length; j += 2) hash[pairs[j] as string] = pairs[j + 1] as string;
    const record = decodeRedisIdRecord(hash);
    if (record !== undefined) records.set(Number(flat[i]), record);
  }
  const ownNumber = input.stableKey && ownText !== '' ? Number(ownText) : undefined;
  const ownId =
    ownNumber !== undefined && records.get(ownNumber)?.owner === input.key ? ownNumber : undefined;
  const claimRows = idsOf(usedText).map((machineId) => {
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
