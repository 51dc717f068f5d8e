import { LeaseAdmin, listAllocations, type AdminRow, type LeaseAllocation } from '@vesta/lease';
import type { ReleaseOutcome } from '@vesta/lease';
import { redisOptions, type RedisAdminOptions } from './RedisMachineIdOptions.js';
import { RedisKeyspace } from './RedisKeyspace.js';

/** One machine id's allocation: `alive` while a live key holds it, `ageMs` on Redis's clock. */
export type RedisMachineIdAllocation = LeaseAllocation;

type RedisRow = AdminRow & {
  readonly record: Awaited<ReturnType<RedisKeyspace['read']>>['record'];
};

/**
 * Operators' view of a fleet's allocations in Redis (see {@link LeaseAdmin}). Validates the
 * options (INVALID_OPTIONS); connects on each call. The URL's query may name the prefix; the
 * provider's other options in it are ignored.
 */
export class RedisAdmin extends LeaseAdmin<RedisMachineIdAllocation, RedisKeyspace, RedisRow> {
  constructor(options: RedisAdminOptions) {
    const o = redisOptions.resolveAdmin(options);
    const deadlines = { connectTimeoutMs: o.timeoutMs, operationTimeoutMs: o.timeoutMs };
    super({
      store: 'Redis',
      where: `under ${o.prefix}`,
      namespace: `Redis under prefix ${o.prefix}`,
      open: () => new RedisKeyspace({ ...o, ...deadlines }),
      connect: (ks) => ks.connect(),
      close: (ks) => ks.close(),
      list: async (ks) => {
        const [ids, nowMs] = [await ks.ids(), await ks.nowMs()];
        return listAllocations(ids, async (machineId) => {
          const { record, live } = await ks.read(machineId);
          const ageMs = Math.max(0, nowMs - (record?.touchedMs ?? 0));
          return record && { machineId, record, alive: live, ageMs };
        });
      },
      read: async (ks, machineId) => {
        const { found, record, live } = await ks.read(machineId);
        return found ? { machineId, record, alive: live } : undefined;
      },
      // Drops the key mapping too, and with force the live key: the holder's renewal finds it gone.
      release: async (ks, { machineId, record }, force) => {
        const outcome = await ks.adminRelease(machineId, record.owner ?? '', record.version, force);
        return outcome === 'ok' ? 'released' : (outcome as ReleaseOutcome);
      },
      init: (ks, era, limit) => ks.initEra(era, limit),
      history: (ks) => ks.history(),
    });
  }
}
