"""One finding of the validator: where (a dotted path into the record), what (a code), and a
sentence for people."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

__all__ = ["Issue", "join_path", "stat_field", "short_repr"]

_INDEX = re.compile(r"\[\d+\]")


@dataclass(frozen=True, slots=True)
class Issue:
    path: str
    code: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"path": self.path, "code": self.code, "message": self.message}


def join_path(prefix: str, key: str | int) -> str:
    """Extend a record path: ``offers`` + 1 -> ``offers[1]``, ``offers[1]`` + ``price`` ->
    ``offers[1].price``.

    >>> join_path(join_path(join_path("", "offers"), 1), "price")
    'offers[1].price'
    """
    if isinstance(key, int):
        return f"{prefix}[{key}]"
    return f"{prefix}.{key}" if prefix else key


def stat_field(path: str) -> str:
    """The path without list indices, fit for a stats key.

    >>> stat_field("offers[1].price")
    'offers.price'
    >>> stat_field("")
    '(record)'
    """
    field = _INDEX.sub("", path).replace("/", "_")
    return field or "(record)"


def short_repr(value: Any, limit: int = 60) -> str:
    """A one-line, bounded rendering of a value for messages.

    >>> short_repr("x" * 100)[-4:]
    "...'"
    """
    if isinstance(value, dict) and "properties" in value and "type" in value:
        text = f"a {'/'.join(map(str, value.get('type') or [])) or 'untyped'} record"
    elif isinstance(value, dict):
        text = "an object"
    elif isinstance(value, list):
        text = f"a list of {len(value)}"
    else:
        text = repr(value)
    if len(text) > limit:
        text = text[: limit - 4] + "...'" if text.startswith("'") else text[: limit - 3] + "..."
    return text
