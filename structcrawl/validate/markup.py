"""Items the markup gives no type: ``untyped-item``.

A JSON-LD node without ``@type`` or a Microdata ``itemscope`` without ``itemtype`` is data of
no type: no rich result reads it, and the properties' names cannot be checked against any
vocabulary. Only top-level items are reported (a nested value without a type, such as an
inline ``address``, is read as the property's expected type). RDFa subjects without
``typeof`` are left alone: statements about the page or a resource need no type.

>>> untyped_issue({"format": "json-ld", "type": [], "properties": {"name": "K"}}) is not None
True
>>> untyped_issue({"format": "rdfa", "type": [], "properties": {"name": "K"}}) is None
True
"""

from __future__ import annotations

from typing import Any

from structcrawl.validate._issues import Issue

__all__ = ["untyped_issue"]

_TYPED_SYNTAXES = {
    "json-ld": "a JSON-LD node without @type",
    "microdata": "an itemscope without itemtype",
}


def untyped_issue(record: dict[str, Any]) -> Issue | None:
    """The ``untyped-item`` warning of a top-level record with no type, else None."""
    said = _TYPED_SYNTAXES.get(str(record.get("format")))
    types = record.get("type")
    if said is None or (isinstance(types, list) and any(isinstance(t, str) for t in types)):
        return None
    if isinstance(types, str) and types:
        return None
    return Issue("", "untyped-item", f"{said}: an item of no type, which no rich result reads")
