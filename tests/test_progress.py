"""The progress line and the report snapshots, as components."""

from __future__ import annotations

import json

import pytest
from scrapy.exceptions import NotConfigured
from scrapy.utils.test import get_crawler

from structcrawl.crawl.items import EntityItem, PageItem
from structcrawl.crawl.progress import Progress
from structcrawl.report.extension import QualityReport


def _page(n: int, browser: bool = False) -> PageItem:
    return PageItem(
        url=f"https://a.example/{n}", final_url=f"https://a.example/{n}", status=200,
        fetched_with="browser" if browser else "http",
        records=[{"kind": "entity", "format": "json-ld"}, {"kind": "error", "format": "json-ld"}],
    )  # fmt: skip


def test_the_progress_line_counts_pages_not_entities_and_gives_an_eta_from_the_sitemap():
    crawler = get_crawler(settings_dict={"STRUCTCRAWL_PROGRESS_INTERVAL": 5})
    progress = Progress.from_crawler(crawler)
    for n in range(3):
        progress.item_scraped(_page(n, browser=n == 0))
    progress.item_scraped(EntityItem(key="k"))  # an entity is not a page
    progress.started -= 3.0  # three seconds in: 1 page/s
    crawler.stats.set_value("structcrawl/site/sitemap_urls", 63)
    line = progress.line()
    assert line.startswith("progress: 3 pages done, ")
    assert "3 records, 3 errors, 1 in the browser, ETA 0:01:0" in line


def test_progress_can_be_turned_off():
    with pytest.raises(NotConfigured):
        Progress.from_crawler(get_crawler(settings_dict={"STRUCTCRAWL_PROGRESS_INTERVAL": 0}))


def test_a_snapshot_is_the_report_so_far_with_no_finish_reason(tmp_path):
    crawler = get_crawler(settings_dict={"STRUCTCRAWL_REPORT_DIR": str(tmp_path)})
    report = QualityReport.from_crawler(crawler)
    report.item_scraped(_page(1))
    report.snapshot()
    snapshot = json.loads((tmp_path / "report.json").read_text())
    assert snapshot["finish_reason"] is None and snapshot["snapshot_at"]
    assert not (tmp_path / "report.json.partial").exists()
