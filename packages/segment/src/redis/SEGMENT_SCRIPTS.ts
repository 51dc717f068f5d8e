/**
 * The Lua scripts of {@link RedisSegmentStore}, each one atomic. KEYS[1] is the key's hash
 * (`max`, `step`, `updated`), KEYS[2] its handed-back ranges (a sorted set, every score 0, each
 * member `<start>:<end>` in 20 zero-padded digits, so that lexical order is numeric order and a
 * number past 2^53 never goes through a Lua double), KEYS[3] the set of every key's name.
 */
export const SEGMENT_SCRIPTS = {
  /**
   * ARGV: step ('' for the key's), the floor (padded). Answers nil for an unknown key, else
   * `{ 'free', member, keyStep }` or `{ 'fresh', max, step, keyStep }` (`max` read back as a
   * string: HINCRBY's integer would reach Lua as a double), or `{ 'ranOut' }` when the
   * step would take `max` past 2^63 - 1 (HINCRBY refuses it and changes nothing).
   */
  claim: `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local keyStep = redis.call('HGET', KEYS[1], 'step')
local free = redis.call('ZRANGEBYLEX', KEYS[2], '[' .. ARGV[2], '+', 'LIMIT', 0, 1)
if free[1] then
  redis.call('ZREM', KEYS[2], free[1])
  return { 'free', free[1], keyStep }
end
local step = ARGV[1]
if step == '' then step = keyStep end
local raised = redis.pcall('HINCRBY', KEYS[1], 'max', step)
if type(raised) == 'table' and raised.err then
  if string.find(raised.err, 'overflow', 1, true) then return { 'ranOut' } end
  return raised
end
redis.call('HSET', KEYS[1], 'updated', redis.call('TIME')[1])
return { 'fresh', redis.call('HGET', KEYS[1], 'max'), step, keyStep }
`,
  /** ARGV: the member. Answers nil for an unknown key, else 1. */
  handBack: `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
redis.call('ZADD', KEYS[2], 0, ARGV[1])
return 1
`,
  /** ARGV: the key's name, its start, its step. Answers 1 when created, 0 when it existed. */
  createKey: `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'max', ARGV[2], 'step', ARGV[3], 'updated', redis.call('TIME')[1])
redis.call('SADD', KEYS[3], ARGV[1])
return 1
`,
  /** ARGV: the step. Answers nil for an unknown key, else 1. */
  setStep: `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
redis.call('HSET', KEYS[1], 'step', ARGV[1], 'updated', redis.call('TIME')[1])
return 1
`,
} as const;
