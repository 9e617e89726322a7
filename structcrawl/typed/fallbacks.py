"""Generic fallbacks for the page's product where the structured layers are silent (pure).

Each value found here is a :class:`~structcrawl.typed.fields.Candidate` marked ``fallback``
with its evidence; every fallback ranks below every structured layer (and below site rules,
which arrive as ``selector`` records). In order:

* ``meta-tags``: ``product:price:amount`` / ``og:price:amount`` / ``product:price``,
  ``product:availability``, ``product:retailer_item_id``, ``product:brand``, ``og:title``, ...
  (from the Open Graph records) and Twitter's ``label``/``data`` pairs;
* ``itemprop-loose``: ``itemprop`` attributes outside any ``itemscope``;
* ``data-block-product``: a strict-JSON data block (application state) holding an object with
  recognizable product fields (a name or title with a price, SKU or variants); integer prices
  in a block shaped like a Shopify product (``handle``, ``compare_at_price``, ``price_min``)
  or matching a visible price once divided by 100 are read as minor units;
* ``visible-page``: :mod:`structcrawl.visible.evidence`;
* ``url-id``: the product's id as its URL writes it (:mod:`structcrawl.typed.urlid`).
"""

from __future__ import annotations

from typing import Any

from lxml import etree

import structcrawl.typed._norm as _norm
from structcrawl.core.document import Document
from structcrawl.core.readers import props, text, values
from structcrawl.typed.fields import Candidate

__all__ = [
    "ITEMPROP_MEMO",
    "data_block_candidates",
    "fallback",
    "itemprop_candidates",
    "meta_candidates",
    "shape",
]

#: where a document keeps its loose itemprops' candidates (:func:`itemprop_candidates`)
ITEMPROP_MEMO = "itemprop-candidates"

_META = {
    "product:price:amount": "price", "og:price:amount": "price",
    "product:sale_price:amount": "price",
    "product:price:currency": "currency", "og:price:currency": "currency",
    "product:availability": "availability", "og:availability": "availability",
    "product:retailer_item_id": "sku", "product:sku": "sku", "product:brand": "brand",
    "product:ean": "gtin", "product:gtin": "gtin", "product:upc": "gtin", "product:mpn": "mpn",
    "og:title": "name", "og:url": "url", "og:description": "description",
}  # fmt: skip


def fallback(
    field: str, value: Any, rule: str, path: str, raw: Any, evidence: str, record: int | None = None
) -> Candidate:
    layer = rule.split(":", 1)[0]
    return Candidate(field, value, layer, path, raw, rule, record, fallback=True, evidence=evidence)


def shape(field: str, raw: Any) -> Any:
    if field == "availability":
        return _norm.availability(raw)
    if field == "brand":
        return {"name": text(raw)} if text(raw) else None
    if field == "gtin":
        digits = _norm.gtin(raw)
        return [{"type": f"gtin{len(digits)}", "value": digits}] if digits else None
    if field == "currency":
        return _norm.currency(raw)
    if field == "price":
        return _norm.price(raw)[0]
    return text(raw)


def meta_candidates(records: list[dict[str, Any]]) -> list[Candidate]:
    """Product fields from Open Graph / Facebook product tags and Twitter label/data pairs."""
    out: list[Candidate] = []
    for index, rec in enumerate(records):
        if rec.get("kind") != "entity" or rec.get("format") not in ("opengraph", "twitter"):
            continue
        p = props(rec)
        path = str(rec.get("source_element") or "")
        pairs = list(p.items())
        for node in values(p.get("product:price")):
            if isinstance(node, dict):
                pairs += [
                    ("product:price:amount", node.get("amount")),
                    ("product:price:currency", node.get("currency")),
                ]
        for key, raw in pairs:
            field = _META.get(key)
            if field and raw is not None:
                evidence = f'<meta property="{key}">'
                value = shape(field, raw)
                out.append(
                    fallback(field, value, "meta-tags", f"{path}#{key}", raw, evidence, index)
                )
        out += _twitter_candidates(p, path, index)
    return out


def _twitter_candidates(p: dict[str, Any], path: str, index: int) -> list[Candidate]:
    """Twitter's ``label``/``data`` pairs that name a price or an availability."""
    out: list[Candidate] = []
    for key, label_value in p.items():
        if not key.startswith("twitter:label"):
            continue
        n = key[len("twitter:label") :]
        label, data = text(label_value) or "", text(p.get(f"twitter:data{n}"))
        kind = label.casefold()
        if not data:
            continue
        found: list[tuple[str, Any]] = []
        if "price" in kind or "preis" in kind or "prix" in kind:
            amount, cur, _ = _norm.price(data)
            found += [("price", amount), ("currency", cur)]
        if "availab" in kind or "stock" in kind:
            found.append(("availability", _norm.availability(data)))
        where, evidence = f"{path}#twitter:data{n}", f"twitter:label{n}={label}"
        for field, value in found:
            if value is not None:
                rule = "meta-tags:twitter"
                out.append(fallback(field, value, rule, where, data, evidence, index))
    return out


_LOOSE = {
    "price": "price", "pricecurrency": "currency", "availability": "availability", "sku": "sku",
    "mpn": "mpn", "brand": "brand", "gtin13": "gtin", "gtin": "gtin", "gtin12": "gtin",
    "gtin8": "gtin", "gtin14": "gtin", "name": "name",
}  # fmt: skip


def _loose_itemprops(document: Document) -> list[etree._Element]:
    """What ``//body//*[@itemprop][not(ancestor-or-self::*[@itemscope])]`` selects, from the
    document's element index (the elements with an ``itemprop``, their ancestors read): the
    path tests every ancestor of every element of the page."""
    out = []
    for el in document.index().having("itemprop"):
        if el.get("itemscope") is not None:
            continue
        in_body = False
        for ancestor in el.iterancestors():
            if ancestor.get("itemscope") is not None:
                break
            in_body = in_body or ancestor.tag == "body"
        else:
            if in_body:
                out.append(el)
    return out


def itemprop_candidates(document: Document) -> list[Candidate]:
    """The product fields ``itemprop`` attributes outside any ``itemscope`` give (read once
    per document, kept on its memo)."""
    return list(document.memoized(ITEMPROP_MEMO, lambda doc: tuple(_itemprop_candidates(doc))))


def _itemprop_candidates(document: Document) -> list[Candidate]:
    out: list[Candidate] = []
    for el in _loose_itemprops(document):
        for prop in (el.get("itemprop") or "").split():
            field = _LOOSE.get(prop.casefold())
            if not field:
                continue
            raw = (
                el.get("content")
                or el.get("href")
                or el.get("value")
                or " ".join("".join(el.itertext()).split())
            )
            value = _norm.price(raw)[0] if field == "price" else shape(field, raw)
            path = document.path_of(el)
            out.append(
                fallback(
                    field,
                    value,
                    "itemprop-loose",
                    path,
                    raw,
                    f'itemprop="{prop}" outside any itemscope',
                )
            )
    return out


def _walk(value: Any, depth: int = 0) -> list[dict[str, Any]]:
    if depth > 8:
        return []
    found: list[dict[str, Any]] = []
    if isinstance(value, dict):
        keys = set(value)
        if ({"title", "name"} & keys) and (
            {"price", "variants", "sku", "offers", "priceRange"} & keys
        ):
            found.append(value)
        for v in value.values():
            found.extend(_walk(v, depth + 1))
    elif isinstance(value, list):
        for v in value[:200]:
            found.extend(_walk(v, depth + 1))
    return found


def _variant(product: dict[str, Any]) -> dict[str, Any]:
    variants = [v for v in values(product.get("variants")) if isinstance(v, dict)]
    if not variants:
        return product
    chosen = (
        product.get("selectedVariantId")
        or product.get("selected_variant_id")
        or product.get("selectedVariant")
    )
    for v in variants:
        if chosen is not None and v.get("id") == chosen:
            return v
    for v in variants:
        if _avail(v) in (None, "InStock"):
            return v
    return variants[0]


def _avail(obj: dict[str, Any]) -> str | None:
    for key in ("availability", "available", "inventory", "stockStatus", "stock_status", "inStock"):
        raw = obj.get(key)
        if isinstance(raw, dict):
            raw = raw.get("status") or raw.get("availability")
        if raw is not None:
            return _norm.availability(raw)
    return None


def _price(
    obj: dict[str, Any], product: dict[str, Any], shown: list[str]
) -> tuple[str | None, str | None, Any]:
    raw = obj.get("price", product.get("price"))
    code = None
    if isinstance(raw, dict):
        code = _norm.currency(raw.get("currencyCode") or raw.get("currency"))
        raw = raw.get("amount", raw.get("value"))
    code = code or _norm.currency(
        obj.get("currency") or product.get("currency") or product.get("currencyCode")
    )
    if isinstance(raw, int) and not isinstance(raw, bool) and raw >= 100:
        cents = _norm.price(raw / 100, code)[0]
        shopify = bool({"handle", "compare_at_price", "price_min"} & set(product))
        if shopify or any(_norm.price(s)[0] == cents for s in shown):
            return cents, code, raw
    return _norm.price(raw, code)[0] if raw is not None else None, code, raw


def data_block_candidates(
    records: list[dict[str, Any]], shown: list[str], heading: str | None = None
) -> list[Candidate]:
    """Candidates from the product-like object of the page's data blocks named like the main
    heading, else the first one."""
    for index, rec in enumerate(records):
        if rec.get("kind") != "entity" or rec.get("format") != "data-block":
            continue
        found = _walk(props(rec))
        if not found:
            continue
        head = _norm.plain_words(heading)
        words = _norm.plain_words
        named = [f for f in found if head and words(text(f.get("title") or f.get("name"))) in head]
        product = (named or found)[0]
        variant = _variant(product)
        path = str(rec.get("source_element") or "")
        ev = f"data block {rec.get('type')}"
        price, code, raw = _price(variant, product, shown)
        sku = text(variant.get("sku") if isinstance(variant.get("sku"), str | int) else None)
        out = [
            fallback(
                "name",
                text(product.get("title") or product.get("name")),
                "data-block-product",
                path,
                product.get("title") or product.get("name"),
                ev,
                index,
            ),
            fallback("price", price, "data-block-product", path, raw, ev, index),
            fallback("currency", code, "data-block-product", path, None, ev, index),
            fallback(
                "availability",
                _avail(variant) or _avail(product),
                "data-block-product",
                path,
                None,
                ev,
                index,
            ),
            fallback("sku", sku, "data-block-product", path, variant.get("sku"), ev, index),
            fallback(
                "gtin",
                shape("gtin", variant.get("barcode") or variant.get("gtin") or variant.get("ean")),
                "data-block-product",
                path,
                variant.get("barcode"),
                ev,
                index,
            ),
            fallback(
                "brand",
                shape(
                    "brand",
                    product.get("vendor") or product.get("brand")
                    if isinstance(product.get("brand") or product.get("vendor"), str)
                    else None,
                ),
                "data-block-product",
                path,
                product.get("vendor") or product.get("brand"),
                ev,
                index,
            ),
        ]
        return out
    return []
