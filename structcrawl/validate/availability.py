"""Availability in the markup against what the page shows: "Sold out" with no way to buy.

:func:`visible_availability` reads the page once: whether its text says the product cannot be
bought (:data:`structcrawl.visible.words.OUT_OF_STOCK`: ``Sold out``, ``Out of stock``, ``Currently
unavailable`` and their translations), and
whether it has a control to buy (an enabled ``<button>``, ``<input type=submit|button>`` or a
link whose text is ``Add to cart``, ``Buy now``, ... or that names the cart in its
``name``/``id``). Text inside ``script``, ``style``, ``template``, ``noscript`` and hidden
elements (:func:`structcrawl.visible.tree.hidden`) is not seen.

:func:`check_availability` compares one Product (or Offer) record with that: markup saying
``InStock`` (or ``LimitedAvailability``, ``OnlineOnly``) on a page that shows "sold out" and no
buy control, and markup saying ``OutOfStock`` (or ``SoldOut``, ``Discontinued``) on a page with
a buy control and no such text, are ``availability-vs-visible`` conflicts.

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

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from lxml import etree

from structcrawl.core.document import Document
from structcrawl.core.records import short_schema_name
from structcrawl.validate._issues import join_path
from structcrawl.visible.tree import hidden
from structcrawl.visible.words import BUY, CART_NAME, OUT_OF_STOCK

__all__ = ["Availability", "check_availability", "visible_availability"]

#: A control whose whole text is a buy phrase (:data:`structcrawl.visible.words.BUY`).
_BUY = re.compile(r"^\W*(?:" + BUY.pattern + r")\W*$", re.IGNORECASE)
_UNSEEN = frozenset({"script", "style", "template", "noscript", "head", "title"})
_IN_STOCK = frozenset({"InStock", "LimitedAvailability", "OnlineOnly", "InStoreOnly"})
_NOT_BUYABLE = frozenset({"OutOfStock", "SoldOut", "Discontinued"})
_MAX_TEXT = 200_000  # characters of page text read for the phrases


@dataclass(frozen=True, slots=True)
class Availability:
    """What the page shows: the first "sold out" phrase, and the first buy control's text."""

    sold_out: str | None = None
    buy_control: str | None = None


def _seen_elements(root: etree._Element) -> Iterator[etree._Element]:
    """The elements a reader can see, depth first (unseen subtrees are not entered)."""
    stack = [root]
    while stack:
        el = stack.pop()
        if not isinstance(el.tag, str) or el.tag in _UNSEEN or hidden(el):
            continue
        yield el
        stack.extend(reversed(el))


def _label(el: etree._Element) -> str:
    if el.tag == "input":
        return (el.get("value") or "").strip()
    return " ".join("".join(el.itertext()).split())


def _buy_control(el: etree._Element) -> str | None:
    if el.tag not in ("button", "input", "a") or el.get("disabled") is not None:
        return None
    if el.tag == "input" and (el.get("type") or "").lower() not in ("submit", "button"):
        return None
    label = _label(el)
    if _BUY.match(label) or CART_NAME.search(f"{el.get('name', '')} {el.get('id', '')}"):
        return label or el.get("name") or el.get("id")
    return None


def visible_availability(doc: Document) -> Availability:
    """The availability signals a reader sees on ``doc``."""
    body = doc.root.find("body")
    root = body if body is not None else doc.root
    sold_out = buy = None
    read = 0
    for el in _seen_elements(root):
        if buy is None:
            buy = _buy_control(el)
        if sold_out is None and read < _MAX_TEXT:
            parts = [el.text, *(child.tail for child in el)]
            text = " ".join(t for t in parts if isinstance(t, str))
            read += len(text)
            found = OUT_OF_STOCK.search(text)
            sold_out = found.group(0) if found else None
        if buy is not None and sold_out is not None:
            break
    return Availability(sold_out=sold_out, buy_control=buy)


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
        if value in _IN_STOCK and page.sold_out and not page.buy_control:
            shown, message = (
                page.sold_out,
                (
                    f"the markup says {value}, but the page shows {page.sold_out!r} and no "
                    "button to buy"
                ),
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
