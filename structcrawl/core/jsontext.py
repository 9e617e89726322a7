"""JSON text for what structcrawl stores and sends between its processes (entity states,
change fingerprints, the page workers' answers): orjson, a few times faster than the standard
library, and the same document; what orjson refuses (an integer beyond 64 bits, a lone
surrogate) is written by the standard library instead, and read back by it."""

from __future__ import annotations

import json
from typing import Any

import orjson

__all__ = ["dumps", "dumps_bytes", "loads", "loads_any", "sorted_compact"]

#: Reads JSON text (str or UTF-8 bytes); raises ``ValueError`` on malformed input.
loads = orjson.loads


def dumps(value: Any) -> str:
    """``value`` as JSON text, non-ASCII characters kept.

    >>> dumps({"name": "Café"}), dumps([2**70])
    ('{"name":"Café"}', '[1180591620717411303424]')
    """
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return json.dumps(value, ensure_ascii=False)


#: what the standard library's encoder refuses too: a dataclass or a date is no JSON value
_STANDARD_TYPES = orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME


def dumps_bytes(value: Any) -> bytes:
    """``value`` as UTF-8 JSON bytes, for another process (:func:`loads_any` reads them); what
    orjson refuses is written by the standard library after a space (ASCII: a lone surrogate
    escaped), so that it is read back by it too (orjson would read an integer beyond 64 bits
    as a float). Raises ``TypeError`` for what is no JSON value, as ``json.dumps`` does.

    >>> dumps_bytes(["Café", 1.5]), dumps_bytes(["\\ud800", 2**70])
    (b'["Caf\\xc3\\xa9",1.5]', b' ["\\\\ud800", 1180591620717411303424]')
    """
    try:
        return orjson.dumps(value, option=_STANDARD_TYPES)
    except TypeError:
        return b" " + json.dumps(value).encode()


def loads_any(data: bytes) -> Any:
    """What :func:`dumps_bytes` wrote; raises ``ValueError`` on malformed input.

    >>> loads_any(dumps_bytes(["\\ud800", 2**70])) == ["\\ud800", 2**70]
    True
    """
    return json.loads(data) if data[:1] == b" " else orjson.loads(data)


# what json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":")) builds on
# every call, built once
_SORTED_COMPACT = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def sorted_compact(value: Any) -> str:
    """The JSON text structcrawl hashes (entity keys, change fingerprints): keys sorted, no
    spaces, non-ASCII kept; exactly ``json.dumps(value, ensure_ascii=False, sort_keys=True,
    separators=(",", ":"))``, so hashes stay those of earlier runs.

    >>> sorted_compact({"b": ["é", None], "a": 1.5e16})
    '{"a":1.5e+16,"b":["é",null]}'
    """
    return _SORTED_COMPACT.encode(value)
