"""The Lua of the two frontiers (:mod:`.frontier`): preambles for the coordination scripts and
the scripts of the queue itself.

A preamble defines, for the scripts of :mod:`._scripts` that touch the queue (their queue key
is ``KEYS[1]``):

* ``requeue(claims)``: put a worker's claims back in the queue, delete them, return how many;
* ``drop(claims)``: delete an idle worker's claims (every page of theirs is finished);
* ``pending()``: whether the queue holds a request.

**Priority frontier** (``STRUCTCRAWL_REDIS_QUEUE = "priority"``): one sorted set of serialized
requests by score (``-priority``); a claim is ``request -> score``.

**Host frontier** (``"hosts"``): keys computed from the crawl's base (one server, not Redis
Cluster); the base, the crawl's expiry, the default delay in ms and the concurrency per host
come last in every script's arguments (``ARGV[#ARGV - 3]`` to ``ARGV[#ARGV]``):

* ``q:<host>``: list of the host's requests, each ``<url or path> <compact JSON>``;
* ``ready``: sorted set of the hosts with queued requests and room for one more fetch, by
  the time (ms) they may next be fetched: the next host is the first whose time has come;
* ``next``, ``inflight``, ``delays``, ``origins``: hashes host -> the time its next fetch may
  start, fetches under way on all workers, its own delay (``Crawl-delay``), the origin its
  paths are relative to;
* ``queued``: count of queued requests (the queue key, ``KEYS[1]``).

A claim is ``<host> <entry> -> 1`` while its fetch holds one of the host's slots, ``0`` once
the download finished (a local request's slot: ``!<host> <token> -> 1``); ``#<host> -> n``
counts the host's slots the worker holds. A slot released makes the host wait its delay from
then on: with one slot per host, no two fetches of a host are closer than its delay, however
many workers there are.

**Fair shares.** A worker holds at most ``ceil(concurrency / live workers)`` of a host's
slots (the workers set: registered and not found dead), so on a crawl of one host each of
two workers gets half the slots, instead of the first to ask taking them all and re-taking
each one the moment it is given back. A worker at its share of a host skips it for the next
ready host; a dead worker's share goes to the others when it is reaped, with its slots.
"""

from __future__ import annotations

__all__ = [
    "HOST_CLAIM",
    "HOST_FINISH",
    "HOST_PAUSE",
    "HOST_PREAMBLE",
    "HOST_RELEASE",
    "HOST_SHARE",
    "HOST_SHARE_MANY",
    "HOST_TAKE",
    "PRIORITY_CLAIM",
    "PRIORITY_PREAMBLE",
    "PRIORITY_SHARE",
]

PRIORITY_PREAMBLE = """
local function requeue(claims)
  local c = redis.call('HGETALL', claims)
  for i = 1, #c, 2 do redis.call('ZADD', KEYS[1], c[i + 1], c[i]) end
  redis.call('DEL', claims)
  return math.floor(#c / 2)
end
local function drop(claims) redis.call('DEL', claims) end
local function pending() return redis.call('ZCARD', KEYS[1]) > 0 end
"""

# KEYS: queue, my worker key, workers, my claims; ARGV: worker ttl ms, my id, crawl expiry ms
PRIORITY_CLAIM = """
local found = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if #found == 0 then return false end
redis.call('ZREM', KEYS[1], found[1])
redis.call('SET', KEYS[2], 'busy', 'PX', ARGV[1])
redis.call('SADD', KEYS[3], ARGV[2])
redis.call('HSET', KEYS[4], found[1], found[2])
redis.call('PEXPIRE', KEYS[4], ARGV[3])
return found[1]
"""

# KEYS: queue, emitter; ARGV: score, request
PRIORITY_SHARE = """
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
return 1
"""

HOST_PREAMBLE = """
local FB = ARGV[#ARGV - 3]
local FEXPIRE = ARGV[#ARGV - 2]
local FDELAY = tonumber(ARGV[#ARGV - 1])
local FCONC = tonumber(ARGV[#ARGV])
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function delay_of(host)
  return tonumber(redis.call('HGET', FB .. 'delays', host)) or FDELAY
end
local function inflight(host)
  return tonumber(redis.call('HGET', FB .. 'inflight', host)) or 0
end
local function next_at(host)
  return tonumber(redis.call('HGET', FB .. 'next', host)) or 0
end
local function wake(host)
  if redis.call('EXISTS', FB .. 'q:' .. host) == 0 or inflight(host) >= FCONC then return end
  redis.call('ZADD', FB .. 'ready', next_at(host), host)
end
local function share_of()
  local n = math.max(redis.call('SCARD', FB .. 'workers'), 1)
  return math.max(math.ceil(FCONC / n), 1)
end
local function held(claims, host)
  return tonumber(redis.call('HGET', claims, '#' .. host)) or 0
end
local function hold(claims, host)
  local n = redis.call('HINCRBY', FB .. 'inflight', host, 1)
  redis.call('HINCRBY', claims, '#' .. host, 1)
  return n
end
local function release(claims, host)
  if redis.call('HINCRBY', FB .. 'inflight', host, -1) <= 0 then
    redis.call('HDEL', FB .. 'inflight', host)
  end
  if redis.call('HINCRBY', claims, '#' .. host, -1) <= 0 then
    redis.call('HDEL', claims, '#' .. host)
  end
  redis.call('HSET', FB .. 'next', host, math.max(next_at(host), now_ms() + delay_of(host)))
  wake(host)
end
local function split(field)
  local sp = string.find(field, ' ', 1, true)
  local host = string.sub(field, 1, sp - 1)
  if string.sub(host, 1, 1) == '!' then return string.sub(host, 2), nil end
  return host, string.sub(field, sp + 1)
end
local function requeue(claims)
  local c = redis.call('HGETALL', claims)
  local n = 0
  for i = 1, #c, 2 do
    if string.sub(c[i], 1, 1) ~= '#' then
      local host, entry = split(c[i])
      if entry then
        redis.call('LPUSH', FB .. 'q:' .. host, entry)
        redis.call('PEXPIRE', FB .. 'q:' .. host, FEXPIRE)
        redis.call('INCR', FB .. 'queued')
        n = n + 1
      end
      if c[i + 1] == '1' then release(claims, host) else wake(host) end
    end
  end
  redis.call('DEL', claims)
  return n
end
local function drop(claims)
  local c = redis.call('HGETALL', claims)
  for i = 1, #c, 2 do
    if c[i + 1] == '1' and string.sub(c[i], 1, 1) ~= '#' then
      release(claims, (split(c[i])))
    end
  end
  redis.call('DEL', claims)
end
local function pending() return (tonumber(redis.call('GET', FB .. 'queued')) or 0) > 0 end
"""

# KEYS: queued, my worker key, workers, my claims; ARGV: worker ttl ms, my id, crawl expiry ms.
# Returns {host, origin, entry}, or {'', '', ms until a host is ready ('-1': none is, or this
# worker holds its share of every ready host: its own slots given back wake it)}. Ready hosts
# are looked at 8 at a time, up to 64, for one where this worker is below its share.
HOST_CLAIM = """
local now = now_ms()
local share = share_of()
local host, entry
for offset = 0, 56, 8 do
  local found = redis.call('ZRANGEBYSCORE', FB .. 'ready', '-inf', now, 'LIMIT', offset, 8)
  for _, h in ipairs(found) do
    if held(KEYS[4], h) < share then
      entry = redis.call('LPOP', FB .. 'q:' .. h)
      if entry then
        host = h
        break
      end
      redis.call('ZREM', FB .. 'ready', h)
    end
  end
  if host or #found < 8 then break end
end
if not host then
  local later = redis.call('ZRANGEBYSCORE', FB .. 'ready', '(' .. now, '+inf', 'WITHSCORES',
    'LIMIT', 0, 1)
  if #later == 0 then return {'', '', '-1'} end
  return {'', '', tostring(math.max(tonumber(later[2]) - now, 1))}
end
local q = FB .. 'q:' .. host
redis.call('DECR', KEYS[1])
local n = hold(KEYS[4], host)
local at = now + delay_of(host)
redis.call('HSET', FB .. 'next', host, at)
if n >= FCONC or redis.call('EXISTS', q) == 0 then
  redis.call('ZREM', FB .. 'ready', host)
else
  redis.call('ZADD', FB .. 'ready', at, host)
end
redis.call('SET', KEYS[2], 'busy', 'PX', ARGV[1])
redis.call('SADD', KEYS[3], ARGV[2])
redis.call('HSET', KEYS[4], host .. ' ' .. entry, '1')
redis.call('PEXPIRE', KEYS[4], ARGV[3])
return {host, redis.call('HGET', FB .. 'origins', host) or '', entry}
"""

# Queue one request of a host: its entry relative to the host's origin ('' = none) when that
# origin is the request's, else its entry with the whole URL; in front when ``front`` is '1'.
_SHARE_FUNCTION = """
local function share(queued, host, origin, relative, full, front)
  local known = redis.call('HGET', FB .. 'origins', host)
  if not known then
    redis.call('HSET', FB .. 'origins', host, origin)
    known = origin
  end
  local entry = full
  if known == origin and relative ~= '' then entry = relative end
  local q = FB .. 'q:' .. host
  if front == '1' then redis.call('LPUSH', q, entry) else redis.call('RPUSH', q, entry) end
  redis.call('PEXPIRE', q, FEXPIRE)
  redis.call('INCR', queued)
  if not redis.call('ZSCORE', FB .. 'ready', host) then wake(host) end
end
"""

# KEYS: queued, emitter; ARGV: host, origin, relative entry, full entry, front.
HOST_SHARE = (
    _SHARE_FUNCTION
    + """
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
share(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5])
return 1
"""
)

# KEYS: queued, emitter; ARGV: five per request, as HOST_SHARE (seeding a crawl).
HOST_SHARE_MANY = (
    _SHARE_FUNCTION
    + """
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
for i = 1, #ARGV - 4, 5 do
  share(KEYS[1], ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4])
end
return 1
"""
)

# KEYS: my claims; ARGV: the claim's field. The download of a claimed or local request ended.
HOST_RELEASE = """
local field = ARGV[1]
if redis.call('HGET', KEYS[1], field) ~= '1' then return 0 end
local host, entry = split(field)
if entry then redis.call('HSET', KEYS[1], field, '0') else redis.call('HDEL', KEYS[1], field) end
release(KEYS[1], host)
return 1
"""

# KEYS: my claims; ARGV: host, token, crawl expiry ms. A slot for a request this worker keeps
# (a retry, a redirect hop): 0 taken, else ms to wait ('-1': the host is at its concurrency,
# or this worker holds its share of it).
HOST_TAKE = """
local host = ARGV[1]
local now = now_ms()
local at = next_at(host)
if at > now then return at - now end
if inflight(host) >= FCONC or held(KEYS[1], host) >= share_of() then return -1 end
local n = hold(KEYS[1], host)
local nxt = now + delay_of(host)
redis.call('HSET', FB .. 'next', host, nxt)
if redis.call('ZSCORE', FB .. 'ready', host) then
  if n >= FCONC then redis.call('ZREM', FB .. 'ready', host)
  else redis.call('ZADD', FB .. 'ready', nxt, host) end
end
redis.call('HSET', KEYS[1], '!' .. host .. ' ' .. ARGV[2], '1')
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 0
"""

# ARGV: host, pause ms. Retry-After: nothing more is sent to the host before then.
HOST_PAUSE = """
local host = ARGV[1]
local at = math.max(next_at(host), now_ms() + tonumber(ARGV[2]))
redis.call('HSET', FB .. 'next', host, at)
if redis.call('ZSCORE', FB .. 'ready', host) then redis.call('ZADD', FB .. 'ready', at, host) end
return at
"""

# KEYS: my claims; ARGV: the claims of finished pages. Their leases end (a slot still held,
# by a request that never reached the downloader, is given back).
HOST_FINISH = """
for i = 1, #ARGV - 4 do
  if redis.call('HGET', KEYS[1], ARGV[i]) == '1' then release(KEYS[1], (split(ARGV[i]))) end
  redis.call('HDEL', KEYS[1], ARGV[i])
end
return 1
"""
