"""When two values are the same value (pure): the one comparison entity merging, item field
choice and conflict reporting share.

Two values are the same when they read the same after whitespace and case folding, numbers
compared as decimals (``12``, ``"12"`` and ``"12.00"`` are one value), a literal as its lexical
value (``{"@value": "x"}`` is ``"x"``), a reference as its IRI (``{"@id": iri}`` is ``iri``),
and a list as the set of its members, so that cardinality alone is no difference
(``["x.svg"]`` is ``"x.svg"``; ``["a", "b"]`` is ``["b", "a"]``).

>>> same(12, "12.00"), same({"@value": "x"}, "X "), same(["x.svg"], "x.svg")
(True, True, True)
>>> same({"@id": "https://schema.org/InStock"}, "https://schema.org/InStock")
True
>>> same("12", "13"), same(["a"], ["a", "b"]), same(True, "true")
(False, False, False)
"""

from __future__ import annotations

import json
from decimal import Decimal, InvalidOperation
from typing import Any

__all__ = ["cmp_key", "same"]


def cmp_key(value: Any) -> str:
    """What makes two values 'the same' (see the module doc), as a string."""
    if isinstance(value, str):
        text = " ".join(value.split())
        if not text or not (text[0].isdecimal() or text[0] in "+-."):
            # not a finite number (Decimal reads one only from a sign, a digit or a point):
            # spared the cost of Decimal's exception
            return "s:" + text.casefold()
        try:
            number = Decimal(text)
        except (InvalidOperation, ValueError):
            return "s:" + text.casefold()
        if number.is_finite():
            return "n:" + format(number.normalize(), "f")
        return "s:" + text.casefold()
    if isinstance(value, bool) or value is None:
        return "j:" + json.dumps(value)
    if isinstance(value, (int, float)):
        return cmp_key(str(value))
    if isinstance(value, list | tuple):
        members = sorted({cmp_key(v) for v in value})
        return members[0] if len(members) == 1 else "l:" + json.dumps(members)
    if isinstance(value, dict) and "@value" in value:  # a typed or language-tagged literal:
        return cmp_key(value["@value"])  # the same text as a plain one (no conflict)
    if isinstance(value, dict) and set(value) == {"@id"} and isinstance(value["@id"], str):
        return cmp_key(value["@id"])  # a reference: its IRI
    if isinstance(value, dict):
        return "d:" + json.dumps({k: cmp_key(v) for k, v in sorted(value.items())})
    return "r:" + repr(value)


def same(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` are the same value (see the module doc)."""
    return a is b or cmp_key(a) == cmp_key(b)
