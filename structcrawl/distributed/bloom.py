"""The compact duplicate filter of a distributed crawl: a Bloom filter in Redis (docs/scale.md).

scrapy-redis's filter keeps each 40-character SHA-1 fingerprint in a Redis set, about 100
bytes of server memory per URL. This one keeps ``k`` bits per URL in Redis bitmaps, sized from
the expected URL count (``STRUCTCRAWL_REDIS_EXPECTED_URLS``) and the false-positive rate
wanted (``STRUCTCRAWL_REDIS_BLOOM_ERROR_RATE``): ``-ln(p) / ln(2)^2`` bits per URL, 14.4 at
0.1% (1.8 bytes). Adding a fingerprint and learning whether it was new is one Lua call
(:data:`ADD`: ``SETBIT`` of its ``k`` bits, new if any was 0). It needs no server module: the
RedisBloom module's ``BF.ADD`` costs the same bits per URL, but is missing from most servers
(Debian's, most managed ones), and its filters grow by stacking layers, each a further lookup.

* **Sizing is shared.** The first worker writes the filter's size to ``bloom-size`` (``SET
  NX``); every worker then uses the size stored there, whatever its own settings say.
* **Segments.** A Redis string holds at most 2^32 bits: a larger filter is split into segments
  (``bloom:<n>``), each fingerprint wholly in one of them (chosen by its bytes), so one call
  touches one key.
* **Bits.** The ``k`` positions come from the 20-byte request fingerprint by enhanced double
  hashing (``h1 + i*h2 + (i^3 - i)/6`` over two 32-bit parts; Dillinger and Manolios 2004),
  computed in the script: a call sends two numbers, not ``k`` positions.
* **False positives, counted.** A Bloom filter never misses a URL it has seen but may refuse a
  new one. One new fingerprint in ``STRUCTCRAWL_REDIS_BLOOM_SAMPLE`` (chosen by its bytes, so
  the same on every worker) is also kept exactly, in ``bloom-sample``: when the filter says
  "seen" but the exact sample says new, the request is a false positive; it is let through
  and counted (``structcrawl/distributed/bloom/false_positives`` out of
  ``/bloom/sampled``), which estimates the rate refused elsewhere.

>>> size = BloomSize.of(1_000_000, 0.001)
>>> size.hashes, round(size.bits / 1_000_000, 2), size.segments
(10, 14.38, 1)
>>> len(positions(bytes(range(20)), size)[1])
10
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Any

import redis

__all__ = [
    "ADD",
    "ADD_MANY",
    "ALLOCATE",
    "CONTAINS",
    "BloomDupeFilter",
    "BloomSize",
    "hashes",
    "positions",
    "sampled",
]

logger = logging.getLogger(__name__)

#: Bits of one segment at most (SETBIT takes offsets below 2^32).
SEGMENT_BITS = (1 << 32) - 64

# A fingerprint's bits: h1 + i*h2 + (i^3 - i)/6 (mod m) for i < k, from two 32-bit halves
# (exact in Lua's doubles). Returns 1 new, 0 seen, 2 seen by the filter but new by the exact
# sample (a false positive).
_ADD_FUNCTION = """
local function bloom_add(segment, sample, member, h1, h2, k, m)
  local new = 0
  for i = 0, k - 1 do
    local bit = (h1 + i * h2 + (i * i * i - i) / 6) % m
    if redis.call('SETBIT', segment, bit, 1) == 0 then new = 1 end
  end
  if member ~= '' then
    local added = redis.call('SADD', sample, member)
    if new == 0 and added == 1 then return 2 end
  end
  return new
end
"""

# KEYS: segment, exact sample; ARGV: sample member ('' = not sampled), h1, h2, k, m
ADD = (
    _ADD_FUNCTION
    + """
return bloom_add(KEYS[1], KEYS[2], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]),
  tonumber(ARGV[4]), tonumber(ARGV[5]))
"""
)

# KEYS: exact sample, segments...; ARGV: k, m, then per fingerprint: segment number (from 1),
# member, h1, h2. Returns the outcome of each, as ADD.
ADD_MANY = (
    _ADD_FUNCTION
    + """
local k, m, out = tonumber(ARGV[1]), tonumber(ARGV[2]), {}
for i = 3, #ARGV, 4 do
  out[#out + 1] = bloom_add(KEYS[1 + tonumber(ARGV[i])], KEYS[1], ARGV[i + 1],
    tonumber(ARGV[i + 2]), tonumber(ARGV[i + 3]), k, m)
end
return out
"""
)

# KEYS: segments; ARGV: bits per segment. Makes each missing segment at its full size at once
# (grown bit by bit, a string ends in a larger allocation).
ALLOCATE = """
for i = 1, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 0 then redis.call('SETBIT', KEYS[i], ARGV[1] - 1, 0) end
end
return 1
"""

# KEYS: segment; ARGV: h1, h2, k, m. 1 when every bit is set (seen, or a false positive).
CONTAINS = """
local h1, h2, k, m = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
for i = 0, k - 1 do
  if redis.call('GETBIT', KEYS[1], (h1 + i * h2 + (i * i * i - i) / 6) % m) == 0 then return 0 end
end
return 1
"""


@dataclass(frozen=True, slots=True)
class BloomSize:
    """A filter's size: ``bits`` in all, ``hashes`` bits per fingerprint, ``segments`` keys."""

    bits: int
    hashes: int
    segments: int

    @classmethod
    def of(cls, capacity: int, error_rate: float) -> BloomSize:
        """The optimal size for ``capacity`` fingerprints at ``error_rate`` false positives."""
        if capacity < 1 or not 0 < error_rate < 1:
            raise ValueError(f"Bloom filter of {capacity} URLs at error rate {error_rate}")
        bits = math.ceil(-capacity * math.log(error_rate) / math.log(2) ** 2)
        hashes = max(1, round(bits / capacity * math.log(2)))
        segments = math.ceil(bits / SEGMENT_BITS)
        bits = math.ceil(bits / segments / 8) * 8 * segments  # whole bytes per segment
        return cls(bits, hashes, segments)

    @property
    def segment_bits(self) -> int:
        return self.bits // self.segments

    def expected_error(self, count: int) -> float:
        """The false-positive rate once ``count`` fingerprints are in: (1 - e^(-kn/m))^k."""
        return float((1 - math.exp(-self.hashes * count / self.bits)) ** self.hashes)

    def dump(self) -> str:
        return f"{self.bits},{self.hashes},{self.segments}"

    @classmethod
    def load(cls, text: str | bytes) -> BloomSize:
        if isinstance(text, bytes):
            text = text.decode("ascii")
        bits, hashes, segments = (int(part) for part in text.split(","))
        return cls(bits, hashes, segments)


def hashes(fingerprint: bytes, size: BloomSize) -> tuple[int, int, int]:
    """``(segment, h1, h2)`` of a (at least 20-byte) fingerprint."""
    h1 = int.from_bytes(fingerprint[0:4], "big")
    h2 = int.from_bytes(fingerprint[4:8], "big") | 1
    return int.from_bytes(fingerprint[16:20], "big") % size.segments, h1, h2


def positions(fingerprint: bytes, size: BloomSize) -> tuple[int, list[int]]:
    """The segment and the bit positions of a fingerprint (as the Lua scripts set them)."""
    segment, h1, h2 = hashes(fingerprint, size)
    m = size.segment_bits
    return segment, [(h1 + i * h2 + (i * i * i - i) // 6) % m for i in range(size.hashes)]


def sampled(fingerprint: bytes, sample: int) -> bool:
    """Whether the fingerprint is one of the one in ``sample`` kept exactly (0: none)."""
    return sample > 0 and int.from_bytes(fingerprint[12:16], "big") % sample == 0


class BloomDupeFilter:
    """Scrapy's duplicate-filter interface (``request_seen``, ``log``, ``close``) over the
    shared Bloom filter. ``fingerprint`` maps a request to its bytes (the crawler's request
    fingerprinter)."""

    def __init__(
        self,
        client: redis.Redis,
        base: str,
        size: BloomSize,
        *,
        sample: int,
        fingerprint: Any,
        stats: Any,
    ):
        self.client = client
        self.base = base
        self.sample = sample
        self.fingerprint = fingerprint
        self.stats = stats
        self.size = self._shared_size(size)
        self._add = client.register_script(ADD)
        self._add_many = client.register_script(ADD_MANY)
        self._contains = client.register_script(CONTAINS)
        client.register_script(ALLOCATE)(keys=self.keys[:-2], args=[self.size.segment_bits])

    @classmethod
    def keys_of(cls, base: str, size: BloomSize) -> list[str]:
        """The keys of a filter (its segments, its exact sample, its size)."""
        return [*(f"{base}bloom:{n}" for n in range(size.segments)), *cls._extra(base)]

    @staticmethod
    def _extra(base: str) -> tuple[str, str]:
        return f"{base}bloom-sample", f"{base}bloom-size"

    @property
    def keys(self) -> list[str]:
        return self.keys_of(self.base, self.size)

    def _shared_size(self, mine: BloomSize) -> BloomSize:
        key = self._extra(self.base)[1]
        self.client.set(key, mine.dump(), nx=True)
        stored = self.client.get(key)
        size = BloomSize.load(stored) if stored else mine
        if size != mine:
            logger.warning(
                "the crawl's Bloom filter was sized by another worker (%s bits, %s hashes); "
                "this worker's settings would make %s bits, %s hashes: using the crawl's",
                size.bits,
                size.hashes,
                mine.bits,
                mine.hashes,
            )
        return size

    def request_seen(self, request: Any) -> bool:
        fp = self.fingerprint(request)
        outcome = self.add(fp)
        if outcome == 2:
            self.stats.inc_value("structcrawl/distributed/bloom/false_positives")
            logger.debug("Bloom filter false positive let through: %s", request)
        return outcome == 0

    def add(self, fp: bytes) -> int:
        """Add a fingerprint: 1 new, 0 seen, 2 a false positive caught by the exact sample."""
        segment, h1, h2 = hashes(fp, self.size)
        member = fp[:8] if sampled(fp, self.sample) else b""
        if member:
            self.stats.inc_value("structcrawl/distributed/bloom/sampled")
        keys, size = self.keys, self.size
        args: list[Any] = [member, h1, h2, size.hashes, size.segment_bits]
        return int(self._add(keys=[keys[segment], keys[-2]], args=args))

    def add_many(self, fps: list[bytes]) -> list[int]:
        """Add many fingerprints in one call (seeding a crawl): the outcome of each."""
        args: list[Any] = [self.size.hashes, self.size.segment_bits]
        for fp in fps:
            segment, h1, h2 = hashes(fp, self.size)
            args += [segment + 1, fp[:8] if sampled(fp, self.sample) else b"", h1, h2]
        keys = self.keys
        return [int(x) for x in self._add_many(keys=[keys[-2], *keys[:-2]], args=args)]

    def contains(self, fp: bytes, client: Any = None) -> Any:
        """Whether the filter holds ``fp`` (or a false positive), without adding it; with a
        pipeline as ``client``, the answer comes with the pipeline's."""
        segment, h1, h2 = hashes(fp, self.size)
        args = [h1, h2, self.size.hashes, self.size.segment_bits]
        return self._contains(keys=[self.keys[segment]], args=args, client=client)

    def log(self, request: Any, spider: Any) -> None:
        self.stats.inc_value("structcrawl/distributed/bloom/refused")

    def close(self, reason: str = "") -> None:
        pass

    def clear(self) -> None:
        """Never called by the distributed scheduler (it never flushes)."""
        self.client.delete(*self.keys)
