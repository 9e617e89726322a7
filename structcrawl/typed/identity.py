"""Strong identifier keys of a page entity, for resolution (pure).

``id:<iri>`` (``@id`` / ``itemid`` / RDFa subject; blank nodes excluded), ``url:<canonical>``
(``url``, ``mainEntityOfPage``), ``gtin:<14 digits>`` (GTIN-8/12/13/14 padded to one form),
``isbn:<13 digits>``, ``sku:<site>:<sku>`` (a SKU is unique within one site), ``mpn:<brand>:<mpn>``.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from structcrawl.normalize.identifiers import gtin14, isbn13
from structcrawl.normalize.urls import canonical_url
from structcrawl.typed._values import nodes_of, props, ref, text, values
from structcrawl.typed.other import item_type

__all__ = ["identity_keys", "record_identity", "site_of", "url_key"]

_GTINS = ("gtin", "gtin8", "gtin12", "gtin13", "gtin14")


def site_of(url: str) -> str:
    host = (urlsplit(url).hostname or "").lower()
    return host[4:] if host.startswith("www.") else host


def url_key(url: str | None, base: str = "") -> str | None:
    if not url or not isinstance(url, str) or url.startswith("_:"):
        return None
    try:
        return canonical_url(url, keep_fragment=False)
    except ValueError:
        return None


def identity_keys(
    node_id: str | None, p: dict[str, Any], page_url: str, *, with_url: bool = True
) -> list[str]:
    """The strong keys of an entity with properties ``p`` found on ``page_url``."""
    keys: list[str] = []
    if node_id and not node_id.startswith("_:"):
        keys.append("id:" + node_id)
    if with_url:
        for prop in ("url", "mainEntityOfPage"):
            for v in values(p.get(prop)):
                target = ref(props(v).get("url")) or ref(v) if nodes_of(v) else ref(v)
                key = url_key(target)
                if key:
                    keys.append("url:" + key)
    for prop in _GTINS:
        for v in values(p.get(prop)):
            g = gtin14(text(v), prop)
            if g:
                keys.append("gtin:" + g)
    for v in values(p.get("isbn")):
        i = isbn13(text(v))
        if i:
            keys.append("isbn:" + i)
    sku = text(p.get("sku"))
    if sku:
        keys.append(f"sku:{site_of(page_url)}:{sku.casefold()}")
    mpn, brand = text(p.get("mpn")), p.get("brand")
    brand_name = text(props(nodes_of(brand)[0]).get("name")) if nodes_of(brand) else text(brand)
    if mpn and brand_name:
        keys.append(f"mpn:{brand_name.casefold()}:{mpn.casefold()}")
    return sorted(set(keys))


def record_identity(record: dict[str, Any], page_url: str) -> list[str]:
    """The strong keys of an entity record, each prefixed by its item type family
    (``Product|gtin:...``), so that only things of one kind are resolved together."""
    types = [str(t).rsplit("/", 1)[-1] for t in record.get("type") or []]
    family = item_type(types) or "+".join(sorted(types)) or "Thing"
    node_id = record.get("id") if isinstance(record.get("id"), str) else None
    return [f"{family}|{k}" for k in identity_keys(node_id, props(record), page_url)]
