/** Redis's own clock in Unix ms (scripts are replicated by effects, so TIME is allowed). */
const NOW = `local function nowMs()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`;

/** The era check every write of a lease starts with: nothing lands in another era's data. */
const ERA_STANDS = `if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then return {'era'} end
`;

/**
 * The Lua scripts of the provider, each one atomic in Redis. Keys and arguments are listed above
 * each; every script answers a table whose first element is the outcome.
 */
export const REDIS_SCRIPTS = Object.freeze({
  /** KEYS era; ARGV token → {'ok'} once the era is created closed, {'era'} when there is one. */
  createEra: `if redis.call('HGET', KEYS[1], 'token') then return {'era'} end
redis.call('HSET', KEYS[1], 'token', ARGV[1], 'open', '0')
return {'ok'}`,

  /**
   * KEYS era; ARGV token, pattern (`{prefix}:*`), limit → {'ok'} once the era is created OPEN,
   * {'found', key...} (up to `limit` keys) when any key matches the pattern: the admin's
   * declaration that the prefix is new (`vesta machine-ids init`). The scan runs inside the
   * script so that nothing can be written between the look and the write; it walks the whole
   * keyspace once (every key of the prefix is in the era's slot, so on this node in a cluster).
   */
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

  /** KEYS era; ARGV token → {'ok'} once open, {'era'} when another era replaced it. */
  openEra: `${ERA_STANDS}redis.call('HSET', KEYS[1], 'open', '1')
return {'ok'}`,

  /**
   * KEYS ids, key; ARGV base (`{prefix}`), min, max → {nowMs, ownId or '', used ids, live ids,
   * records}: one claim round's read in one round trip, however many ids are used. The id lists
   * are comma-separated; records (a flat list of id, HGETALL pairs) only of the used ids not live
   * and of the key's own id, the ones a claim plans on (a live id's record is never needed).
   */
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

  /**
   * KEYS era, id, live, ids, key; ARGV token, expectedVersion, owner, instance, markMs, genMethod,
   * type, host, pid, ttlMs, machineId, stable → {'ok'}, {'era'} (no open era of this token),
   * {'live'} (held), {'raced'} (the record changed since it was read).
   */
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

  /**
   * KEYS era, id, live; ARGV token, instance, markMs, ttlMs → {'ok'}, {'era'} (Redis lost its
   * data), {'moved', owner} (the id is someone else's, or was released by hand).
   */
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

  /**
   * KEYS era, id, live; ARGV token, instance, finalMarkMs, keepOwner → {'ok'}, {'era'},
   * {'moved'}: publishes the final mark, drops the live key, clears the owner of a keyless one.
   */
  release: `${NOW}${ERA_STANDS}if redis.call('HGET', KEYS[2], 'instance') ~= ARGV[2] then return {'moved'} end
redis.call('HSET', KEYS[2], 'markMs', ARGV[3], 'touchedMs', nowMs())
if ARGV[4] ~= '1' then redis.call('HSET', KEYS[2], 'owner', '', 'instance', '') end
redis.call('HINCRBY', KEYS[2], 'version', 1)
redis.call('DEL', KEYS[3])
return {'ok'}`,

  /**
   * KEYS id, live, key; ARGV version, force, machineId → {'ok'}, {'missing'}, {'raced'},
   * {'live'}: the admin's release (owner cleared, mark kept, key mapping dropped).
   */
  adminRelease: `local v = redis.call('HGET', KEYS[1], 'version')
if not v then return {'missing'} end
if v ~= ARGV[1] then return {'raced'} end
if ARGV[2] ~= '1' and redis.call('EXISTS', KEYS[2]) == 1 then return {'live'} end
redis.call('HSET', KEYS[1], 'owner', '', 'instance', '')
redis.call('HINCRBY', KEYS[1], 'version', 1)
redis.call('DEL', KEYS[2])
if redis.call('GET', KEYS[3]) == ARGV[3] then redis.call('DEL', KEYS[3]) end
return {'ok'}`,
});
