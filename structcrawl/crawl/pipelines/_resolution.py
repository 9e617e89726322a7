"""The resolution stage in the crawl: a page's things resolved once
(:func:`structcrawl.typed.page.resolve_page`), shared by the entity merge and the typed items.

The entity pipeline resolves each page (its records are final: after normalization and
validation) and keeps the result on the page item (``resolution``, transient); the typed-items
pipeline projects the same result into the ``items`` feed. Each item carries ``entityKey``,
the key its entity is stored and emitted under, and the entity merge marks the values the
item took, so the two feeds agree (:func:`add_choices`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from itemadapter import ItemAdapter

from structcrawl.core.document import Document
from structcrawl.entities import hoist, is_entity
from structcrawl.entities.identity import store_key
from structcrawl.entities.merge import add_choice
from structcrawl.typed.corroborate import corroborate
from structcrawl.typed.page import PageResolution, resolve_page
from structcrawl.typed.pageentities import PageEntity

__all__ = ["add_choices", "item_url", "page_resolution", "page_sightings", "resolve_item"]

#: How a page's choice ranks in the entity merge: on the page the entity is the primary thing
#: of, before a choice made where it was only mentioned (a related product, a listing).
_ARB = {"primary": -2}


def item_url(adapter: ItemAdapter) -> str:
    """The page item's URL: where it was fetched from in the end."""
    return str(adapter.get("final_url") or adapter.get("url") or "")


def resolve_item(
    adapter: ItemAdapter,
    url: str,
    precedence: Sequence[str],
    *,
    article_body: bool = True,
    visible: bool = True,
) -> PageResolution:
    """The page item's resolution made now from its records and its parsed page (when it
    still holds it), neither kept nor read from the item (:func:`page_resolution` keeps it)."""
    document = adapter.get("document")
    return resolve_page(
        list(adapter.get("records") or []),
        url,
        document if isinstance(document, Document) else None,
        precedence=precedence,
        article_body=article_body,
        visible=visible,
    )


def page_resolution(
    item: Any, precedence: Sequence[str], *, article_body: bool = True, visible: bool = True
) -> PageResolution:
    """The page item's resolution, computed once and kept on the item (``resolution``);
    ``article_body``: :data:`STRUCTCRAWL_ARTICLE_BODY`; ``visible``:
    :data:`STRUCTCRAWL_VISIBLE_PAGE`."""
    adapter = ItemAdapter(item)
    kept = adapter.get("resolution") if "resolution" in adapter.field_names() else None
    if isinstance(kept, PageResolution):
        return kept
    url = item_url(adapter)
    resolution = resolve_item(adapter, url, precedence, article_body=article_body, visible=visible)
    for typed in resolution.items:
        typed["page_url"] = url
    if "resolution" in adapter.field_names():
        adapter["resolution"] = resolution
    return resolution


def page_sightings(
    resolution: PageResolution, records: list[dict[str, Any]], page_url: str
) -> list[tuple[str, dict[str, Any]]]:
    """``(store key, record)`` of every entity sighting of the page: each entity record and
    nested record with an ``@id`` (:func:`~structcrawl.entities.hoist`), every record of an
    item's thing under that item's entity key, page metadata as a sighting of the primary
    item's entity, and the record of an item no layer described."""
    key_of: dict[int, str] = {}
    members: list[tuple[str, dict[str, Any]]] = []
    for entity in resolution.entities:
        for record in entity.records:
            key_of.setdefault(id(record), entity.key)
            members.append((entity.key, record))
        if entity.synthetic is not None:
            members.append((entity.key, entity.synthetic))
    primary = next((e for e in resolution.entities if e.role == "primary"), None)
    out: list[tuple[str, dict[str, Any]]] = []
    seen: set[int] = set()
    for record in corroborate(records, primary, page_url):
        if not is_entity(record):
            continue
        for found in hoist(record):
            seen.add(id(found))
            out.append((key_of.get(id(found)) or store_key(found), found))
    # things nested without an @id (a Product under WebPage.mainEntity, a listed product)
    out += [(key, record) for key, record in members if id(record) not in seen]
    return out


def add_choices(
    state: dict[str, Any], entity: PageEntity, page_url: str, ranks: Mapping[str, int]
) -> None:
    """Mark in ``state`` the values the page's item of ``entity`` took (a value read from the
    page by a fallback is added as a sighting of its own)."""
    if entity.role == "primary":  # the pages whose own thing it is (names merged entities)
        state["primary"] = int(state.get("primary") or 0) + 1
    fields = state["fields"]
    for choice in entity.choices:
        head = choice.field.rpartition(".")[0]
        if head and head in fields:  # the entity holds the whole list of offers
            continue
        seen = {"url": page_url, "format": choice.layer, "path": choice.path, "raw": choice.raw}
        rank = ranks.get(choice.layer, len(ranks)) + (2 * len(ranks) if choice.fallback else 0)
        add_choice(
            state, choice.field, choice.value, arb=_ARB.get(entity.role, -1), seen=seen, rank=rank
        )
