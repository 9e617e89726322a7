"""Processors: small pure functions that clean the values a site rule's selector returns.

A field rule names its processors in order (``processors = ["normalize_space", "regex:(\\d+)"]``);
:func:`compile_processors` turns the names into a :class:`ProcessorChain` once, at load time.
The chain works on the list of values one selector returned:

* **value processors** map over the values and pass through anything they do not apply to (a
  number given to ``strip``, a string ``int`` cannot read), in the style of zyte-common-items:
  ``strip``, ``normalize_space``, ``lower``, ``upper``, ``absolute_url``, ``int``, ``float``,
  ``regex:<pattern>``. ``regex`` is a filter, as parsel's ``.re()`` is: a string it does not
  match is dropped; the value is the first group when the pattern has groups, else the match.
* **list processors** reduce the list: ``first``, ``last``, ``join`` (a space) or
  ``join:<separator>``.

``None`` and empty strings are dropped after every step.

>>> chain = compile_processors(["normalize_space", "regex:([0-9.,]+)", "first"])
>>> chain(["  $ 1,049.00 ", "$9.00"], "https://shop.example/")
['1,049.00']
>>> compile_processors(["absolute_url"])(["../img/a.svg"], "https://shop.example/p/x.html")
['https://shop.example/img/a.svg']
>>> to_int(" 42 "), to_int("4,2"), to_float("4.5")
(42, '4,2', 4.5)

Pure module: no Scrapy imports.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin

__all__ = [
    "PROCESSOR_NAMES",
    "ProcessorChain",
    "absolute_url",
    "compile_processors",
    "first",
    "join",
    "last",
    "lower",
    "normalize_space",
    "regex",
    "strip",
    "to_float",
    "to_int",
    "upper",
]

# A compiled step: (values, base_url) -> values.
_Step = Callable[[list[Any], str], list[Any]]


def strip(value: Any) -> Any:
    """Strip surrounding whitespace from a string.

    >>> strip("  a b \\n")
    'a b'
    """
    return value.strip() if isinstance(value, str) else value


def normalize_space(value: Any) -> Any:
    """Collapse every run of whitespace (no-break spaces included) to one space, and strip.

    >>> normalize_space(" 1.299,00\\xa0 €\\n")
    '1.299,00 €'
    """
    return " ".join(value.split()) if isinstance(value, str) else value


def lower(value: Any) -> Any:
    """Lower-case a string."""
    return value.lower() if isinstance(value, str) else value


def upper(value: Any) -> Any:
    """Upper-case a string."""
    return value.upper() if isinstance(value, str) else value


def absolute_url(value: Any, base_url: str) -> Any:
    """Resolve a (relative) URL string against ``base_url``; a value that is not a usable URL
    reference is returned stripped, as written.

    >>> absolute_url("/a?b=1", "http://shop.example/x/y.html")
    'http://shop.example/a?b=1'
    >>> absolute_url("http://[bad", "http://shop.example/")
    'http://[bad'
    """
    if not isinstance(value, str):
        return value
    try:
        return urljoin(base_url, value.strip())
    except ValueError:
        return value.strip()


def to_int(value: Any) -> Any:
    """``int`` of a string of digits (sign and surrounding space allowed), else unchanged."""
    if isinstance(value, str):
        text = value.strip()
        if re.fullmatch(r"[+-]?\d+", text):
            return int(text)
    return value


def to_float(value: Any) -> Any:
    """``float`` of a decimal number written with a dot, else unchanged (``nan``/``inf`` too).

    >>> to_float("nan"), to_float("-1.5e3")
    ('nan', -1500.0)
    """
    if isinstance(value, str):
        text = value.strip()
        if re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", text):
            return float(text)
    return value


def regex(value: Any, pattern: re.Pattern[str]) -> Any:
    """The first group (or the whole match) of ``pattern`` in a string; ``None`` when it does
    not match (the value is dropped); non-strings pass through.

    >>> regex("SKU: NW-1", re.compile(r"SKU:\\s*(\\S+)")), regex("none", re.compile(r"\\d"))
    ('NW-1', None)
    """
    if not isinstance(value, str):
        return value
    match = pattern.search(value)
    if match is None:
        return None
    if pattern.groups:
        return match.group(1)
    return match.group(0)


def first(values: list[Any]) -> list[Any]:
    """Keep the first value."""
    return values[:1]


def last(values: list[Any]) -> list[Any]:
    """Keep the last value."""
    return values[-1:]


def join(values: list[Any], separator: str = " ") -> list[Any]:
    """Join all values (as strings) into one.

    >>> join(["$", "129.99"], "")
    ['$129.99']
    """
    if not values:
        return []
    return [separator.join(str(v) for v in values)]


_VALUE_PROCESSORS: dict[str, Callable[[Any], Any]] = {
    "strip": strip,
    "normalize_space": normalize_space,
    "lower": lower,
    "upper": upper,
    "int": to_int,
    "float": to_float,
}
_LIST_PROCESSORS: dict[str, Callable[[list[Any]], list[Any]]] = {
    "first": first,
    "last": last,
    "join": join,
}
#: Every processor name a rules file may use (``regex:`` and ``join:`` take an argument).
PROCESSOR_NAMES = (*_VALUE_PROCESSORS, *_LIST_PROCESSORS, "absolute_url", "regex:", "join:")


def _keep(values: list[Any]) -> list[Any]:
    return [v for v in values if v is not None and v != ""]


def _map(func: Callable[[Any], Any]) -> _Step:
    return lambda values, _base: [func(v) for v in values]


def _compile_one(spec: str) -> _Step:
    if spec in _VALUE_PROCESSORS:
        return _map(_VALUE_PROCESSORS[spec])
    if spec in _LIST_PROCESSORS:
        reduce = _LIST_PROCESSORS[spec]
        return lambda values, _base: reduce(values)
    if spec == "absolute_url":
        return lambda values, base: [absolute_url(v, base) for v in values]
    if spec.startswith("join:"):
        separator = spec[len("join:") :]
        return lambda values, _base: join(values, separator)
    if spec.startswith("regex:"):
        try:
            pattern = re.compile(spec[len("regex:") :])
        except re.error as exc:
            raise ValueError(f"processor {spec!r}: invalid regular expression ({exc})") from None
        return lambda values, _base: [regex(v, pattern) for v in values]
    raise ValueError(f"unknown processor {spec!r} (known: {', '.join(PROCESSOR_NAMES)})")


@dataclass(frozen=True, slots=True)
class ProcessorChain:
    """Processors compiled from their names; call it with ``(values, base_url)``."""

    names: tuple[str, ...]
    steps: tuple[_Step, ...] = field(default=(), repr=False, compare=False)

    def __call__(self, values: Sequence[Any], base_url: str) -> list[Any]:
        out = _keep(list(values))
        for step in self.steps:
            out = _keep(step(out, base_url))
        return out


def compile_processors(names: Sequence[str]) -> ProcessorChain:
    """Compile processor names; raises ``ValueError`` naming an unknown processor or a bad
    regular expression (a configuration mistake, reported when the rules are loaded)."""
    return ProcessorChain(tuple(names), tuple(_compile_one(name) for name in names))
