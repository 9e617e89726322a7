"""Values a node states that cannot be right: outside their range, or of the wrong type.

Checked per node (the validator walks nested records), each only when the values are there:

* ``rating-out-of-range`` (error): ``ratingValue`` above ``bestRating`` or below
  ``worstRating`` (Google assumes 5 and 1 when they are not given), or ``bestRating`` below
  ``worstRating``;
* ``rating-count-zero`` (error): an ``AggregateRating`` whose ``ratingCount`` and
  ``reviewCount`` (those given) are all zero: a rating of no ratings, which Google rejects;
* ``negative-price`` (error): ``price``, ``lowPrice``, ``highPrice`` below zero;
* ``date-in-past`` (warning): a date after which Google no longer shows the result
  (``priceValidUntil`` of an offer, ``validThrough`` of a JobPosting, the ``endDate`` of an
  Event, else its ``startDate``: an event that is over) lies before the page's retrieval
  time; not checked without one;
* ``value-not-in-range`` (warning): a value that is none of the schema.org ranges of its
  property: a nested record of an unrelated type (``offers`` holding a Person), or a literal
  where every range is a datatype it does not match (``ratingCount: "many"``, Integer).

>>> from datetime import datetime, timezone
>>> from structcrawl.validate.vocabulary import Vocabulary
>>> at = datetime(2026, 6, 1, tzinfo=timezone.utc)
>>> issues = value_issues(["AggregateRating"], {"ratingValue": "7", "bestRating": "5"}, "r",
...                       Vocabulary.default(), at)
>>> [(i.path, i.code) for i, _ in issues]
[('r.ratingValue', 'rating-out-of-range')]
>>> [(i.path, i.code) for i, _ in value_issues(["Offer"], {"priceValidUntil": "2020-01-31"},
...                                            "", Vocabulary.default(), at)]
[('priceValidUntil', 'date-in-past')]
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from structcrawl.core.records import short_schema_name
from structcrawl.validate._issues import Issue, join_path, short_repr
from structcrawl.validate.vocabulary import Vocabulary, is_schema_term

__all__ = ["value_issues"]

#: ``(issue, is_error)``
Finding = tuple[Issue, bool]

_PRICES = ("price", "lowPrice", "highPrice")
#: Dates after which Google stops showing the rich result, by property and node type.
_EXPIRES = {"priceValidUntil": None, "validThrough": "JobPosting"}
_RATING_TYPES = frozenset({"Rating", "AggregateRating"})
_NUMBER = re.compile(r"^\s*[+-]?(\d+([.,]\d*)?|[.,]\d+)([eE][+-]?\d+)?\s*$")
_INTEGER = re.compile(r"^\s*[+-]?\d+\s*$")
_DATE = re.compile(r"^\s*-?\d{4}(-\d{2}(-\d{2})?)?(T|\s*$)")
_TIME = re.compile(r"^\s*\d{2}:\d{2}")
_BOOLEAN = frozenset(
    {
        "true",
        "false",
        "https://schema.org/true",
        "https://schema.org/false",
        "http://schema.org/true",
        "http://schema.org/false",
    }
)
_LEXICAL: dict[str, Callable[[str], Any]] = {
    "Number": _NUMBER.match,
    "Float": _NUMBER.match,
    "Integer": _INTEGER.match,
    "Date": _DATE.match,
    "DateTime": _DATE.match,
    "Time": _TIME.match,
    "Boolean": lambda v: v.strip().casefold() in _BOOLEAN,
}
_TEXTUAL = frozenset({"Text", "URL", "CssSelectorType", "XPathType", "PronounceableText"})


def _scalar(value: Any) -> Any:
    if isinstance(value, dict) and "@value" in value:
        return value["@value"]
    return value


def _decimal(value: Any) -> Decimal | None:
    value = _scalar(value)
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    text = str(value).strip().replace(",", ".") if isinstance(value, str) else str(value)
    if isinstance(value, str) and text.count(".") > 1:
        return None
    try:
        number = Decimal(text)
    except InvalidOperation:
        return None
    return number if number.is_finite() else None


def _day(value: Any) -> date | None:
    value = _scalar(value)
    if not isinstance(value, str):
        return None
    match = re.match(r"\s*(\d{4})-(\d{2})-(\d{2})", value)
    try:
        return date(int(match[1]), int(match[2]), int(match[3])) if match else None
    except ValueError:
        return None


def _single(value: Any) -> Any:
    return value[0] if isinstance(value, list) and len(value) == 1 else value


def _rating(props: dict[str, Any], path: str) -> Iterator[Finding]:
    value = _decimal(_single(props.get("ratingValue")))
    best = _decimal(_single(props.get("bestRating")))
    worst = _decimal(_single(props.get("worstRating")))
    high = best if best is not None else Decimal(5)
    low = worst if worst is not None else Decimal(1)
    if best is not None and worst is not None and best < worst:
        message = f"bestRating {best} is below worstRating {worst}"
        yield Issue(join_path(path, "bestRating"), "rating-out-of-range", message), True
    elif value is not None and not low <= value <= high:
        said = "" if best is not None and worst is not None else " (Google assumes 5 and 1)"
        message = f"ratingValue {value} is outside worstRating {low} .. bestRating {high}{said}"
        yield Issue(join_path(path, "ratingValue"), "rating-out-of-range", message), True


def _counts(props: dict[str, Any], path: str) -> Iterator[Finding]:
    counts = {n: _decimal(_single(props.get(n))) for n in ("ratingCount", "reviewCount")}
    given = {n: c for n, c in counts.items() if c is not None}
    if given and all(c <= 0 for c in given.values()):
        name = "ratingCount" if "ratingCount" in given else "reviewCount"
        said = " and ".join(f"{n} {c}" for n, c in given.items())
        message = f"{said}: an aggregate rating must count at least one rating or review"
        yield Issue(join_path(path, name), "rating-count-zero", message), True


def _prices(props: dict[str, Any], path: str) -> Iterator[Finding]:
    for name in _PRICES:
        values = props.get(name)
        for value in values if isinstance(values, list) else [values]:
            number = _decimal(value)
            if number is not None and number < 0:
                message = f"{name} {short_repr(_scalar(value))} is negative"
                yield Issue(join_path(path, name), "negative-price", message), True


def _expired(
    types: frozenset[str], props: dict[str, Any], path: str, at: datetime | None
) -> Iterator[Finding]:
    if at is None:
        return
    today = (at if at.tzinfo else at.replace(tzinfo=UTC)).astimezone(UTC)
    names = list(_EXPIRES.items())
    if "Event" in types:  # an event is over after its end (its start when no end is given)
        names.append(("endDate" if "endDate" in props else "startDate", "Event"))
    for name, only_on in names:
        if name not in props or (only_on is not None and only_on not in types):
            continue
        day = _day(_single(props[name]))
        if day is not None and day < today.date():
            message = (
                f"{name} {day.isoformat()} is before the page was retrieved "
                f"({today.date().isoformat()}): Google may not show the result"
            )
            yield Issue(join_path(path, name), "date-in-past", message), False


def _record_types(value: Any) -> list[str] | None:
    if isinstance(value, dict) and "properties" in value and "type" in value:
        types = value.get("type") or []
        return [t for t in types if isinstance(t, str)] if isinstance(types, list) else []
    return None


def _wrong_range(prop: str, value: Any, ranges: tuple[str, ...], vocab: Vocabulary) -> str | None:
    """Why ``value`` is none of ``ranges`` (None when it is one, or cannot be told)."""
    types = _record_types(value)
    if types is not None:
        known = [short_schema_name(t) for t in types if is_schema_term(t) and vocab.is_type(t)]
        if set(known) <= {"Thing"} or "Role" in {a for t in known for a in vocab.ancestors(t)}:
            return None
        if any(vocab.ancestors(t) & set(ranges) for t in known):
            return None
        if all(r in _LEXICAL or r in _TEXTUAL or r == "DataType" for r in ranges):
            return None  # a datatype range given a node: the schemas' wrong-type says so
        return f"a {'/'.join(known)} record, where {prop} expects {' or '.join(ranges)}"
    value = _scalar(value)
    if not isinstance(value, str) or not ranges or any(r not in _LEXICAL for r in ranges):
        return None
    if any(_LEXICAL[r](value) for r in ranges):
        return None
    return f"{short_repr(value)}, where {prop} expects {' or '.join(ranges)}"


def _types_found(props: dict[str, Any], path: str, vocab: Vocabulary) -> Iterator[Finding]:
    for prop, values in props.items():
        if not isinstance(prop, str) or not is_schema_term(prop) or not vocab.is_property(prop):
            continue
        ranges = vocab.properties[short_schema_name(prop)][1]
        items = values if isinstance(values, list) else [values]
        for i, value in enumerate(items):
            why = _wrong_range(prop, value, ranges, vocab)
            if why is not None:
                where = join_path(path, prop)
                where = join_path(where, i) if isinstance(values, list) else where
                yield Issue(where, "value-not-in-range", f"{prop} is {why}"), False


def value_issues(
    types: list[str],
    props: dict[str, Any],
    path: str,
    vocab: Vocabulary,
    at: datetime | None = None,
) -> list[Finding]:
    """The range and type findings of one node (``at``: when the page was retrieved)."""
    known = frozenset(a for t in types if is_schema_term(t) for a in vocab.ancestors(t))
    found: list[Finding] = []
    if known & _RATING_TYPES or "ratingValue" in props:
        found.extend(_rating(props, path))
    if "AggregateRating" in known:
        found.extend(_counts(props, path))
    found.extend(_prices(props, path))
    found.extend(_expired(known, props, path, at))
    found.extend(_types_found(props, path, vocab))
    return found
