"""Requests in the shared queue as JSON, not pickle (pure).

scrapy-redis pickles requests by default, so anyone able to write to the Redis server could
make every worker run code of their choosing. This serializer (``loads``/``dumps``, the
interface scrapy-redis expects) writes ``Request.to_dict()`` as JSON with three tags:
``{"$b": base64}`` for bytes, ``{"$t": [...]}`` for tuples and ``{"$d": [[k, v], ...]}`` for
mappings whose keys are not all strings (headers) or could be mistaken for a tag. Anything
else (an object in ``meta``) raises ``TypeError``: the scheduler then keeps that request on
its own worker instead of sharing it.

>>> data = {"url": "http://a/", "body": b"x", "headers": {b"Accept": [b"*/*"]},
...         "meta": {"n": (1, 2)}}
>>> loads(dumps(data)) == data
True
>>> dumps({"meta": {"page": object()}})
Traceback (most recent call last):
...
TypeError: cannot share a value of type object in a request
"""

from __future__ import annotations

import base64
import json
from typing import Any

__all__ = ["dumps", "loads"]

_TAGS = frozenset({"$b", "$t", "$d"})


def _encode(value: Any) -> Any:
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (bytes, bytearray)):
        return {"$b": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if isinstance(value, tuple):
        return {"$t": [_encode(v) for v in value]}
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value) and not _TAGS.intersection(value):
            return {k: _encode(v) for k, v in value.items()}
        return {"$d": [[_encode(k), _encode(v)] for k, v in value.items()]}
    raise TypeError(f"cannot share a value of type {type(value).__name__} in a request")


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if isinstance(value, dict):
        if len(value) == 1:
            ((tag, inner),) = value.items()
            if tag == "$b":
                return base64.b64decode(inner)
            if tag == "$t":
                return tuple(_decode(v) for v in inner)
            if tag == "$d":
                return {_hashable(_decode(k)): _decode(v) for k, v in inner}
        return {k: _decode(v) for k, v in value.items()}
    return value


def _hashable(key: Any) -> Any:
    return tuple(key) if isinstance(key, list) else key


def dumps(obj: Any) -> bytes:
    """JSON bytes of a request dict; ``TypeError`` for values JSON cannot carry."""
    return json.dumps(_encode(obj), separators=(",", ":"), allow_nan=False).encode("utf-8")


def loads(data: bytes | str) -> Any:
    """The request dict ``dumps`` wrote (``ValueError`` for anything else)."""
    return _decode(json.loads(data))
