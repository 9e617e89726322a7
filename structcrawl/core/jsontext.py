"""JSON text for what structcrawl stores (entity states, change fingerprints): orjson, a few
times faster than the standard library's encoder, and the same document; what orjson refuses
(an integer beyond 64 bits, a lone surrogate) is written by the standard library instead."""

from __future__ import annotations

import json
from typing import Any

import orjson

__all__ = ["dumps", "loads"]

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
