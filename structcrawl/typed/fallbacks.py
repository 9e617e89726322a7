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
* ``visible-page``: :mod:`structcrawl.typed.visible`.
"""

from __future__ import annotations

import re
from typing import Any

from structcrawl.core.document import Document
from structcrawl.typed import _norm
from structcrawl.typed._values import props, text, values
from structcrawl.typed._words import sign_currency
from structcrawl.typed.fields import Candidate
from structcrawl.typed.visible import Evidence

__all__ = [
    "data_block_candidates",
    "fallback",
    "itemprop_candidates",
    "meta_candidates",
    "visible_candidates",
    "visible_price",
]

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


def _shape(field: str, raw: Any) -> Any:
    if field == "availability":
        return _norm.availability(raw)
    if field == "brand":
        return {"name": text(raw)} if text(raw) else None
    if field == "gtin":
        digits = _norm.gtin(raw)
        return [{"type": f"gtin{len(digits)}", "value": digits}] if digits else None
    if field == "currency":
        return _norm.currency(raw)
    return text(raw)


def meta_candidates(records: list[dict[str, Any]]) -> list[Candidate]:
    out: list[Candidate] = []
    for index, rec in enumerate(records):
        if rec.get("kind") != "entity" or rec.get("format") not in ("opengraph", "twitter"):
            continue
        p = props(rec)
        path = str(rec.get("source_element") or "")
        pairs = list(p.items())
        nested = p.get("product:price")
        for node in values(nested):
            if isinstance(node, dict):
                pairs += [
                    ("product:price:amount", node.get("amount")),
                    ("product:price:currency", node.get("currency")),
                ]
        for key, raw in pairs:
            field = _META.get(key)
            if field and raw is not None:
                out.append(
                    fallback(
                        field,
                        _shape(field, raw),
                        "meta-tags",
                        f"{path}#{key}",
                        raw,
                        f'<meta property="{key}">',
                        index,
                    )
                )
        labels = {
            k[len("twitter:label") :]: text(v)
            for k, v in p.items()
            if k.startswith("twitter:label")
        }
        for n, label in labels.items():
            data = text(p.get(f"twitter:data{n}"))
            kind = (label or "").casefold()
            if data and ("price" in kind or "preis" in kind or "prix" in kind):
                out.append(
                    fallback(
                        "price",
                        _norm.price(data)[0],
                        "meta-tags:twitter",
                        f"{path}#twitter:data{n}",
                        data,
                        f"twitter:label{n}={label}",
                        index,
                    )
                )
                cur = _norm.price(data)[1]
                if cur:
                    out.append(
                        fallback(
                            "currency",
                            cur,
                            "meta-tags:twitter",
                            f"{path}#twitter:data{n}",
                            data,
                            f"twitter:label{n}={label}",
                            index,
                        )
                    )
            if data and ("availab" in kind or "stock" in kind):
                out.append(
                    fallback(
                        "availability",
                        _norm.availability(data),
                        "meta-tags:twitter",
                        f"{path}#twitter:data{n}",
                        data,
                        f"twitter:label{n}={label}",
                        index,
                    )
                )
    for c in list(out):
        if c.field == "price" and c.value is not None and isinstance(c.raw, str):
            amount = _norm.price(c.raw)
            out[out.index(c)] = fallback(
                "price", amount[0], c.rule, c.path, c.raw, c.evidence or "", c.record
            )
    return out


_AMOUNT = re.compile(r"\d(?:[\d.,' \u00a0]*\d)?")
_LOOSE = {
    "price": "price", "pricecurrency": "currency", "availability": "availability", "sku": "sku",
    "mpn": "mpn", "brand": "brand", "gtin13": "gtin", "gtin": "gtin", "gtin12": "gtin",
    "gtin8": "gtin", "gtin14": "gtin", "name": "name",
}  # fmt: skip


def itemprop_candidates(document: Document) -> list[Candidate]:
    out: list[Candidate] = []
    for el in document.root.xpath("//body//*[@itemprop][not(ancestor-or-self::*[@itemscope])]"):
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
            value = _norm.price(raw)[0] if field == "price" else _shape(field, raw)
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


def data_block_candidates(records: list[dict[str, Any]], shown: list[str]) -> list[Candidate]:
    """Candidates from the first product-like object of the page's data blocks."""
    for index, rec in enumerate(records):
        if rec.get("kind") != "entity" or rec.get("format") != "data-block":
            continue
        found = _walk(props(rec))
        if not found:
            continue
        product = found[0]
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
                _shape("gtin", variant.get("barcode") or variant.get("gtin") or variant.get("ean")),
                "data-block-product",
                path,
                variant.get("barcode"),
                ev,
                index,
            ),
            fallback(
                "brand",
                _shape(
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


def visible_candidates(ev: Evidence) -> list[Candidate]:
    out: list[Candidate] = []
    if ev.price:
        amount, cur, sign = _visible_amount(ev)
        out.append(
            fallback(
                "price",
                amount,
                "visible-page",
                ev.price_path,
                ev.price,
                "price nearest the main heading",
            )
        )
        if cur:
            out.append(
                fallback(
                    "currency",
                    cur,
                    "visible-page",
                    ev.price_path,
                    sign,
                    "currency sign of that price",
                )
            )
            out.append(
                fallback(
                    "currencyRaw",
                    sign,
                    "visible-page",
                    ev.price_path,
                    sign,
                    "currency sign of that price",
                )
            )
    if ev.availability:
        out.append(
            fallback(
                "availability",
                ev.availability,
                "visible-page",
                "",
                ev.availability_text,
                f"page text: {ev.availability_text!r}",
            )
        )
    if ev.sku:
        out.append(
            fallback("sku", ev.sku, "visible-page", "", ev.sku_text, f"labelled: {ev.sku_text!r}")
        )
    if ev.gtin:
        out.append(
            fallback(
                "gtin",
                _shape("gtin", ev.gtin),
                "visible-page",
                "",
                ev.gtin_text,
                f"labelled: {ev.gtin_text!r}",
            )
        )
    if ev.heading:
        out.append(
            fallback("name", ev.heading, "visible-page", "//h1", ev.heading, "the main heading")
        )
    return out


def _visible_amount(ev: Evidence) -> tuple[str | None, str | None, str | None]:
    """The visible price read; an ambiguous sign (``$``, ``kr``, ``¥``) is read from what the
    page says about its language and region (:func:`~structcrawl.typed._words.sign_currency`),
    else the amount is kept without a currency."""
    if not ev.price:
        return None, None, None
    amount, cur, sign = _norm.price(ev.price, language=ev.language)
    if amount is not None:
        return amount, cur, sign
    number = _AMOUNT.search(ev.price)
    if number is None:
        return None, None, None
    sign = (ev.price[: number.start()] + ev.price[number.end() :]).strip() or None
    code = sign_currency(sign or "", ev.language, ev.region, ev.host)
    digits = number.group(0).strip(" .,'\u00a0")
    return _norm.price(digits, code, ev.language)[0], code, sign


def visible_price(ev: Evidence) -> str | None:
    """The normalized price nearest the main heading (``None`` without one)."""
    return _visible_amount(ev)[0]
