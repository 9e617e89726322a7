"""The quality report extension: aggregates every scraped page and entity item, and when the
spider closes (once its remote feeds are stored and the page ledger has counted what they
hold: :func:`structcrawl.crawl.uploads.when_feeds_stored`) writes ``report.json`` and
``report.html`` and checks the thresholds. A missed
threshold is recorded as ``structcrawl/failure/quality/<name>``, so the crawl exits non-zero
(:mod:`structcrawl.crawl.health`) and says why."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

from itemadapter import ItemAdapter
from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.utils.asyncio import create_looping_call

from structcrawl.crawl.config import DEFAULTS
from structcrawl.crawl.health import FAILURE_PREFIX
from structcrawl.crawl.uploads import when_feeds_stored
from structcrawl.report.aggregate import QualityAggregator, check_thresholds
from structcrawl.report.html import render_html
from structcrawl.report.runinfo import compare_runs, run_metadata

__all__ = ["QualityReport", "ReportConfig"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ReportConfig:
    enabled: bool
    directory: str
    thresholds: dict[str, float]
    snapshot_interval: float = 0.0

    @classmethod
    def from_settings(cls, settings: Any) -> ReportConfig:
        thresholds = settings.getdict("STRUCTCRAWL_QUALITY_THRESHOLDS")
        report = cls(
            enabled=settings.getbool("STRUCTCRAWL_REPORT_ENABLED", True),
            directory=settings.get("STRUCTCRAWL_REPORT_DIR") or "output/report",
            thresholds={str(k): float(v) for k, v in thresholds.items()},
            snapshot_interval=float(
                settings.get(
                    "STRUCTCRAWL_REPORT_SNAPSHOT_INTERVAL",
                    DEFAULTS["STRUCTCRAWL_REPORT_SNAPSHOT_INTERVAL"].default,
                )
                or 0
            ),
        )
        check_thresholds(_EMPTY, report.thresholds)  # unknown names fail at start, not at the end
        return report


_EMPTY = QualityAggregator().report({})


class QualityReport:
    def __init__(self, crawler: Crawler, config: ReportConfig):
        self.crawler = crawler
        self.config = config
        self.aggregator = QualityAggregator()
        self.snapshots: Any = None
        self.previous = _read_previous(Path(config.directory) / "report.json")
        crawler.signals.connect(self.item_scraped, signal=signals.item_scraped)
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> QualityReport:
        config = ReportConfig.from_settings(crawler.settings)
        if not config.enabled:
            raise NotConfigured("STRUCTCRAWL_REPORT_ENABLED is off")
        return cls(crawler, config)

    def item_scraped(self, item: Any) -> None:
        adapter = ItemAdapter(item)
        names = adapter.field_names()
        if "records" in names:
            self.aggregator.add_page(adapter)
        elif "conflicts" in names:
            self.aggregator.add_entity(adapter)

    def spider_opened(self, spider: Any) -> None:
        if self.config.snapshot_interval > 0:
            self.snapshots = create_looping_call(self.snapshot)
            self.snapshots.start(self.config.snapshot_interval, now=False)

    def snapshot(self) -> None:
        """``report.json`` as it stands, while the crawl runs (``finish_reason`` null)."""
        stats = self.crawler.stats
        report = self.aggregator.report(stats.get_stats() if stats else {})
        report["finish_reason"] = None
        report["snapshot_at"] = datetime.now(UTC).isoformat(timespec="seconds")
        report["previous_report"] = self.previous  # a crash mid-run keeps the comparison base
        _write_json(Path(self.config.directory) / "report.json", report)
        logger.info("quality report snapshot: %s", Path(self.config.directory) / "report.json")

    def spider_closed(self, spider: Any, reason: str) -> None:
        """Stop the snapshots; write the report once the feeds are stored (a remote feed is
        uploaded as the spider closes) and the page ledger has counted what they hold."""
        if self.snapshots is not None and self.snapshots.running:
            self.snapshots.stop()
        when_feeds_stored(self.crawler, partial(self._finish, reason))

    def _finish(self, reason: str) -> None:
        stats = self.crawler.stats
        assert stats is not None
        report = self.aggregator.report(stats.get_stats())
        report["finish_reason"] = reason
        spider = getattr(self.crawler, "spider", None)
        report["run"] = run_metadata(self.crawler.settings, reason, stats.get_stats(), spider)
        report["since_previous_run"] = compare_runs(report, self.previous)
        report["thresholds"] = check_thresholds(report, self.config.thresholds)
        missed = [t for t in report["thresholds"] if not t["ok"]]
        for t in missed:
            stats.set_value(f"{FAILURE_PREFIX}quality/{t['name']}", 1)
        directory = Path(self.config.directory)
        directory.mkdir(parents=True, exist_ok=True)
        _write_json(directory / "report.json", report)
        (directory / "report.html").write_text(render_html(report), encoding="utf-8")
        logger.info("quality report: %s", (directory / "report.html").resolve())
        for t in missed:
            logger.warning(
                "quality threshold missed: %s = %s (limit %s)", t["name"], t["value"], t["limit"]
            )


def _read_previous(path: Path) -> dict[str, Any] | None:
    """The last finished report in this report folder (the previous run of the same crawl),
    read before this run's snapshots replace it."""
    try:
        previous = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(previous, dict) or previous.get("finish_reason") is None:
        return previous.get("previous_report") if isinstance(previous, dict) else None
    return previous


def _write_json(path: Path, report: dict[str, Any]) -> None:
    """Write ``report`` whole or not at all (a reader never sees half a snapshot)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".json.partial")
    partial.write_text(
        json.dumps(report, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8"
    )
    partial.replace(path)
