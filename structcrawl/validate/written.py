"""Values in a format search engines do not read, judged as the page wrote them.

Normalization repairs what it can (``"29,00 €"`` becomes ``"29.00"``, ``"May 1, 2026"`` becomes
``"2026-05-01"``), so the schemas see a good value; a publisher still needs to hear that the
page's own value is not one Google reads. This check looks at each property's sightings in the
record's provenance (the text or attribute value as written) and reports ``bad-format``
(warning) where:

* a price (``price``, ``lowPrice``, ``highPrice``) written as text is not a plain decimal
  number: no currency sign or code, no thousands separator, a dot for decimals;
* a ``priceCurrency`` is not a three-letter ISO 4217 code in capitals;
* a property whose schema.org ranges are dates (``Date``/``DateTime``: ``datePublished``,
  ``startDate``, ``priceValidUntil``) is not an ISO 8601 date or date-time;
* a property whose only schema.org range is ``Duration`` (``cookTime``, ``prepTime``,
  ``totalTime``) is not an ISO 8601 duration (``PT20M``).

and ``unknown-enumeration-member`` (warning) where a property whose ranges are enumerations
(``availability``, ``itemCondition``, ``eventStatus``) is written as something that is not a
member (``"Available"``, ``"in stock"``), even when normalization mapped it to one.

Numbers written as JSON numbers pass; values the markup gives as nested records or
references are not judged here.

>>> from structcrawl.validate.vocabulary import Vocabulary, is_schema_term
>>> record = {"properties": {"price": "29.00", "cookTime": "PT20M"}, "provenance": {"fields": {
...     "price": [{"path": "/p", "raw": "29,00 EUR"}], "cookTime": [{"raw": "20 minutes"}]}}}
>>> [(i.path, i.code) for i in written_issues(record, "offers", Vocabulary.default())]
[('offers.price', 'bad-format'), ('offers.cookTime', 'bad-format')]
>>> record = {"properties": {"availability": "https://schema.org/InStock"},
...           "provenance": {"fields": {"availability": [{"raw": "Available"}]}}}
>>> [(i.path, i.code) for i in written_issues(record, "", Vocabulary.default())]
[('availability', 'unknown-enumeration-member')]
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from structcrawl.core.records import short_schema_name
from structcrawl.validate._issues import Issue, join_path, short_repr
from structcrawl.validate.vocabulary import Vocabulary, is_schema_term

__all__ = ["written_issues"]

_PRICES = frozenset({"price", "lowPrice", "highPrice"})
_PLAIN_DECIMAL = re.compile(r"^\s*-?\d+(\.\d+)?\s*$")  # a sign: negative-price says it
_CURRENCY = re.compile(r"^\s*[A-Z]{3}\s*$")
_ISO_DATE = re.compile(
    r"^\s*-?\d{4}(-\d{2}(-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?"
    r"(Z|[+-]\d{2}(:?\d{2})?)?)?)?)?\s*$"
)
_DURATION = re.compile(
    r"^\s*-?P(?=\d|T\d)(\d+(\.\d+)?Y)?(\d+(\.\d+)?M)?(\d+(\.\d+)?W)?(\d+(\.\d+)?D)?"
    r"(T(?=\d)(\d+(\.\d+)?H)?(\d+(\.\d+)?M)?(\d+(\.\d+)?S)?)?\s*$"
)
_DATES = frozenset({"Date", "DateTime"})


def _rule(prop: str, vocab: Vocabulary) -> tuple[re.Pattern[str], str] | None:
    """The pattern a value of ``prop`` must match as written, and what it is called."""
    if prop in _PRICES:
        return _PLAIN_DECIMAL, "a plain decimal number (29.99: no currency, a dot for decimals)"
    if prop == "priceCurrency":
        return _CURRENCY, "a three-letter ISO 4217 currency code (EUR, USD)"
    if not vocab.is_property(prop):
        return None
    ranges = set(vocab.properties[short_schema_name(prop)][1])
    if ranges and ranges <= _DATES:
        return _ISO_DATE, "an ISO 8601 date or date-time (2026-05-01, 2026-05-01T10:00+02:00)"
    if ranges == {"Duration"}:
        return _DURATION, "an ISO 8601 duration (PT20M, PT1H30M)"
    return None


def _written(sightings: Any) -> Iterator[tuple[int, str]]:
    """``(index, text as written)`` of the sightings that are text."""
    for i, sighting in enumerate(sightings if isinstance(sightings, list) else []):
        raw = sighting.get("raw") if isinstance(sighting, dict) else None
        if isinstance(raw, dict):  # an RDFa literal with its language or datatype
            raw = raw.get("@value")
        if isinstance(raw, str) and raw.strip():
            yield i, raw


def _members_issues(
    prop: str, sightings: Any, many: bool, path: str, vocab: Vocabulary
) -> list[Issue]:
    members = vocab.enumeration_members(prop) if vocab.is_property(prop) else None
    if not members:
        return []
    out = []
    for i, raw in _written(sightings):
        if is_schema_term(raw.strip()) and short_schema_name(raw.strip()) not in members:
            where = join_path(join_path(path, prop), i) if many else join_path(path, prop)
            message = (
                f"{prop} is written {short_repr(raw)}: not a member of "
                f"{'/'.join(vocab.properties[short_schema_name(prop)][1])} "
                "(write the member's URL, e.g. https://schema.org/InStock)"
            )
            out.append(Issue(where, "unknown-enumeration-member", message))
    return out


def written_issues(record: dict[str, Any], path: str, vocab: Vocabulary) -> list[Issue]:
    """The warnings of one node's values as written (see the module doc)."""
    provenance = record.get("provenance")
    fields = provenance.get("fields") if isinstance(provenance, dict) else None
    props = record.get("properties")
    if not isinstance(fields, dict) or not isinstance(props, dict):
        return []
    out = []
    for prop, sightings in fields.items():
        if not isinstance(prop, str) or prop not in props:
            continue
        many = isinstance(props[prop], list)
        out.extend(_members_issues(prop, sightings, many, path, vocab))
        rule = _rule(prop, vocab)
        if rule is None:
            continue
        pattern, expected = rule
        for i, raw in _written(sightings):
            if not pattern.match(raw):
                where = join_path(join_path(path, prop), i) if many else join_path(path, prop)
                message = f"{prop} is written {short_repr(raw)}: expected {expected}"
                out.append(Issue(where, "bad-format", message))
    return out
