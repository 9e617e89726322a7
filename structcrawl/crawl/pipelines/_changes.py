"""Change detection in a crawl: the part of
:class:`~structcrawl.crawl.pipelines.entities.EntityPipeline` that compares each emitted entity
with the previous run.

* Every entity item gets ``change`` (``{"status", "fields", "previous_seen", "fingerprint"}``);
  after the last one, the previous run's entities this run did not see are emitted as entity
  items of status ``gone`` (their last known ``id``, ``type`` and ``properties``).
* ``gone`` is reported only when the run looks complete at the end of the crawl (no failure
  recorded so far, see :mod:`structcrawl.crawl.health`); entities whose pages failed this run are
  deferred, not gone (:mod:`structcrawl.changes.tracker`).
* The run's fingerprints are committed when the engine stops, and only if the crawl finished
  (``finish_reason`` ``finished``) and every feed was stored: a failed, interrupted or partial
  run commits nothing, so the next run compares with the last finished one and reports its
  changes again (deltas are at-least-once). After a finished run that recorded failures, the
  entities seen are committed and the unseen ones kept.
* With ``JOBDIR``, the failed pages are also kept in ``<JOBDIR>/changes-failed-pages.txt``, so
  a run resumed after a stop or a crash still defers the entities of pages that failed before.

Stats: ``structcrawl/changes/<status>``, ``structcrawl/changes/deferred``,
``structcrawl/changes/withheld``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import SplitResult, urlsplit

from itemadapter import ItemAdapter
from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

from structcrawl.changes.store import ChangeStore, open_change_store
from structcrawl.changes.tracker import ChangeTracker, page_failed
from structcrawl.crawl.config import ChangeConfig
from structcrawl.crawl.health import crawl_failures
from structcrawl.crawl.items import EntityItem
from structcrawl.crawl.pipelines._commit import in_thread, may_commit

__all__ = ["ChangeDetector", "default_scope"]

logger = logging.getLogger(__name__)
_BATCH = 500
#: Properties (and their provenance entries) a batch of entity items holds at most: entities
#: of thousands of properties each (a page of 20,000 names) go a few at a time, not 500.
_BATCH_WEIGHT = 50_000
_ENTITY_FIELDS = (
    "key",
    "id",
    "type",
    "properties",
    "conflicts",
    "first_seen",
    "last_seen",
    "sources",
)


def default_scope(spider: Any) -> str:
    """``<spider name>:<allowed domains>`` (or the name alone, or ``default``), and the
    ``host:port`` of start URLs on a port of their own after ``@``: two local sites on one
    host (``127.0.0.1:8765`` and ``127.0.0.1:8766``) are two scopes, not one site whose
    entities went ``gone``."""
    if spider is None:
        return "default"
    domains = sorted(str(d) for d in getattr(spider, "allowed_domains", None) or [])
    name = str(getattr(spider, "name", None) or "default")
    scope = f"{name}:{','.join(domains)}" if domains else name
    starts = [
        *(getattr(spider, "start_urls", None) or ()),
        *(getattr(spider, "sitemap_urls", None) or ()),
    ]
    ports = sorted({f"{p.hostname}:{p.port}" for p in map(_split, starts) if p and p.port})
    return f"{scope}@{','.join(ports)}" if ports else scope


def _split(url: Any) -> SplitResult | None:
    try:
        parts = urlsplit(str(url))
        parts.port  # noqa: B018 (raises on a port out of range)
    except ValueError:
        return None
    return parts


def _weight(item: Any) -> int:
    adapter = ItemAdapter(item)
    return 1 + sum(len(adapter.get(k) or ()) for k in ("properties", "provenance", "sources"))


def _batches(items: Iterable[Any], size: int, weight: int = _BATCH_WEIGHT) -> Iterator[list[Any]]:
    """``items`` in lists of at most ``size`` items and ``weight`` properties, provenance
    entries and sources (an item heavier than that alone).

    >>> [len(b) for b in _batches([{"properties": {"a": 1, "b": 2}}] * 5, 3, weight=5)]
    [2, 2, 1]
    """
    batch: list[Any] = []
    held = 0
    for item in items:
        batch.append(item)
        held += _weight(item)
        if len(batch) >= size or held >= weight:
            yield batch
            batch, held = [], 0
    if batch:
        yield batch


class ChangeDetector:
    def __init__(
        self,
        crawler: Crawler,
        config: ChangeConfig,
        store: ChangeStore,
        failed_file: Path | None = None,
    ):
        self.crawler = crawler
        self.stats = crawler.stats
        self.config = config
        self.tracker = ChangeTracker(store, ignore=config.ignore_fields)
        self.closed = False
        self.failed_file = failed_file  # JOBDIR: failed pages of earlier runs of the job
        if failed_file is not None and failed_file.exists():
            self.tracker.page_failed(failed_file.read_text(encoding="utf-8").splitlines())
        crawler.signals.connect(self._engine_stopped_signal, signal=signals.engine_stopped)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ChangeDetector:
        config = ChangeConfig.from_settings(crawler.settings)
        if not config.enabled:
            raise NotConfigured("STRUCTCRAWL_CHANGES_ENABLED is off")
        scope = config.scope or default_scope(getattr(crawler, "spider", None))
        jobdir = crawler.settings.get("JOBDIR")
        failed = Path(jobdir) / "changes-failed-pages.txt" if jobdir else None
        return cls(crawler, config, open_change_store(config.store_path, scope), failed)

    def see_page(self, item: Any) -> None:
        """Remember a page item that failed (its entities may not be gone)."""
        adapter = ItemAdapter(item)
        if page_failed(adapter):
            urls = [adapter.get("url") or "", adapter.get("final_url") or ""]
            self.tracker.page_failed(urls)
            if self.failed_file is not None:
                self.failed_file.parent.mkdir(parents=True, exist_ok=True)
                with self.failed_file.open("a", encoding="utf-8") as fh:
                    fh.write("".join(f"{u}\n" for u in urls if u and "\n" not in u))

    def expects_entities(self) -> bool:
        """Whether the previous run had entities (then an empty run still emits: ``gone``)."""
        return len(self.tracker.store) > 0

    def annotate(self, items: Iterable[Any]) -> Iterator[Any]:
        """The entity items with their ``change``, then the ``gone`` entity items."""
        for batch in _batches(items, _BATCH):
            adapters = [ItemAdapter(item) for item in batch]
            entities = [{k: a.get(k) for k in _ENTITY_FIELDS} for a in adapters]
            for adapter, change in zip(adapters, self.tracker.observe(entities), strict=True):
                adapter["change"] = change.to_dict()
                self._inc(change.status)
            yield from batch
        failures = crawl_failures(self.stats.get_stats()) if self.stats is not None else []
        if failures:
            logger.info("change detection: gone entities withheld, the crawl failed: %s", failures)
        for before, change in self.tracker.gone(report=not failures):
            self._inc("gone")
            entity = before.entity
            yield EntityItem(
                key=before.key,
                id=entity.get("id"),
                type=list(entity.get("type") or []),
                properties=dict(entity.get("properties") or {}),
                first_seen=before.first_seen,
                last_seen=before.seen,
                change=change.to_dict(),
            )
        for name in ("deferred", "withheld"):
            if self.tracker.counts[name]:
                self._inc(name, self.tracker.counts[name])

    def _inc(self, name: str, count: int = 1) -> None:
        if self.stats is not None:
            self.stats.inc_value(f"structcrawl/changes/{name}", count)

    async def _engine_stopped_signal(self) -> None:
        """The ``engine_stopped`` handler: :meth:`engine_stopped` in a thread."""
        await in_thread(self.engine_stopped)

    def engine_stopped(self) -> None:
        if self.closed:
            return
        self.closed = True
        stats = self.stats.get_stats() if self.stats is not None else {}
        try:
            if not self.tracker.observed:
                logger.info("change detection: no entities emitted, nothing to commit")
            elif may_commit(stats, "change detection: entity state"):
                if self.tracker.gone_reported and crawl_failures(stats):
                    self.tracker.gone_reported = False  # a failure after the gone report
                self.tracker.commit()
                logger.info(
                    "change detection: committed %s (scope %s)",
                    dict(self.tracker.counts),
                    self.tracker.store.scope,
                )
        finally:
            self.tracker.close()
