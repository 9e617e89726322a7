"""The Lua scripts of a distributed crawl's coordination (each runs atomically in Redis).

Key arguments are listed above each script. A worker's *claims* (``CrawlKeys.claims``) are a
hash of the requests it took off the queue and has not finished: its leases (their form is the
frontier's, :mod:`.frontier`). They live as long as the worker's status key is renewed by its
heartbeat; :data:`REAP` (run by any live worker) puts the claims of a worker whose status
expired back in the queue and removes them, in one step, so they are requeued exactly once.

The scripts that touch the queue end in ``_BODY``: each frontier prefixes them with its Lua
preamble (``requeue``, ``drop``, ``pending``; :mod:`._frontier_lua`) and registers the result.
"""

from __future__ import annotations

__all__ = ["CHECK_BODY", "HAND_BACK_BODY", "REAP_BODY", "REGISTER"]

# The dead-worker sweep, shared by REAP and CHECK: for every member of the workers set whose
# status key expired, requeue its claims (``requeue`` of the frontier's preamble: see
# :mod:`._frontier_lua`), forget it and record how many were requeued.
_REAP_FUNCTION = """
local function reap(workers, dead, wprefix, cprefix, expire)
  local out = {}
  for _, id in ipairs(redis.call('SMEMBERS', workers)) do
    if redis.call('EXISTS', wprefix .. id) == 0 then
      redis.call('SREM', workers, id)
      local n = requeue(cprefix .. id)
      redis.call('HINCRBY', dead, id, n)
      redis.call('PEXPIRE', dead, expire)
      out[#out + 1] = id
      out[#out + 1] = n
    end
  end
  return out
end
"""

# KEYS: my worker key, workers, emitter; ARGV: worker ttl ms, my id, crawl expiry ms
REGISTER = """
local emitter = redis.call('GET', KEYS[3])
if emitter then return emitter end
redis.call('SET', KEYS[1], 'busy', 'PX', ARGV[1])
redis.call('SADD', KEYS[2], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return false
"""

# KEYS: queue, workers, emitter, failed-workers, dead-workers, my claims;
# ARGV: my id, worker key prefix, worker ttl ms, crawl expiry ms, my failures ('' = none),
# claims key prefix. Returns {state, who, dead id, requeued, dead id, requeued, ...}.
CHECK_BODY = (
    _REAP_FUNCTION
    + """
local emitter = redis.call('GET', KEYS[3])
if emitter then return {'done', emitter} end
redis.call('SET', ARGV[2] .. ARGV[1], 'idle', 'PX', ARGV[3])
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
drop(KEYS[6])
if ARGV[5] ~= '' then
  redis.call('HSET', KEYS[4], ARGV[1], ARGV[5])
  redis.call('PEXPIRE', KEYS[4], ARGV[4])
end
local reaped = reap(KEYS[2], KEYS[5], ARGV[2], ARGV[6], ARGV[4])
local function answer(state, who)
  local out = {state, who}
  for _, v in ipairs(reaped) do out[#out + 1] = v end
  return out
end
if pending() then return answer('wait', 'queue') end
for _, id in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  if redis.call('GET', ARGV[2] .. id) ~= 'idle' then return answer('wait', id) end
end
redis.call('SET', KEYS[3], ARGV[1], 'PX', ARGV[4])
return answer('elected', ARGV[1])
"""
)

# KEYS: queue, workers, emitter, dead-workers; ARGV: worker key prefix, claims key prefix,
# crawl expiry ms. Returns {dead id, requeued, ...} (nothing once the crawl is done).
REAP_BODY = (
    _REAP_FUNCTION
    + """
if redis.call('EXISTS', KEYS[3]) == 1 then return {} end
return reap(KEYS[2], KEYS[4], ARGV[1], ARGV[2], ARGV[3])
"""
)

# KEYS: queue, my claims, emitter. A worker closing early hands its unfinished claims back.
HAND_BACK_BODY = """
if redis.call('EXISTS', KEYS[3]) == 1 then
  redis.call('DEL', KEYS[2])
  return 0
end
return requeue(KEYS[2])
"""
