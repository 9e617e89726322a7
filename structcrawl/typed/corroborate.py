"""Page metadata (Open Graph, Twitter, Dublin Core) as sightings of the page's primary entity
(pure).

Page metadata describes the page's main thing, not a thing of its own. :func:`corroborate`
rewrites each ``opengraph`` / ``twitter`` / ``dublincore`` record of a page as a sighting of
the entity of the page's primary item (same type and key, properties under schema.org names:
``og:title`` -> ``name``, ``og:price:amount`` -> ``offers.price``, ...), so that the entity
merge sees it as one more layer that agrees or disagrees; only when that item is of the kind
``og:type`` names (or the page gives no ``og:type``). A page without such an item (a listing,
a page whose ``og:type`` says ``website``) gets one entity from its metadata, typed by
``og:type`` with a schema.org type (``product`` -> ``Product``, ``article`` -> ``Article``,
``website`` -> ``WebPage``: the page itself).
"""

from __future__ import annotations

from typing import Any

from structcrawl.core.readers import props, text, values
from structcrawl.entities.kinds import item_type
from structcrawl.typed.pageentities import PageEntity

__all__ = ["META_FORMATS", "OG_TYPES", "corroborate"]

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


def _as_references(
    properties: dict[str, Any], primary: PageEntity, records: list[dict[str, Any]]
) -> None:
    """Where the primary's own record names a value by a reference to another node of the
    page (``"image": {"@id": "#primaryimage"}``, an ImageObject whose ``url`` is the
    ``og:image``), the metadata's value is that reference: the same thing, not a conflict."""
    own = props(primary.records[0]) if primary.records else {}
    index = {str(r["id"]): r for r in records if r.get("id") and r.get("kind") == "entity"}
    for name, value in list(properties.items()):
        theirs = own.get(name)
        target = theirs.get("@id") if isinstance(theirs, dict) and len(theirs) == 1 else None
        node = index.get(target) if isinstance(target, str) else None
        if node is None:
            continue
        node_props = props(node)
        urls = {text(node_props.get(k)) for k in ("url", "contentUrl")} - {None}
        if text(value) in urls:
            properties[name] = theirs


def corroborate(
    records: list[dict[str, Any]], primary: PageEntity | None, page_url: str = ""
) -> list[dict[str, Any]]:
    """The page's records with its metadata records rewritten (see the module doc); other
    records are returned unchanged, in order. ``primary`` is the entity of the page's primary
    item (:func:`structcrawl.typed.page.resolve_page`), None when the page has none."""
    if not any(r.get("format") in META_FORMATS and r.get("kind") == "entity" for r in records):
        return records
    og_type = next(
        (text(props(r).get("og:type")) for r in records if r.get("format") == "opengraph"), None
    )
    own_type = [OG_TYPES.get((og_type or "").casefold(), "WebPage")]
    if primary is not None and og_type is not None and item_type(own_type) != primary.kind:
        primary = None  # the page says it is about another kind of thing
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
            copy.update(type=list(primary.types), id=primary.id, key=primary.key)
            _as_references(properties, primary, records)
        else:
            copy.update(type=own_type, id=None)
            copy["key"] = own_key = own_key or f"page:{own_type[0]}:{rec.get('source_url')}"
        out.append(copy)
    return out
