"""Page metadata (Open Graph, Twitter, Dublin Core) as sightings of the page's primary entity
(pure).

Page metadata describes the page's main thing, not a thing of its own. :func:`corroborate`
rewrites each ``opengraph`` / ``twitter`` / ``dublincore`` record of a page as a sighting of
the page's primary structured entity (same type and key, properties under schema.org names:
``og:title`` -> ``name``, ``og:price:amount`` -> ``offers.price``, ...), so that the entity
merge sees it as one more layer that agrees or disagrees. A page without a structured entity
to corroborate gets one entity from its metadata, typed by ``og:type`` with a schema.org type
(``product`` -> ``Product``, ``article`` -> ``Article``, ``website`` -> ``WebPage``: the page
itself).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from structcrawl.typed._values import props, text, values
from structcrawl.typed.other import TYPE_ORDER, item_type

__all__ = ["META_FORMATS", "OG_TYPES", "corroborate", "primary_record"]

META_FORMATS = frozenset({"opengraph", "twitter", "dublincore"})
OG_TYPES = {
    "product": "Product", "product.item": "Product", "product.group": "ProductGroup",
    "article": "Article", "blog": "Blog", "website": "WebPage", "profile": "Person",
    "book": "Book", "music.song": "MusicRecording", "music.album": "MusicAlbum",
    "video.movie": "Movie", "video.episode": "TVEpisode", "video.other": "VideoObject",
    "business.business": "LocalBusiness", "place": "Place", "event": "Event",
}  # fmt: skip
_PLAIN = {
    "og:title": "name", "twitter:title": "name", "dc:title": "name",
    "og:description": "description", "twitter:description": "description",
    "dc:description": "description", "og:url": "url", "og:image": "image",
    "twitter:image": "image", "dc:creator": "author", "dc:date": "datePublished",
    "article:published_time": "datePublished", "article:modified_time": "dateModified",
    "dcterms:modified": "dateModified", "dc:language": "inLanguage", "og:locale": "inLanguage",
    "product:brand": "brand", "product:retailer_item_id": "sku", "product:ean": "gtin13",
    "product:upc": "gtin12", "product:gtin": "gtin", "product:mpn": "mpn",
}  # fmt: skip
_OFFER = {
    "product:price:amount": "price", "og:price:amount": "price",
    "product:price:currency": "priceCurrency", "og:price:currency": "priceCurrency",
    "product:availability": "availability", "og:availability": "availability",
}  # fmt: skip
_SUPPORTING = ("Organization", "BreadcrumbList", "ItemList", "Person")


def primary_record(records: list[dict[str, Any]]) -> int | None:
    """Index of the page's primary structured record: the first of the most specific item
    type (:data:`~structcrawl.typed.other.TYPE_ORDER`, organizations and lists excluded)."""
    best: tuple[int, int] | None = None
    for i, rec in enumerate(records):
        if rec.get("kind") != "entity" or rec.get("format") in META_FORMATS:
            continue
        kind = item_type([str(t).rsplit("/", 1)[-1] for t in rec.get("type") or []])
        if kind is None or kind in _SUPPORTING:
            continue
        rank = (TYPE_ORDER.index(kind), i)
        if best is None or rank < best:
            best = rank
    return None if best is None else best[1]


def _properties(meta: dict[str, Any]) -> tuple[dict[str, Any], dict[str, list[dict[str, Any]]]]:
    out: dict[str, Any] = {}
    offer: dict[str, Any] = {}
    for key, value in meta.items():
        if key == "product:price":
            for node in values(value):
                if isinstance(node, dict):
                    offer.setdefault("price", node.get("amount"))
                    offer.setdefault("priceCurrency", node.get("currency"))
            continue
        if key in _OFFER:
            offer.setdefault(_OFFER[key], text(value))
        elif key in _PLAIN:
            first = values(value)[0] if values(value) else None
            plain = first.get("url") if isinstance(first, dict) and "url" in first else text(first)
            if plain is not None:
                out.setdefault(_PLAIN[key], plain)
    offer = {k: v for k, v in offer.items() if v is not None}
    if offer:
        out["offers"] = {"type": ["Offer"], "id": None, "properties": offer, "provenance": {}}
    fields = {k: [{"path": k, "raw": v}] for k, v in out.items() if k != "offers"}
    return out, fields


def corroborate(
    records: list[dict[str, Any]], key_of: Callable[[dict[str, Any]], str]
) -> list[dict[str, Any]]:
    """The page's records with its metadata records rewritten (see the module doc); other
    records are returned unchanged, in order. ``key_of`` gives a record's entity key."""
    if not any(r.get("format") in META_FORMATS and r.get("kind") == "entity" for r in records):
        return records
    index = primary_record(records)
    primary = records[index] if index is not None else None
    og_type = next(
        (text(props(r).get("og:type")) for r in records if r.get("format") == "opengraph"), None
    )
    own_type = [OG_TYPES.get((og_type or "").casefold(), "WebPage")]
    own_key: str | None = None
    out = []
    for rec in records:
        if rec.get("format") not in META_FORMATS or rec.get("kind") != "entity":
            out.append(rec)
            continue
        properties, fields = _properties(props(rec))
        if not properties:
            continue
        copy = {**rec, "properties": properties, "provenance": {"fields": fields}}
        if primary is not None:
            copy.update(type=list(primary.get("type") or []), id=primary.get("id"))
            copy["key"] = key_of(primary)
        else:
            copy.update(type=own_type, id=None)
            copy["key"] = own_key = own_key or f"page:{own_type[0]}:{rec.get('source_url')}"
        out.append(copy)
    return out
