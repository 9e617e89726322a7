"""A failed crawl must not look like success: `scrapy crawl` exits non-zero."""

from __future__ import annotations

import pytest

from structcrawl.crawl.health import crawl_failures
from structcrawl.dev.demo import run_crawl
from structcrawl.dev.devserver import BackgroundServer


@pytest.mark.parametrize(
    "stats, expected",
    [
        ({"finish_reason": "finished"}, []),
        ({"finish_reason": "closespider_pagecount"}, []),
        ({"finish_reason": "shutdown"}, ["finish_reason: shutdown"]),
        (
            {"finish_reason": "finished", "feedexport/failed_count/S3FeedStorage": 1},
            ["feedexport/failed_count/S3FeedStorage: 1"],
        ),
        ({"finish_reason": "finished", "structcrawl/failure/x": 0}, []),
        (
            {"finish_reason": "finished", "log_count/ERROR": 2},
            ["log_count/ERROR: 2 (errors were logged; see the crawl log)"],
        ),
    ],
)
def test_crawl_failures(stats, expected):
    assert crawl_failures(stats) == expected


@pytest.mark.crawl
def test_failed_feed_storage_makes_the_crawl_exit_non_zero(tmp_path):
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text("<html><body>x</body></html>")
    blocked = tmp_path / "not-a-dir"
    blocked.write_text("a file where a directory should be")
    with BackgroundServer(tmp_path / "site") as server:
        ok = run_crawl(server.url, tmp_path / "ok", timeout=120)
        failed = run_crawl(
            server.url, tmp_path / "bad", "-O", f"{blocked}/feed.jsonl:records", timeout=120
        )
    assert ok == 0
    assert failed == 1
