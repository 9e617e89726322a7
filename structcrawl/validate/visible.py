"""Semantic data against what the page shows: disagreements become conflicts, never a
silent choice of one side.

>>> facts = VisibleFacts(title="Trail Runner X | Northwind", h1=["Trail Runner X"],
...                      canonical=None, prices=["$139.99"], times=[])
>>> record = {"kind": "entity", "type": ["Product"], "properties": {
...     "name": "Trail Runner X",
...     "offers": {"type": ["Offer"], "properties": {"price": "129.99"}}}}
>>> [(c["field"], c["code"]) for c in check_visible(record, facts)]
[('offers.price', 'price-vs-visible')]

Checks (each only when both sides have something to compare):

* ``name`` / ``headline`` of a page-subject record (a Product, Article, Event, Recipe,
  JobPosting, LocalBusiness, WebPage, ... or subtype) against the ``<title>`` and the
  ``<h1>``s, after normalization (Unicode NFKC, case folding, punctuation and whitespace
  runs as one space): it agrees when it contains or is contained in the title (titles carry
  " | Site" suffixes) or an h1, word for word. Code ``name-vs-title`` / ``headline-vs-title``.
* the offer prices (``offers[...].price``, ``lowPrice``, ``highPrice``,
  ``priceSpecification.price``, or the record's own when it is an Offer) against the
  visible prices, compared as decimals; visible strings such as ``€1.299,00`` are parsed
  with price-parser. When none of the record's prices is among the visible ones, each is a
  conflict (code ``price-vs-visible``; ``visible_value`` is the list of visible price
  strings). When one is, the others (a second seller, the ``highPrice`` of "from $349") may
  simply not be shown: no conflict.
* ``datePublished`` and ``startDate`` against the ``<time>`` values: the same calendar date,
  or the same instant when both sides carry a time zone. Code ``date-vs-time``;
  ``visible_value`` is the list of visible times.
* ``url`` of a WebPage (or subtype) against ``<link rel=canonical>``, canonicalized.
  Code ``url-vs-canonical``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from typing import Any

from w3lib.url import canonicalize_url

from structcrawl.validate._issues import join_path
from structcrawl.validate.vocabulary import Vocabulary
from structcrawl.visible.compare import agrees
from structcrawl.visible.facts import VisibleFacts
from structcrawl.visible.prices import amount

__all__ = ["SUBJECT_TYPES", "FactsLike", "VisibleFacts", "check_visible", "offer_prices"]

#: Types whose name is expected to be what the page is titled after (subtypes included).
SUBJECT_TYPES = frozenset(
    {
        "Product",
        "Article",
        "Event",
        "Recipe",
        "JobPosting",
        "LocalBusiness",
        "WebPage",
        "Course",
        "Book",
        "Movie",
        "SoftwareApplication",
        "Dataset",
        "HowTo",
    }
)
_DATE_FIELDS = ("datePublished", "startDate")
_PRICE_FIELDS = ("price", "lowPrice", "highPrice")
_ISO_DATE = re.compile(r"^\s*(\d{4}-\d{2}-\d{2})")


#: What :func:`check_visible` reads facts from: a :class:`VisibleFacts`, or any mapping of its
#: fields (read field by field, only when a check has a record value to compare, so a lazily
#: computed mapping computes only the facts some record needs).
FactsLike = VisibleFacts | Mapping[str, Any]


def _texts(facts: FactsLike, name: str) -> list[str]:
    if isinstance(facts, VisibleFacts):
        return list(getattr(facts, name))
    items = facts.get(name) or []
    return [s for s in items if isinstance(s, str)] if isinstance(items, list) else []


def _text(facts: FactsLike, name: str) -> str | None:
    value = getattr(facts, name) if isinstance(facts, VisibleFacts) else facts.get(name)
    return value if isinstance(value, str) else None


def check_visible(record: dict[str, Any], facts: FactsLike | None) -> list[dict[str, Any]]:
    """Conflicts between one record and the page's visible facts (``[]`` without facts).

    A fact is read only when the record has a value it is compared with."""
    if not isinstance(facts, (VisibleFacts, Mapping)) or not isinstance(record, dict):
        return []
    if record.get("kind", "entity") != "entity":
        return []
    props = record.get("properties")
    if not isinstance(props, dict):
        return []
    scope = _scope(record)
    conflicts: list[dict[str, Any]] = []
    if scope & SUBJECT_TYPES:
        for name in ("name", "headline"):
            conflicts.extend(_name_conflict(name, _first_text(props.get(name)), facts))
    conflicts.extend(_price_conflicts(record, props, scope, facts))
    for name in _DATE_FIELDS:
        conflicts.extend(_date_conflict(name, _first_text(props.get(name)), facts))
    if "WebPage" in scope:
        conflicts.extend(_canonical_conflict(_first_text(props.get("url")), facts))
    return conflicts


def _scope(record: Mapping[str, Any]) -> frozenset[str]:
    vocab = Vocabulary.default()
    types = record.get("type")
    names = [types] if isinstance(types, str) else types if isinstance(types, list) else []
    return frozenset().union(*(vocab.ancestors(t) for t in names if isinstance(t, str)))


def _first_text(value: Any) -> str | None:
    if isinstance(value, list):
        value = value[0] if value else None
    if isinstance(value, dict):
        value = value.get("@value")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return value if isinstance(value, str) and value.strip() else None


def _conflict(
    field_: str, record_value: Any, visible: Any, source: str, code: str
) -> dict[str, Any]:
    return {
        "field": field_,
        "record_value": record_value,
        "visible_value": visible,
        "visible_source": source,
        "code": code,
    }


def _name_conflict(name: str, value: str | None, facts: FactsLike) -> list[dict[str, Any]]:
    if value is None:
        return []
    title = _text(facts, "title")
    title = title if title and title.strip() else None
    if title is not None and agrees(value, title):
        return []  # the h1s are read only when the title does not agree
    headings = [h for h in _texts(facts, "h1") if h.strip()]
    if title is None and not headings:
        return []
    if any(agrees(value, seen) for seen in headings):
        return []
    source, visible = ("title", title) if title else ("h1", headings[0])
    return [_conflict(name, value, visible, source, f"{name}-vs-title")]


def _offer_prices(
    record: Mapping[str, Any],
    path: str,
    fields: tuple[str, ...],
    spec_kept: Callable[[dict[str, Any]], bool] | None,
) -> Iterator[tuple[str, Any]]:
    """(path, raw value) of each price of an offer record and its price specifications."""
    props = record.get("properties") or {}
    for key in fields:
        for i, value in _each(props.get(key)):
            yield _indexed(join_path(path, key), i), value
    for i, spec in _each(props.get("priceSpecification")):
        if isinstance(spec, dict) and (spec_kept is None or spec_kept(spec)):
            where = _indexed(join_path(path, "priceSpecification"), i)
            yield from _offer_prices(spec, where, fields, spec_kept)


def offer_prices(
    record: Mapping[str, Any],
    is_offer: bool,
    fields: tuple[str, ...] = _PRICE_FIELDS,
    spec_kept: Callable[[dict[str, Any]], bool] | None = None,
) -> list[tuple[str, Any]]:
    """(path, raw value) of the prices of a record's offers, and of its own when it is an
    offer (``is_offer``): the ``fields`` of each offer and of each of its price
    specifications that ``spec_kept`` keeps (all by default)."""
    prices: list[tuple[str, Any]] = []
    if is_offer:
        prices.extend(_offer_prices(record, "", fields, spec_kept))
    for i, offer in _each((record.get("properties") or {}).get("offers")):
        if isinstance(offer, dict) and isinstance(offer.get("properties"), dict):
            prices.extend(_offer_prices(offer, _indexed("offers", i), fields, spec_kept))
    return prices


def _each(value: Any) -> Iterator[tuple[int | None, Any]]:
    """(index, item) of a list, or (None, value) of a single value."""
    if isinstance(value, list):
        yield from enumerate(value)
    elif value is not None:
        yield None, value


def _indexed(path: str, index: int | None) -> str:
    return path if index is None else join_path(path, index)


def _price_conflicts(
    record: Mapping[str, Any], props: Mapping[str, Any], scope: frozenset[str], facts: FactsLike
) -> list[dict[str, Any]]:
    prices = offer_prices(record, bool(scope & {"Offer", "AggregateOffer"}))
    if not prices:
        return []
    shown = _texts(facts, "prices")
    visible = {d for d in map(amount, shown) if d is not None}
    if not visible:
        return []
    amounts = [(path, raw, amount(raw)) for path, raw in prices]
    amounts = [(path, raw, amount) for path, raw, amount in amounts if amount is not None]
    if any(amount in visible for _, _, amount in amounts):
        return []  # the page shows one of the prices; the others may simply not be shown
    return [
        _conflict(path, raw, list(shown), "price", "price-vs-visible") for path, raw, _ in amounts
    ]


def _instant(text: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


def _date_conflict(name: str, value: str | None, facts: FactsLike) -> list[dict[str, Any]]:
    day = _ISO_DATE.match(value) if value else None
    if value is None or day is None:
        return []
    times = _texts(facts, "times")
    seen = [(m.group(1), t) for t in times if (m := _ISO_DATE.match(t))]
    if not seen:
        return []
    moment = _instant(value)
    for visible_day, text in seen:
        if visible_day == day.group(1):
            return []
        other = _instant(text)
        if moment is not None and other is not None and moment == other:
            return []
    return [_conflict(name, value, list(times), "time", "date-vs-time")]


def _canonical_conflict(url: str | None, facts: FactsLike) -> list[dict[str, Any]]:
    canonical = _text(facts, "canonical") if url else None
    if not url or not canonical:
        return []
    try:
        same = canonicalize_url(url) == canonicalize_url(canonical)
    except ValueError:
        same = url.strip() == canonical.strip()
    return [] if same else [_conflict("url", url, canonical, "canonical", "url-vs-canonical")]
