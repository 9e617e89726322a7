"""A page's typed items: resolve its entities, find its primary entity, build flat items
(pure).

1. Every typed entity of every layer becomes a node (:mod:`~structcrawl.typed.nodes`).
2. Nodes of one item type that share a strong identifier (:mod:`~structcrawl.entities.identity`),
   or top-level product nodes with the same name, are one entity (union-find,
   :mod:`structcrawl.entities.identity`).
3. The primary entity: the one a ``WebPage`` names as ``mainEntity`` or that names the page as
   its ``mainEntityOfPage``, else the one whose ``url`` is the page's canonical URL, else by type
   (:data:`~structcrawl.typed.other.TYPE_ORDER`), then the one named like the main heading,
   then the outermost and first. A page with two or more products, none of them the page's
   own (by URL or heading), or an ``ItemList`` of products, is a listing: one item per product.
4. Fields are chosen per item by layer precedence (:mod:`~structcrawl.typed.fields`); the
   page's product alone also receives the generic fallbacks (:mod:`~structcrawl.typed.fallbacks`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import structcrawl.typed.articlemeta as articlemeta
import structcrawl.typed.shown as shown
from structcrawl.articles import complete_articles
from structcrawl.core.document import Document
from structcrawl.core.readers import nodes_of, props, ref, text, values
from structcrawl.entities.identity import identity_keys, resolve, url_key
from structcrawl.entities.merge import DEFAULT_PRECEDENCE
from structcrawl.typed._norm import plain_words
from structcrawl.typed.build import build as _build
from structcrawl.typed.fields import Candidate
from structcrawl.typed.flags import item_flags
from structcrawl.typed.graph import follow_references
from structcrawl.typed.listing import listing_groups
from structcrawl.typed.nodes import Node, item_kind, page_nodes
from structcrawl.typed.other import TYPE_ORDER
from structcrawl.typed.pageentities import PageEntity, page_entity
from structcrawl.visible.evidence import Evidence, page_evidence, page_heading
from structcrawl.visible.facts import canonical
from structcrawl.visible.grid import grid_products

__all__ = ["PageResolution", "build_items", "resolve_page"]

_PAGE_TYPES = frozenset(
    {
        "WebPage",
        "ItemPage",
        "ProductPage",
        "CollectionPage",
        "WebSite",
        "AboutPage",
        "SearchResultsPage",
    }
)


def _canonical(doc: Document | None) -> str | None:
    return canonical(doc) if doc is not None else None


def _clusters(nodes: list[Node], page_url: str) -> list[tuple[str, list[Node]]]:
    keyed: dict[int, list[str]] = {}
    kinds: dict[int, str] = {}
    for n in nodes:
        kind = item_kind(n)
        if kind is None:
            continue
        kinds[n.ordinal] = kind
        keys = identity_keys(n.id, n.props, page_url)
        name = text(n.props.get("name"))
        if kind == "Product" and name and (n.depth == 0 or n.via == "mainEntity"):
            keys.append("name:" + " ".join(name.casefold().split()))
        if kind in ("Organization", "Person", "BreadcrumbList", "LocalBusiness") and name:
            keys.append("name:" + " ".join(name.casefold().split()))
        if kind == "BreadcrumbList":
            keys.append("crumbs")
        keyed[n.ordinal] = [f"{kind}|{k}" for k in keys]
    by_ordinal = {n.ordinal: n for n in nodes}
    groups = resolve(keyed)
    return [(kinds[g[0]], [by_ordinal[o] for o in g]) for g in groups]


def _main_refs(nodes: list[Node], page_keys: set[str]) -> set[str]:
    """Keys (id / url) of what the page says it is about."""
    out: set[str] = set()
    for n in nodes:
        if set(n.types) & _PAGE_TYPES:
            for v in values(n.props.get("mainEntity")) + values(n.props.get("about")):
                iri = (v.get("id") or v.get("@id")) if nodes_of(v) else ref(v)
                if iri:
                    out.add("id:" + iri)
    return out


def _score(
    kind: str, group: list[Node], main: set[str], page_keys: set[str], head: str
) -> tuple[Any, ...]:
    """How a group of nodes ranks as the page's thing (lower first); ``head``: the page's
    main heading as :func:`~structcrawl.typed._norm.plain_words`."""
    ids = {"id:" + n.id for n in group if n.id}
    urls: set[str] = set()
    self_main = False
    for n in group:
        for v in values(n.props.get("url")):
            k = url_key(ref(v))
            if k:
                urls.update((k, _pathless(k)))
        for v in values(n.props.get("mainEntityOfPage")):
            target = (ref(props(v).get("url")) or ref(v)) if nodes_of(v) else ref(v)
            k = url_key(target)
            if k and k in page_keys:
                self_main = True
    names = {plain_words(text(n.props.get("name")) or text(n.props.get("headline"))) for n in group}
    return (
        not (ids & main or self_main),
        not (urls & page_keys) or kind in ("Organization", "Person", "BreadcrumbList", "ItemList"),
        TYPE_ORDER.index(kind),
        not (head and any(nm and (nm in head or head in nm) for nm in names)),
        min(n.depth for n in group),
        min(n.ordinal for n in group),
    )


def _pathless(url_key_: str) -> str:
    """A canonical URL without its query (a variant's ``?variant=1`` is the same page)."""
    return url_key_.split("?", 1)[0]


@dataclass(slots=True)
class PageResolution:
    """A page's things: its typed items, primary first, and the entity of each
    (``entities[i]`` is the entity of ``items[i]``)."""

    items: list[dict[str, Any]]
    entities: list[PageEntity]


def build_items(
    records: list[dict[str, Any]],
    page_url: str,
    document: Document | None = None,
    *,
    precedence: Sequence[str] = DEFAULT_PRECEDENCE,
    article_body: bool = True,
    visible: bool = True,
) -> list[dict[str, Any]]:
    """The page's items, primary first (see the module doc); ``article_body``: the primary
    article's body from the page's main text when its markup has none; ``visible``: see
    :func:`resolve_page`."""
    return resolve_page(
        records,
        page_url,
        document,
        precedence=precedence,
        article_body=article_body,
        visible=visible,
    ).items


def resolve_page(
    records: list[dict[str, Any]],
    page_url: str,
    document: Document | None = None,
    *,
    precedence: Sequence[str] = DEFAULT_PRECEDENCE,
    article_body: bool = True,
    visible: bool = True,
) -> PageResolution:
    """The page's items and their entities (see the module doc); each item carries its
    entity's key as ``entityKey``.

    The visible page is read (:func:`~structcrawl.visible.evidence.page_evidence`, one walk of
    the whole page) only where the layers leave the page's product short
    (:func:`~structcrawl.typed.shown.needs_visible`); otherwise its main heading alone
    serves. The articles are completed (their bodies read by trafilatura,
    :func:`~structcrawl.articles.complete_articles`)
    only for the pass whose items are the page's: where the light pass's items need the
    visible page before completion, they need it after (completion adds an Article only to a
    page without a primary item, drops only empty items and changes no Product), so that
    pass is not completed.

    ``visible=False`` (``STRUCTCRAWL_VISIBLE_PAGE`` off): the visible page gives no value and
    overrules none, and makes no item of its own (a product or a signed article without
    markup); of it only the main heading is read (to tell the page's own product among the
    things its markup describes); the markup's values, its meta tags, ``itemprop``
    attributes and data blocks and the page's URL id remain, and a markup article's body is
    still read from the main text (``article_body``)."""
    nodes = follow_references(page_nodes(records))
    graph = (nodes, _clusters(nodes, page_url))  # read-only: shared by both passes
    if document is None:
        built = _build_page(records, page_url, None, Evidence(), precedence, graph)
        return _complete(built, records, page_url, None, article_body)
    light = Evidence(heading=page_heading(document))
    built = _build_page(records, page_url, document, light, precedence, graph, visible)
    if not visible:
        return _complete(built, records, page_url, document, article_body, page_alone=False)
    if not shown.needs_visible(built.items, document):
        result = _complete(built, records, page_url, document, article_body)
        if not shown.needs_visible(result.items, document):
            return result
    ev = page_evidence(document)
    built = _build_page(records, page_url, document, ev, precedence, graph)
    return _complete(built, records, page_url, document, article_body)


_Built = tuple[dict[str, Any], dict[str, Candidate], str, list[Node]]


@dataclass(slots=True)
class _Page:
    """One pass's items, primary first, before the articles are completed, and what each was
    built from."""

    items: list[dict[str, Any]]
    built: list[_Built]


def _complete(
    page: _Page,
    records: list[dict[str, Any]],
    page_url: str,
    document: Document | None,
    article_body: bool,
    *,
    page_alone: bool = True,
) -> PageResolution:
    """The pass's items as the page's: articles as a reader sees them (bodies, bylines,
    dates; empty items dropped, a signed page without items an Article unless not
    ``page_alone``), and their entities."""
    items = complete_articles(
        page.items, records, document, body=article_body, page_alone=page_alone
    )
    return PageResolution(items, _entities(items, page.built, records, page_url))


def _build_page(
    records: list[dict[str, Any]],
    page_url: str,
    document: Document | None,
    ev: Evidence,
    precedence: Sequence[str],
    graph: tuple[list[Node], list[tuple[str, list[Node]]]],
    visible: bool = True,
) -> _Page:
    """One pass's items; ``visible``: the visible page's fallbacks, overrules and grid are
    read."""
    nodes, clusters = graph
    shown_price = shown.visible_price(ev)
    canonical = _canonical(document)
    page_keys = {k for k in (url_key(page_url), url_key(canonical)) if k}
    page_keys |= {_pathless(k) for k in page_keys}
    main = _main_refs(nodes, page_keys)
    head = plain_words(ev.heading)
    ranks = [(_score(kind, g, main, page_keys, head), kind, g) for kind, g in clusters]
    ranks.sort(key=lambda r: r[0])  # stable: equal ranks keep the clusters' order
    scored = [(kind, g) for _, kind, g in ranks]
    products = [g for kind, g in scored if kind == "Product"]
    own = [g for r, kind, g in ranks if kind == "Product" and not all(r[i] for i in (0, 1, 3))]
    listed = listing_groups(nodes, clusters, products, own)
    built: list[_Built] = []
    used: set[int] = set()

    def add(item: dict[str, Any], chosen: dict[str, Candidate], kind: str, group: list[Node]):
        built.append((item, chosen, kind, group))

    def has_primary() -> bool:
        return any(b[0].get("role") == "primary" for b in built)

    for group in listed:
        item, chosen = _build("Product", group, page_url, None, precedence, [])
        item["role"] = "listed"
        add(item, chosen, "Product", group)
        used.add(id(group))
    fb = shown.product_fallbacks(records, document, ev, ev.prices, visible) if not listed else []
    # the page's "Sold out" or pre-order button over a markup saying it is on sale
    overrule = (
        shown.stock_overrule(document) + shown.price_overrule(document, ev)
        if products and not listed and visible
        else []
    )

    def product_extra() -> list[Candidate]:  # the URL id searched only for a product built
        return [*shown.url_id_fallbacks(fb, document), *overrule]

    primary_kind = scored[0][0] if scored else None
    if not listed and not products and shown.is_product_page(records, fb, ev, primary_kind):
        item, chosen = _build("Product", [], page_url, shown_price, precedence, product_extra())
        if any(k in item for k in ("price", "sku", "name")):
            item["role"], item["canonicalUrl"] = "primary", canonical
            add(item, chosen, "Product", [])
    weak = not scored or scored[0][0] in ("Organization", "BreadcrumbList", "Person")
    if not listed and not built and weak and articlemeta.is_article_meta(records):
        extra = articlemeta.article_meta_candidates(records)
        item, chosen = _build("Article", [], page_url, None, precedence, extra)
        item["role"], item["canonicalUrl"] = "primary", canonical
        add(item, chosen, "Article", [])
    if not listed and not products and not built and document is not None and visible:
        built += _grid_items(document, ev, page_url, precedence)
    listing = bool(listed) or any(b[0].get("role") == "listed" for b in built)
    for kind, group in scored:
        if id(group) in used or (listed and kind == "Product"):
            continue
        extra = product_extra() if (kind == "Product" and not has_primary()) else []
        if kind == "Article" and not has_primary():
            extra = articlemeta.article_meta_candidates(records)
        shows = shown_price if extra else None
        item, chosen = _build(kind, group, page_url, shows, precedence, extra)
        if not has_primary() and kind != "BreadcrumbList" and not (listing and kind != "ItemList"):
            item["role"], item["canonicalUrl"] = "primary", canonical
        else:
            item["role"] = "supporting"
        add(item, chosen, kind, group)
    return _Page(_ordered([b[0] for b in built], listing), built)


def _grid_items(
    document: Document, ev: Evidence, page_url: str, precedence: Sequence[str]
) -> list[_Built]:
    """A category page without product markup: the products its grid of cards shows
    (:func:`structcrawl.visible.grid.grid_products`), each a listed Product."""
    out: list[_Built] = []
    for card in grid_products(document, ev.cards, own_price=ev.price is not None):
        cands = shown.grid_candidates(card, ev)
        item, chosen = _build("Product", [], page_url, None, precedence, cands)
        item["role"] = "listed"
        out.append((item, chosen, "Product", []))
    return out


def _entities(
    items: list[dict[str, Any]],
    built: list[_Built],
    records: list[dict[str, Any]],
    page_url: str,
) -> list[PageEntity]:
    """The entity of each item (an item added after the build, such as a signed page's
    Article, is an entity of its own); each item gets its ``entityKey`` and ``flags``."""
    of = {id(b[0]): b for b in built}
    entities = []
    for item in items:
        _, chosen, kind, group = of.get(id(item), (item, {}, str(item.get("type")), []))
        entity = page_entity(kind, str(item.get("role")), group, item, chosen, page_url)
        _keyed(item, entity.key)
        flags = item_flags(item, records, [n.record for n in group])
        if flags:
            item["flags"] = flags
        entities.append(entity)
    return entities


def _keyed(item: dict[str, Any], key: str) -> None:
    """Put ``entityKey`` after the item's ``kind`` and ``type`` (in place)."""
    rest = {k: v for k, v in item.items() if k not in ("kind", "type")}
    head: dict[str, Any] = {k: item[k] for k in ("kind", "type") if k in item}
    item.clear()
    item.update(head, entityKey=key, **rest)


def _ordered(items: list[dict[str, Any]], listing: bool) -> list[dict[str, Any]]:
    """Primary first (a listing's ItemList next); the product gets the page's breadcrumbs."""
    primary = [i for i in items if i.get("role") == "primary"]
    rest = [i for i in items if i.get("role") != "primary"]
    if listing:
        rest = [i for i in rest if i["type"] == "ItemList"] + [
            i for i in rest if i["type"] != "ItemList"
        ]
    if primary and primary[0]["type"] == "Product":
        crumbs = next((i for i in rest if i["type"] == "BreadcrumbList"), None)
        if crumbs and crumbs.get("breadcrumbs"):
            primary[0]["breadcrumbs"] = crumbs["breadcrumbs"]
    return primary + rest
