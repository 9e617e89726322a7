"""Deduplication by entity key: merges every entity sighting into the entity store, and emits
one :class:`~structcrawl.crawl.items.EntityItem` per entity when the crawl runs out of pages.

Emission goes through the engine (a ``data:`` request whose callback yields the entity
items), so entity items pass the item pipelines after this one and reach Scrapy's FEEDS like
any item: JSONL, CSV and S3 feeds of entities need nothing special. With change detection on
(:mod:`structcrawl.crawl.pipelines._changes`), each entity item carries ``change`` and the previous
run's entities not seen in this one follow as ``gone`` entity items.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from itemadapter import ItemAdapter
from scrapy import Request, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import DontCloseSpider, NotConfigured
from scrapy.http import Response

from structcrawl.crawl.config import DEFAULTS
from structcrawl.crawl.items import EntityItem
from structcrawl.crawl.meta import INTERNAL_META
from structcrawl.crawl.pipelines._changes import ChangeDetector
from structcrawl.crawl.pipelines._resolution import add_choices, page_resolution, page_sightings
from structcrawl.crawl.pipelines.typeditems import items_wanted
from structcrawl.entities import (
    DEFAULT_PRECEDENCE,
    SqliteEntityStore,
    add_record,
    entity_view,
    new_state,
    precedence_ranks,
)
from structcrawl.entities.identity import record_identity, resolve, store_key
from structcrawl.entities.merge import add_identity, merge_states
from structcrawl.entities.store import EntityStore, SourceRow

__all__ = [
    "INTERNAL_META",
    "EntityConfig",
    "EntityPipeline",
    "record_key",
    "register_shared_entity_store",
]

#: A crawl-wide entity store shared by several workers: ``crawler -> (store, coordinator)``, or
#: None when the crawl is not shared. :mod:`structcrawl.distributed` (loaded by every crawl as
#: an add-on) registers its Redis store; the pipeline imports nothing from it.
SharedStoreOpener = Callable[[Crawler], "tuple[EntityStore, Any] | None"]
_SHARED_STORES: list[SharedStoreOpener] = []


def register_shared_entity_store(opener: SharedStoreOpener) -> None:
    """Add ``opener`` to the ones :meth:`EntityPipeline.from_crawler` asks first (once each)."""
    if opener not in _SHARED_STORES:
        _SHARED_STORES.append(opener)


#: A record's store key (kept under this name for callers of the pipeline module).
record_key = store_key


@dataclass(frozen=True, slots=True)
class EntityConfig:
    enabled: bool
    store_path: str
    reset: bool
    precedence: tuple[str, ...]
    article_body: bool = True  # STRUCTCRAWL_ARTICLE_BODY: the resolution reads article bodies
    visible: bool = True  # STRUCTCRAWL_VISIBLE_PAGE: the resolution reads the visible page

    @classmethod
    def from_settings(cls, settings: Any) -> EntityConfig:
        path = settings.get("STRUCTCRAWL_ENTITY_STORE")
        jobdir = settings.get("JOBDIR")
        reset = True
        if not path:
            if jobdir:  # a resumable crawl keeps its entity state with the job
                path, reset = str(Path(jobdir) / "entities.sqlite"), False
            else:
                path = "output/state/entities.sqlite"
        precedence = settings.getlist("STRUCTCRAWL_FORMAT_PRECEDENCE", list(DEFAULT_PRECEDENCE))
        return cls(
            enabled=settings.getbool("STRUCTCRAWL_ENTITIES_ENABLED", True),
            store_path=str(path),
            reset=reset,
            precedence=tuple(precedence),
            article_body=settings.getbool(
                "STRUCTCRAWL_ARTICLE_BODY", DEFAULTS["STRUCTCRAWL_ARTICLE_BODY"].default
            ),
            visible=settings.getbool(
                "STRUCTCRAWL_VISIBLE_PAGE", DEFAULTS["STRUCTCRAWL_VISIBLE_PAGE"].default
            ),
        )


class EntityPipeline:
    def __init__(
        self,
        crawler: Crawler,
        config: EntityConfig,
        store: EntityStore,
        changes: ChangeDetector | None = None,
        coordinator: Any = None,
    ):
        self.crawler = crawler
        # distributed crawls (structcrawl.distributed): decides which worker emits
        self.coordinator = coordinator
        self.changes = changes  # comparison with the previous run (structcrawl.changes)
        self.stats = crawler.stats
        self.config = config
        self.ranks = precedence_ranks(config.precedence)
        self.store = store
        self.emitted = False
        crawler.signals.connect(self.spider_idle, signal=signals.spider_idle)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> EntityPipeline:
        config = EntityConfig.from_settings(crawler.settings)
        if config.article_body and not items_wanted(crawler):
            # no items feed: the page's resolution needs no article bodies (their cost)
            config = dataclasses.replace(config, article_body=False)
        if not config.enabled:
            raise NotConfigured("STRUCTCRAWL_ENTITIES_ENABLED is off")
        try:
            changes: ChangeDetector | None = ChangeDetector.from_crawler(crawler)
        except NotConfigured:
            changes = None
        # a distributed crawl (STRUCTCRAWL_REDIS_URL) merges into Redis; one worker emits
        for opener in _SHARED_STORES:
            shared = opener(crawler)
            if shared is not None:
                return cls(crawler, config, shared[0], changes, coordinator=shared[1])
        store = SqliteEntityStore(config.store_path, reset=config.reset)
        return cls(crawler, config, store, changes)

    def process_item(self, item: Any) -> Any:
        adapter = ItemAdapter(item)
        if "records" not in adapter.field_names():
            return item
        if self.changes is not None:
            self.changes.see_page(item)
            if self.coordinator is not None:
                self.coordinator.see_page(item)
        page_url = str(adapter.get("final_url") or adapter.get("url") or "")
        when = adapter.get("retrieved_at")
        resolution = page_resolution(
            item,
            self.config.precedence,
            article_body=self.config.article_body,
            visible=self.config.visible,
        )
        sightings = page_sightings(resolution, list(adapter.get("records") or []), page_url)
        if not sightings:
            return item
        # a store kept across the runs of a job (JOBDIR) merges each requested page once: a
        # page fetched again after a crash was merged before the crash
        page_key = str(adapter.get("url") or page_url)
        kept = self.store if not self.config.reset else None
        kept = kept if isinstance(kept, SqliteEntityStore) else None
        if kept is not None and kept.has_page(page_key):
            self.stats.inc_value("structcrawl/entities/pages_merged_before")
            return item
        sources: list[SourceRow] = [
            (key, page_url, record.get("format", ""), record.get("source_element", ""), when)
            for key, record in sightings
        ]

        def merge(states: dict[str, dict[str, Any]]) -> int:
            created = 0
            for key, record in sightings:
                state = states.get(key)
                if state is None:
                    state = states[key] = new_state(key)
                    created += 1
                add_record(state, record, page_url=page_url, retrieved_at=when, ranks=self.ranks)
                add_identity(state, record_identity(record, page_url))
            for entity in resolution.entities:  # the values the page's items took
                state = states.get(entity.key)
                if state is not None:
                    add_choices(state, entity, page_url, self.ranks)
            return created

        update = getattr(self.store, "update", None)
        if update is not None:  # shared store: atomic, re-run on a concurrent write
            created = update([key for key, _ in sightings], merge, sources)
        else:
            states = self.store.load(key for key, _ in sightings)
            created = merge(states)
            if kept is not None:
                kept.save(states, sources, pages=[page_key])
            else:
                self.store.save(states, sources)
        if created:
            self.stats.inc_value("structcrawl/entities/unique", created)
        self.stats.inc_value("structcrawl/entities/sightings", len(sightings))
        return item

    def spider_idle(self, spider: Any) -> None:
        if self.emitted:
            return
        if self.coordinator is not None and not self.coordinator.may_emit():
            return  # DontCloseSpider while the crawl goes on; False: another worker emits
        if len(self.store) == 0 and not (self.changes and self.changes.expects_entities()):
            return
        self.emitted = True
        request = Request(
            "data:,structcrawl-entities",
            callback=self.emit,
            dont_filter=True,
            meta={INTERNAL_META: True, "dont_obey_robotstxt": True, "dont_cache": True},
        )
        self.crawler.engine.crawl(request)
        raise DontCloseSpider

    def emit(self, response: Response) -> Iterator[EntityItem]:
        if self.changes is not None and self.coordinator is not None:
            self.changes.tracker.page_failed(self.coordinator.failed_pages())  # every worker's
        items = self._entity_items()
        # with change detection: each item gets `change`, then the `gone` entities follow
        yield from items if self.changes is None else self.changes.annotate(items)

    def _resolved_states(self) -> Iterator[tuple[dict[str, Any], list[str]]]:
        """Each entity once, entities that share a strong identifier merged into one (the
        grouping is independent of the order pages came in,
        :mod:`structcrawl.entities.identity`)."""
        identities = {
            state["key"]: [f"key|{state['key']}", *(state.get("identity") or [])]
            for state in self.store.states()
        }
        group_of: dict[str, list[str]] = {}
        for group in resolve(identities):
            if len(group) > 1:
                for key in group:
                    group_of[key] = group
        for state in self.store.states():
            members = group_of.get(state["key"])
            if members is None:
                yield state, [state["key"]]
            elif state["key"] == members[0]:
                self.stats.inc_value("structcrawl/entities/resolved", len(members) - 1)
                yield merge_states(list(self.store.load(members).values())), members

    def _entity_items(self) -> Iterator[EntityItem]:
        for state, keys in self._resolved_states():
            view = entity_view(state)
            self.stats.inc_value("structcrawl/entities/emitted")
            if view["conflicts"]:
                self.stats.inc_value("structcrawl/entities/with_conflicts")
            yield EntityItem(
                key=view["key"],
                keys=sorted(keys),
                id=view["id"],
                type=view["type"],
                properties=view["properties"],
                sources=[s for key in keys for s in self.store.sources(key)],
                conflicts=view["conflicts"],
                provenance=view["provenance"],
                formats=view["formats"],
                flags=view["flags"],
                source_validation=view["source_validation"],
                sightings=view["sightings"],
                first_seen=view["first_seen"],
                last_seen=view["last_seen"],
            )

    def close_spider(self) -> None:
        self.store.close()
