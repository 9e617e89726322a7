"""Availability in the markup against what the page shows: "Sold out" with no way to buy.

:func:`~structcrawl.visible.stock.visible_availability` (the one reading of it, shared with
the typed items) says what the page shows: the first "sold out" wording
(:data:`structcrawl.visible.words.OUT_OF_STOCK`, in many languages) outside buy controls, and
its enabled buy control (:func:`structcrawl.visible.stock.buy_control`).

:func:`check_availability` compares one Product (or Offer) record with that: markup saying
``InStock`` (or ``LimitedAvailability``, ``OnlineOnly``) on a page that shows "sold out" and no
buy control, and markup saying ``OutOfStock`` (or ``SoldOut``, ``Discontinued``) on a page with
a buy control and no such text, and markup saying ``InStock`` where the page's buy control is
a pre-order ("Pre-order now") are ``availability-vs-visible`` conflicts.

>>> from structcrawl.core.document import parse_html
>>> page = visible_availability(parse_html(
...     b"<h1>Kettle</h1><p class=stock>Sold out</p><button>Notify me</button>", "https://s.example/"))
>>> page
Availability(sold_out='Sold out', buy_control=None)
>>> record = {"kind": "entity", "type": ["Product"], "properties": {"offers": {
...     "type": ["Offer"], "properties": {"availability": "https://schema.org/InStock"}}}}
>>> [(c["field"], c["code"]) for c in check_availability(record, page)]
[('offers.availability', 'availability-vs-visible')]
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from structcrawl.core.records import short_schema_name
from structcrawl.validate._issues import join_path
from structcrawl.visible.stock import BUYABLE, Availability, visible_availability

__all__ = ["Availability", "check_availability", "visible_availability"]

_NOT_BUYABLE = frozenset({"OutOfStock", "SoldOut", "Discontinued"})


def _availabilities(record: dict[str, Any], path: str) -> Iterator[tuple[str, str]]:
    """``(path, short availability)`` of a record's own and its offers' availability."""
    props = record.get("properties")
    if not isinstance(props, dict):
        return
    stated = props.get("availability")
    for value in stated if isinstance(stated, list) else [stated]:
        if isinstance(value, dict):
            value = value.get("@id") or value.get("@value")
        if isinstance(value, str) and value.strip():
            yield join_path(path, "availability"), short_schema_name(value.strip())
    offers = props.get("offers")
    items = offers if isinstance(offers, list) else [offers]
    for i, offer in enumerate(items):
        if isinstance(offer, dict) and "properties" in offer:
            where = (
                join_path(join_path(path, "offers"), i)
                if isinstance(offers, list)
                else (join_path(path, "offers"))
            )
            yield from _availabilities(offer, where)


def check_availability(record: dict[str, Any], page: Availability) -> list[dict[str, Any]]:
    """``availability-vs-visible`` conflicts of one record with what the page shows."""
    conflicts = []
    for path, value in _availabilities(record, ""):
        if value in BUYABLE and page.sold_out and not page.buy_control:
            shown, message = (
                page.sold_out,
                (
                    f"the markup says {value}, but the page shows {page.sold_out!r} and no "
                    "button to buy"
                ),
            )
        elif value in BUYABLE and page.preorder:
            shown, message = (
                page.buy_control or "",
                f"the markup says {value}, but the page's way to buy is {page.buy_control!r}",
            )
        elif value in _NOT_BUYABLE and page.buy_control and not page.sold_out:
            shown, message = (
                page.buy_control,
                (
                    f"the markup says {value}, but the page offers {page.buy_control!r} and says "
                    "nothing of it being unavailable"
                ),
            )
        else:
            continue
        conflicts.append(
            {
                "field": path,
                "record_value": value,
                "visible_value": shown,
                "visible_source": "page text" if shown == page.sold_out else "buy control",
                "code": "availability-vs-visible",
                "message": message,
            }
        )
    return conflicts
