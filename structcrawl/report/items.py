"""The typed items of a crawl, for the quality report (pure): items per type, the fill rate of
the fields a reader of the feed looks at first (price, currency, availability, authors,
dates), the items that fail their published schema (:func:`structcrawl.typed.schema.check_item`)
and the pages that failed, each listed by name and URL (the first :data:`LISTED` of each).

>>> figures = ItemFigures()
>>> figures.add_page({"url": "https://s.example/p", "typed_items": [
...     {"kind": "item", "type": "Product", "name": "Boot", "price": "9.99", "currency": "EUR"},
...     {"kind": "item", "type": "Product", "name": "Sock", "price": "1,99"}]}, "records")
>>> figures.add_page({"url": "https://s.example/gone", "status": 404,
...     "fetch_error": {"code": "http-404", "message": "Not Found"}}, "error:http-404")
>>> report = figures.report()
>>> report["by_type"], report["fill"]["Product"]["price"], report["fill"]["Product"]["currency"]
({'Product': 2}, 1.0, 0.5)
>>> [(i["name"], i["url"]) for i in report["invalid"]["examples"]]
[('Sock', 'https://s.example/p')]
>>> report["failed_pages"]["examples"][0]["code"]
'http-404'
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from structcrawl.core.bounded import REPORT_NAMES, CappedNames
from structcrawl.typed.classes import item_dict

__all__ = ["LISTED", "WATCHED_FIELDS", "ItemFigures", "item_name"]

#: Fields whose fill rate the report shows, for the item types whose schema has them.
WATCHED_FIELDS = (
    "price",
    "currency",
    "availability",
    "authors",
    "datePublished",
    "dateModified",
    "startDate",
    "endDate",
    "validThrough",
)
#: Invalid items and failed pages listed by name (the rest are counted).
LISTED = 25
_NAME_FIELDS = ("name", "headline", "jobTitle")


def item_name(item: Mapping[str, Any]) -> str | None:
    """What a reader calls an item or entity: its name, headline or job title.

    >>> item_name({"headline": "Boot care"}), item_name({"name": ["A", "B"]}), item_name({})
    ('Boot care', 'A', None)
    """
    for field in _NAME_FIELDS:
        value = item.get(field)
        if isinstance(value, list):
            value = value[0] if value else None
        if isinstance(value, Mapping):
            value = value.get("@value")
        if isinstance(value, str | int | float) and str(value).strip():
            return str(value).strip()[:200]
    return None


@lru_cache(maxsize=64)
def _watched(kind: str) -> tuple[str, ...]:
    # imported here: the ledger and report commands import this package and need none of the
    # item machinery (structcrawl.typed loads every extractor)
    from structcrawl.typed.schema import item_schemas

    schema = item_schemas().get(kind) or {}
    properties = schema.get("properties") or {}
    return tuple(f for f in WATCHED_FIELDS if f in properties)


def _page_title(page: Mapping[str, Any]) -> str | None:
    visible = page.get("visible")
    try:
        title = visible.get("title") if isinstance(visible, Mapping) else None
    except Exception:  # lazily read facts of a page whose tree is gone: no title, no failure
        return None
    shown = str(title or "").strip()[:200]
    return shown or None


class ItemFigures:
    """Counts over the ``typed_items`` of every page item, in bounded memory."""

    def __init__(self) -> None:
        self.pages_with_items = 0
        self.by_type: Counter[str] = Counter()
        self.filled: dict[str, Counter[str]] = defaultdict(Counter)
        self.invalid_by_type: Counter[str] = Counter()
        self.flagged_by_type: Counter[str] = Counter()  # fallback values the page does not show
        self.invalid: list[dict[str, Any]] = []
        self.failed: Counter[str] = Counter()
        self.failed_pages: list[dict[str, Any]] = []
        self._types = CappedNames(REPORT_NAMES)

    def add_page(self, page: Mapping[str, Any], outcome: str) -> None:
        url = str(page.get("final_url") or page.get("url") or "")
        if outcome.startswith("error:"):
            self._failed_page(page, outcome.removeprefix("error:"), url)
        items = page.get("typed_items") or []
        if items:
            self.pages_with_items += 1
        for item in items:
            checked = not isinstance(item, Mapping)  # an instance: the crawl checked it
            item = item_dict(item)
            if isinstance(item, Mapping):
                self._item(item, url, checked)

    def _item(self, item: Mapping[str, Any], page_url: str, checked: bool = False) -> None:
        kind = self._types(str(item.get("type") or "(untyped)"))
        self.by_type[kind] += 1
        self.filled[kind].update(f for f in _watched(kind) if item.get(f) not in (None, "", [], {}))
        validation = item.get("validation")
        if isinstance(validation, Mapping) and validation.get("flags"):
            self.flagged_by_type[kind] += 1
        # the crawl checked it (validation.schema); an item read back from a feed is checked now
        errors = validation.get("schema") if isinstance(validation, Mapping) else None
        if errors is None and not checked:
            from structcrawl.typed.schema import check_item

            errors = check_item({k: v for k, v in item.items() if k != "schema_version"})[1]
        if not errors:
            return
        self.invalid_by_type[kind] += 1
        if len(self.invalid) < LISTED:
            self.invalid.append(
                {
                    "type": kind,
                    "name": item_name(item),
                    "url": str(item.get("page_url") or page_url),
                    "errors": [e[:300] for e in errors[:3]],
                }
            )

    def _failed_page(self, page: Mapping[str, Any], code: str, url: str) -> None:
        self.failed[code] += 1
        if len(self.failed_pages) < LISTED:
            error = page.get("fetch_error") or {}
            self.failed_pages.append(
                {
                    "url": url,
                    "name": _page_title(page),
                    "status": page.get("status"),
                    "code": code,
                    "message": str(error.get("message") or "")[:300] or None,
                }
            )

    def report(self) -> dict[str, Any]:
        types = [kind for kind, _ in self.by_type.most_common()]
        return {
            "total": sum(self.by_type.values()),
            "pages_with_items": self.pages_with_items,
            "by_type": dict(self.by_type.most_common()),
            "fill": {
                kind: {
                    f: round(self.filled[kind][f] / self.by_type[kind], 4) for f in _watched(kind)
                }
                for kind in types
                if _watched(kind)
            },
            "invalid": {
                "total": sum(self.invalid_by_type.values()),
                "by_type": dict(self.invalid_by_type.most_common()),
                "examples": list(self.invalid),
            },
            "fallback_flagged": dict(self.flagged_by_type.most_common()),
            "failed_pages": {
                "total": sum(self.failed.values()),
                "by_code": dict(self.failed.most_common()),
                "examples": list(self.failed_pages),
            },
        }
