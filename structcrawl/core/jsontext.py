"""JSON text for what structcrawl stores (entity states, change fingerprints): orjson, a few
times faster than the standard library's encoder, and the same document; what orjson refuses
(an integer beyond 64 bits, a lone surrogate) is written by the standard library instead."""

from __future__ import annotations

import json
from typing import Any

import orjson

__all__ = ["dumps", "loads", "sorted_compact"]

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
