"""Typed items in the crawl: each page's items are the projection of its resolution (the one the
entity merge used, :mod:`structcrawl.crawl.pipelines._resolution`), made while the page item
still holds its parsed page, and carried on the page item (``typed_items``) for the ``items``
feeds to write as they are (no second parse, and the visible-page fallbacks survive a released
document). Each item carries ``entityKey``, the key of its line in the ``entities`` feed.

* Fallback values are checked against the visible page (:mod:`structcrawl.validate.fallbacks`:
  ``validation.flags`` of code ``fallback-not-visible``); the page's visible facts are computed
  only for pages whose items have a fallback value.
* Every item is made an instance of its class (:mod:`structcrawl.typed.classes`, read
  through ``ItemAdapter``) and checked against its published schema; an invalid item keeps
  its failures in ``validation.schema`` and is counted (``structcrawl/items/invalid``,
  ``structcrawl/items/invalid/<Type>``), never dropped.
* With change detection on (``STRUCTCRAWL_CHANGES_ENABLED`` and a SQLite
  ``STRUCTCRAWL_CHANGE_STORE``), every item gets ``change`` (``{"status": new|changed|unchanged,
  "fields": [...]}``, compared with the previous finished run under the scope
  ``items:<change scope>``, keyed by the item's entity on its page,
  :func:`structcrawl.changes.items.page_item_key`) and, when it has
  a price, currency or availability, ``history``: its latest observations (at most
  ``STRUCTCRAWL_ITEM_HISTORY_LIMIT``, this run's last). The run is committed under the entity
  change detection's rules: when the engine stops, only if the crawl finished and every feed
  was stored; the previous run's items not seen are counted as ``gone`` (stats) then.

Runs after validation and entities (order 650: records are final). Enabled by
``STRUCTCRAWL_TYPED_ITEMS`` (None: when a feed of format ``items`` or ``items-csv`` is set).
Stats: ``structcrawl/items/pages``, ``structcrawl/items/items``,
``structcrawl/items/fallback_flagged``, ``structcrawl/items/invalid`` (and per type),
``structcrawl/items/changes/<status>``.
"""

from __future__ import annotations

import logging
from typing import Any

from itemadapter import ItemAdapter
from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

from structcrawl.changes.config import ChangeConfig
from structcrawl.changes.items import HISTORY_FIELDS, ItemTracker
from structcrawl.crawl.config import DEFAULTS
from structcrawl.crawl.pipelines._changes import default_scope
from structcrawl.crawl.pipelines._commit import in_thread, may_commit
from structcrawl.crawl.pipelines._resolution import page_resolution
from structcrawl.entities.merge import DEFAULT_PRECEDENCE
from structcrawl.typed.schema import as_checked_items
from structcrawl.validate.fallbacks import LazyPage, check_fallbacks
from structcrawl.visible.facts import LazyVisibleFacts

__all__ = ["ITEM_FEED_FORMATS", "TypedItemsPipeline", "item_store_path", "items_wanted"]

logger = logging.getLogger(__name__)

#: Feed formats that write typed items (turn the pipeline on when ``STRUCTCRAWL_TYPED_ITEMS``
#: is None).
ITEM_FEED_FORMATS = frozenset({"items", "items-csv"})


def item_store_path(location: str) -> str | None:
    """The SQLite file of a ``STRUCTCRAWL_CHANGE_STORE`` value, None for a store of another
    kind (a Redis URI: item tracking is not distributed).

    >>> item_store_path("out/changes.sqlite"), item_store_path("redis://h:6379/0")
    ('out/changes.sqlite', None)
    """
    scheme, sep, rest = str(location).partition("://")
    if not sep:
        return str(location)
    return rest if scheme.lower() == "file" else None


def _setting(crawler: Crawler, name: str) -> Any:
    return crawler.settings.get(name, DEFAULTS[name].default)


def items_wanted(crawler: Crawler) -> bool:
    """Whether the crawl builds typed items (``STRUCTCRAWL_TYPED_ITEMS``, else an items feed)."""
    forced = _setting(crawler, "STRUCTCRAWL_TYPED_ITEMS")
    if forced is not None:
        return crawler.settings.getbool("STRUCTCRAWL_TYPED_ITEMS")
    feeds = crawler.settings.getdict("FEEDS")
    return any(
        isinstance(options, dict) and options.get("format") in ITEM_FEED_FORMATS
        for options in feeds.values()
    )


def _page(adapter: ItemAdapter) -> LazyPage:
    """The page the fallback values are checked against: the visible facts the record checks
    already read (the page item's ``visible``) are not read again."""
    visible = adapter.get("visible") if "visible" in adapter.field_names() else None
    known = visible.read_so_far() if isinstance(visible, LazyVisibleFacts) else None
    return LazyPage(adapter.get("document"), known)


class TypedItemsPipeline:
    def __init__(
        self,
        crawler: Crawler,
        precedence: tuple[str, ...],
        tracker: ItemTracker | None = None,
        history_limit: int = 10,
        article_body: bool = True,
        visible: bool = True,
    ):
        self.crawler = crawler
        self.article_body = article_body
        self.visible = visible
        self.stats = crawler.stats
        self.precedence = precedence
        self.tracker = tracker
        self.history_limit = history_limit
        self.closed = False
        if tracker is not None:
            crawler.signals.connect(self._engine_stopped_signal, signal=signals.engine_stopped)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> TypedItemsPipeline:
        if not items_wanted(crawler):
            raise NotConfigured("no items feed and STRUCTCRAWL_TYPED_ITEMS not on")
        settings = crawler.settings
        precedence = tuple(
            settings.getlist("STRUCTCRAWL_FORMAT_PRECEDENCE", list(DEFAULT_PRECEDENCE))
        )
        changes = ChangeConfig.from_settings(settings)
        path = item_store_path(changes.store_path) if changes.enabled else None
        tracker = None
        if path is not None:
            scope = changes.scope or default_scope(getattr(crawler, "spider", None))
            tracker = ItemTracker(path, scope=scope, per_page=True)
        limit = int(_setting(crawler, "STRUCTCRAWL_ITEM_HISTORY_LIMIT") or 0)
        body = settings.getbool(
            "STRUCTCRAWL_ARTICLE_BODY", DEFAULTS["STRUCTCRAWL_ARTICLE_BODY"].default
        )
        visible = settings.getbool(
            "STRUCTCRAWL_VISIBLE_PAGE", DEFAULTS["STRUCTCRAWL_VISIBLE_PAGE"].default
        )
        return cls(
            crawler, precedence, tracker, history_limit=limit, article_body=body, visible=visible
        )

    def process_item(self, item: Any) -> Any:
        adapter = ItemAdapter(item)
        if "typed_items" not in adapter.field_names():
            return item
        try:
            items = page_resolution(
                item, self.precedence, article_body=self.article_body, visible=self.visible
            ).items
        except Exception:  # a bug must not lose the page: its records stay in `records`
            logger.exception("typed items of %s could not be built", adapter.get("url"))
            items = []
        try:  # fallback values against what the page shows (not with the page unread)
            flagged = check_fallbacks(items, _page(adapter)) if self.visible else 0
        except Exception:  # a bug must not lose the page: its items go out unchecked
            logger.exception("fallback values of %s could not be checked", adapter.get("url"))
            flagged = 0
        if self.stats is not None:
            self.stats.inc_value("structcrawl/items/pages")
            self.stats.inc_value("structcrawl/items/items", len(items))
            if flagged:
                self.stats.inc_value("structcrawl/items/fallback_flagged", flagged)
        if self.tracker is not None and items:
            self._track(items, adapter)
        checked, invalid = as_checked_items(items)
        if self.stats is not None and invalid:
            self.stats.inc_value("structcrawl/items/invalid", len(invalid))
            for kind in invalid:
                self.stats.inc_value(f"structcrawl/items/invalid/{kind}")
        adapter["typed_items"] = checked
        return item

    def _track(self, items: list[dict[str, Any]], adapter: ItemAdapter) -> None:
        assert self.tracker is not None
        url = str(adapter.get("final_url") or adapter.get("url") or "")
        seen = adapter.get("retrieved_at")
        changes = self.tracker.observe(items, seen=seen, page_url=url)
        for typed, change in zip(items, changes, strict=True):
            typed["change"] = {"status": change["status"], "fields": change.get("fields") or []}
            if self.stats is not None:
                self.stats.inc_value(f"structcrawl/items/changes/{change['status']}")
            if self.history_limit and any(typed.get(f) is not None for f in HISTORY_FIELDS):
                typed["history"] = [
                    {k: v for k, v in h.items() if k != "page"}
                    for h in self.tracker.history(change["key"], self.history_limit)
                ]

    async def _engine_stopped_signal(self) -> None:
        await in_thread(self.engine_stopped)

    def engine_stopped(self) -> None:
        """Commit the run's item fingerprints and history: only a finished run whose feeds
        were all stored (as :class:`~structcrawl.crawl.pipelines._changes.ChangeDetector`)."""
        if self.closed or self.tracker is None:
            return
        self.closed = True
        stats = self.stats.get_stats() if self.stats is not None else {}
        try:
            if self.tracker.tracker.observed and may_commit(stats, "item change tracking"):
                gone = self.tracker.finish()
                if gone and self.stats is not None:
                    self.stats.inc_value("structcrawl/items/changes/gone", len(gone))
        finally:
            self.tracker.close()
