"""Flat fields of the non-product item types, table-driven (pure).

Names follow zyte-common-items where it has the type (``Article``: headline,
datePublished, authors, ...; ``JobPosting``: jobTitle, hiringOrganization, ...), schema.org's
property names otherwise. Nested things are flattened to their name (``author`` ->
``authors: [{"name": ...}]``, ``location`` -> ``{"name", "address"}``).
"""

from __future__ import annotations

from typing import Any

from structcrawl.core.readers import nodes_of, props, ref, text, values
from structcrawl.entities.kinds import ITEM_TYPES, TYPE_ORDER, item_type
from structcrawl.typed.fields import Candidate
from structcrawl.typed.nodes import Node
from structcrawl.typed.offers import default_offer

__all__ = ["ITEM_TYPES", "TYPE_ORDER", "item_type", "other_candidates"]


def _names(value: Any) -> list[dict[str, str]]:
    out = []
    for item in values(value):
        name = text(props(item).get("name")) if nodes_of(item) else text(item)
        if name:
            out.append({"name": name})
    return out


def _one_name(value: Any) -> dict[str, str] | None:
    names = _names(value)
    return names[0] if names else None


def _address(value: Any) -> str | None:
    for node in nodes_of(value):
        p = props(node)
        parts = [
            text(p.get(k))
            for k in (
                "streetAddress",
                "postalCode",
                "addressLocality",
                "addressRegion",
                "addressCountry",
            )
        ]
        joined = ", ".join(x for x in parts if x)
        if joined:
            return joined
    return text(value)


def _location(value: Any) -> dict[str, str] | None:
    for node in nodes_of(value):
        p = props(node)
        found = {"name": text(p.get("name")), "address": _address(p.get("address"))}
        out = {k: v for k, v in found.items() if v}
        if out:
            return out
    name = text(value)
    return {"name": name} if name else None


def _crumbs(value: Any) -> list[dict[str, str]]:
    out = []
    for node in nodes_of(value):
        p = props(node)
        item = p.get("item")
        name = text(p.get("name")) or (
            text(props(nodes_of(item)[0]).get("name")) if nodes_of(item) else None
        )
        url = (
            ref(item)
            if not nodes_of(item)
            else (ref(props(nodes_of(item)[0]).get("url")) or ref(nodes_of(item)[0]))
        )
        entry = {k: v for k, v in (("name", name), ("url", url)) if v}
        if entry:
            out.append(entry)
    return out


def _text_list(value: Any) -> list[str]:
    out = []
    for item in values(value):
        t = (
            text(props(item).get("text") or props(item).get("name"))
            if nodes_of(item)
            else text(item)
        )
        if t:
            out.append(t)
    return out


def _main_image(value: Any) -> dict[str, Any] | None:
    """``{"url"}`` of an image value (a URL or an ImageObject); None when it has no URL."""
    if not value:
        return None
    url = ref(props(nodes_of(value)[0]).get("url")) if nodes_of(value) else ref(value)
    return {"url": url} if url else None


_COMMON = {"name": ("name", text), "url": ("url", ref), "description": ("description", text)}
_TABLE: dict[str, dict[str, tuple[str, Any]]] = {
    "Article": {
        "headline": ("headline", text),
        "datePublished": ("datePublished", text),
        "dateModified": ("dateModified", text),
        "authors": ("author", _names),
        "inLanguage": ("inLanguage", text),
        "articleSection": ("articleSection", text),
        "mainImage": ("image", _main_image),
        "publisher": ("publisher", _one_name),
        "articleBody": ("articleBody", text),  # reshaped by structcrawl.articles (issue 22)
    },
    "Event": {
        "startDate": ("startDate", text),
        "endDate": ("endDate", text),
        "location": ("location", _location),
        "organizer": ("organizer", _one_name),
        "eventStatus": ("eventStatus", lambda v: (ref(v) or "").rsplit("/", 1)[-1] or None),
        "performers": ("performer", _names),
    },
    "Recipe": {
        "recipeIngredient": ("recipeIngredient", _text_list),
        "recipeInstructions": ("recipeInstructions", _text_list),
        "totalTime": ("totalTime", text),
        "prepTime": ("prepTime", text),
        "cookTime": ("cookTime", text),
        "recipeYield": ("recipeYield", text),
        "authors": ("author", _names),
        "datePublished": ("datePublished", text),
    },
    "JobPosting": {
        "jobTitle": ("title", text),
        "datePublished": ("datePosted", text),
        "validThrough": ("validThrough", text),
        "employmentType": ("employmentType", text),
        "hiringOrganization": ("hiringOrganization", _one_name),
        "jobLocation": ("jobLocation", _location),
    },
    "LocalBusiness": {
        "address": ("address", _address),
        "telephone": ("telephone", text),
        "priceRange": ("priceRange", text),
        "openingHours": ("openingHours", _text_list),
    },
    "Organization": {
        "address": ("address", _address),
        "telephone": ("telephone", text),
        "logo": (
            "logo",
            lambda v: ref(v) if not nodes_of(v) else ref(props(nodes_of(v)[0]).get("url")),
        ),
        "sameAs": ("sameAs", lambda v: [ref(x) for x in values(v) if ref(x)]),
    },
    "Person": {
        "jobTitle": ("jobTitle", text),
        "sameAs": ("sameAs", lambda v: [ref(x) for x in values(v) if ref(x)]),
    },
    "BreadcrumbList": {"breadcrumbs": ("itemListElement", _crumbs)},
    "ItemList": {"numberOfItems": ("numberOfItems", text)},
}


def _written(node: Node, prop: str, value: Any) -> Any:
    """The value as the page wrote it (before normalization), for provenance."""
    if nodes_of(value):
        return None
    seen = node.provenance.get(prop) or []
    first = seen[0] if seen and isinstance(seen[0], dict) else {}
    return first.get("raw", value) if "raw" in first else value


def other_candidates(node: Node, kind: str) -> list[Candidate]:
    """Every field of a non-product item this entity gives, with its provenance."""
    out = []
    for field, (prop, read) in {**_COMMON, **_TABLE.get(kind, {})}.items():
        raw = node.props.get(prop)
        if raw is None:
            continue
        value = read(raw)
        out.append(
            Candidate(
                field,
                value,
                node.format,
                f"{node.path}#{prop}",
                _written(node, prop, raw),
                prop,
                node.record,
                repaired=node.repaired,
            )
        )
    if kind in ("Event", "Recipe", "LocalBusiness") and node.props.get("offers") is not None:
        out += _offer_candidates(node)
    return out


def _offer_candidates(node: Node) -> list[Candidate]:
    """``price``, ``currency``, ``availability`` of the default offer (events: tickets)."""
    offer, _ = default_offer(node.props)
    if offer is None:
        return []
    path, rule = f"{node.path}#offers", f"offers[{offer.index}]"
    return [
        Candidate(name, value, node.format, path, raw, rule, node.record, repaired=node.repaired)
        for name, value, raw in (
            ("price", offer.price, offer.price_raw),
            ("currency", offer.currency, offer.currency_raw),
            ("availability", offer.availability, offer.availability_raw),
        )
    ]
