"""One page's records checked together: each record against its schemas, the vocabulary and
the visible page, then the page-wide checks that need more than one record or the parsed
page (availability and the byline against what the page shows, two syntaxes disagreeing on
one entity).

:func:`check_page` is what the validation pipeline runs on each page item, and what the
fixture corpus runs for the cases that ask for it (``"check"`` in ``meta.json``). It writes
``record["validation"]`` on every entity record and ``record["conflicts"]`` when it has
something to compare with (visible facts or the parsed page).

>>> records = [{"kind": "entity", "format": "json-ld", "type": ["Rating"],
...             "properties": {"ratingValue": "7", "bestRating": "5"}}]
>>> check_page(records, retrieved_at="2026-06-01T00:00:00Z")
>>> [e["code"] for e in records[0]["validation"]["errors"]]
['rating-out-of-range']
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from typing import Any

from structcrawl.core.document import Document
from structcrawl.core.records import short_schema_name
from structcrawl.validate.authors import article_subjects, check_authors
from structcrawl.validate.availability import check_availability, visible_availability
from structcrawl.validate.oldprice import check_old_price
from structcrawl.validate.syntaxes import syntax_conflicts
from structcrawl.validate.validator import Validator
from structcrawl.validate.visible import FactsLike, VisibleFacts, check_visible
from structcrawl.visible.prices import text_prices

__all__ = ["PagePrices", "check_page", "retrieval_time"]

_PRODUCT_TYPES = frozenset({"Product", "Offer", "AggregateOffer"})


def retrieval_time(value: Any) -> datetime | None:
    """A page's ``retrieved_at`` (ISO 8601, ``Z`` allowed) as an aware datetime, else None.

    >>> retrieval_time("2026-12-02T07:47:48Z").isoformat()
    '2026-12-02T07:47:48+00:00'
    >>> retrieval_time(""), retrieval_time(None)
    (None, None)
    """
    if isinstance(value, datetime):
        at = value
    elif isinstance(value, str) and value.strip():
        try:
            at = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
    else:
        return None
    return at if at.tzinfo else at.replace(tzinfo=UTC)


def _product_subjects(records: list[dict[str, Any]], validator: Validator) -> list[int]:
    """Indices of the product records the page is about: every top-level Product/Offer
    record when they all name one product (a listing of several is not checked)."""
    vocab = validator.vocabulary
    found = []
    names = set()
    for i, record in enumerate(records):
        types = [t for t in record.get("type") or [] if isinstance(t, str)]
        ancestors = {a for t in types for a in vocab.ancestors(short_schema_name(t))}
        if record.get("kind") == "entity" and ancestors & _PRODUCT_TYPES:
            found.append(i)
            name = (record.get("properties") or {}).get("name")
            names.add(str(name).casefold().strip() if isinstance(name, str) else None)
    return found if len(names - {None}) <= 1 else []


class PagePrices(Mapping[str, Any]):
    """The page's visible facts, where no price container shows a price: the prices of the
    body's visible text instead (read the first time a record's price is compared), so an
    offer is compared with what the page shows even when its price sits in an unmarked
    ``<strong>`` or ``<p>Price: ...</p>``.

    >>> from structcrawl.core.document import parse_html
    >>> doc = parse_html("<p>Price: <b>EUR 29.00</b></p><i>K1</i>€".encode(), "https://s.example/")
    >>> PagePrices({"prices": []}, doc)["prices"]
    ['EUR 29.00']
    """

    def __init__(self, facts: FactsLike, document: Document) -> None:
        self._facts, self._document = facts, document
        self._prices: list[Any] | None = None

    def _get(self, name: str) -> Any:
        if isinstance(self._facts, VisibleFacts):
            return getattr(self._facts, name, None)
        return self._facts.get(name)

    def __getitem__(self, name: str) -> Any:
        if name != "prices":
            return self._get(name)
        if self._prices is None:
            shown = self._get("prices") or []
            if not shown:
                shown = text_prices(self._document)
            self._prices = list(shown)
        return self._prices

    def __iter__(self) -> Iterator[str]:
        return iter(VisibleFacts.__dataclass_fields__)

    def __len__(self) -> int:
        return len(VisibleFacts.__dataclass_fields__)


def check_page(
    records: list[dict[str, Any]],
    *,
    validator: Validator | None = None,
    facts: FactsLike | None = None,
    document: Document | None = None,
    retrieved_at: Any = None,
) -> None:
    """Validate and compare the page's records, in place (see the module docstring)."""
    validator = validator or Validator.default()
    at = retrieval_time(retrieved_at)
    compared = facts is not None or document is not None
    if facts is not None and document is not None:
        facts = PagePrices(facts, document)
    for record in records:
        if isinstance(record, dict) and record.get("kind") == "entity":
            record["validation"] = validator.validate(record, at).as_dict()
            if compared:
                record["conflicts"] = check_visible(record, facts) if facts is not None else []
    entities = [r for r in records if isinstance(r, dict) and r.get("kind") == "entity"]
    if document is not None:
        for record in article_subjects(entities):
            record["conflicts"].extend(check_authors(record, document))
        subjects = _product_subjects(entities, validator)
        if subjects:
            shown = visible_availability(document)
            for i in subjects:
                entities[i]["conflicts"].extend(check_availability(entities[i], shown))
                entities[i]["conflicts"].extend(check_old_price(entities[i], document))
    for record, conflicts in zip(entities, syntax_conflicts(entities), strict=True):
        if conflicts:
            record.setdefault("conflicts", []).extend(conflicts)
