"""Change detection inside the entity pipeline: every entity item gets ``change``, gone ones
follow, and the state is committed only after a finished run."""

from __future__ import annotations

import pytest
from itemadapter import ItemAdapter
from scrapy.exceptions import NotConfigured
from scrapy.utils.test import get_crawler

from structcrawl.crawl.items import PageItem
from structcrawl.crawl.pipelines._changes import ChangeDetector, default_scope
from structcrawl.crawl.pipelines.entities import EntityPipeline


def record(slug, price):
    iri = f"https://shop.example/p/{slug}#product"
    return {
        "kind": "entity",
        "format": "json-ld",
        "type": ["Product"],
        "id": iri,
        "key": f"id:{iri}",
        "source_url": f"https://shop.example/p/{slug}",
        "source_element": "/html/head/script#$",
        "properties": {"name": slug.title(), "price": price},
        "provenance": {"fields": {}},
    }


def page(slug, price=None, **kw):
    records = [record(slug, price)] if price is not None else []
    fields = {
        "url": f"https://shop.example/p/{slug}",
        "final_url": f"https://shop.example/p/{slug}",
        "status": 200,
        "retrieved_at": "2026-03-01T10:00:00.000Z",
        "records": records,
    }
    return PageItem(**{**fields, **kw})


def crawl(tmp_path, pages, *, finish_reason="finished", stats=None, **settings):
    """One in-process 'run': pages through the entity pipeline, emission, engine stop."""
    crawler = get_crawler(
        settings_dict={
            "STRUCTCRAWL_ENTITY_STORE": str(tmp_path / "entities.sqlite"),
            "STRUCTCRAWL_CHANGE_STORE": str(tmp_path / "changes.sqlite"),
            **settings,
        }
    )
    pipe = EntityPipeline.from_crawler(crawler)
    for item in pages:
        pipe.process_item(item)
    for key, value in (stats or {}).items():
        crawler.stats.set_value(key, value)
    items = [ItemAdapter(i).asdict() for i in pipe.emit(None)]
    pipe.close_spider()
    crawler.stats.set_value("finish_reason", finish_reason)
    if pipe.changes is not None:
        pipe.changes.engine_stopped()  # what the engine_stopped signal calls
    return {i["key"].rsplit("/", 1)[-1]: i for i in items}, crawler.stats.get_stats()


def statuses(items):
    return {k: i["change"]["status"] for k, i in items.items()}


def test_each_entity_item_says_how_it_changed(tmp_path):
    first, stats = crawl(tmp_path, [page("a", "1.00"), page("b", "2.00"), page("c", "3.00")])
    assert statuses(first) == {"a#product": "new", "b#product": "new", "c#product": "new"}
    assert stats["structcrawl/changes/new"] == 3
    second, stats = crawl(tmp_path, [page("a", "1.00"), page("b", "2.50"), page("c")])
    assert statuses(second) == {
        "a#product": "unchanged",
        "b#product": "changed",
        "c#product": "gone",
    }
    assert second["b#product"]["change"]["fields"] == ["price"]
    assert second["a#product"]["change"]["previous_seen"] == "2026-03-01T10:00:00.000Z"
    gone = second["c#product"]
    assert gone["properties"] == {"name": "C", "price": "3.00"} and gone["sightings"] == 0
    assert (stats["structcrawl/changes/gone"], stats["structcrawl/changes/changed"]) == (1, 1)


def test_an_unfinished_run_commits_nothing(tmp_path):
    crawl(tmp_path, [page("a", "1.00")])
    changed, _ = crawl(tmp_path, [page("a", "2.00")], finish_reason="shutdown")
    assert statuses(changed) == {"a#product": "changed"}
    again, _ = crawl(tmp_path, [page("a", "2.00")])
    assert statuses(again) == {"a#product": "changed"}  # reported again: at least once


def test_a_failed_feed_commits_nothing(tmp_path):
    crawl(tmp_path, [page("a", "1.00")])
    crawl(tmp_path, [page("a", "2.00")], stats={"feedexport/failed_count/S3FeedStorage": 1})
    again, _ = crawl(tmp_path, [page("a", "2.00")])
    assert statuses(again) == {"a#product": "changed"}


def test_a_failing_run_withholds_gone(tmp_path):
    crawl(tmp_path, [page("a", "1.00"), page("b", "1.00")])
    items, stats = crawl(tmp_path, [page("a", "1.00")], stats={"log_count/ERROR": 2})
    assert statuses(items) == {"a#product": "unchanged"}
    assert stats["structcrawl/changes/withheld"] == 1
    later, _ = crawl(tmp_path, [page("a", "1.00")])
    assert statuses(later) == {"a#product": "unchanged", "b#product": "gone"}


def test_entities_of_a_failed_page_are_not_gone(tmp_path):
    crawl(tmp_path, [page("a", "1.00"), page("b", "1.00")])
    items, stats = crawl(tmp_path, [page("a", "1.00"), page("b", status=503)])
    assert statuses(items) == {"a#product": "unchanged"}
    assert stats["structcrawl/changes/deferred"] == 1


def test_a_run_without_entities_still_reports_gone(tmp_path):
    crawl(tmp_path, [page("a", "1.00")])
    items, _ = crawl(tmp_path, [page("a")])
    assert statuses(items) == {"a#product": "gone"}


def test_change_detection_can_be_switched_off(tmp_path):
    crawler = get_crawler(settings_dict={"STRUCTCRAWL_CHANGES_ENABLED": False})
    with pytest.raises(NotConfigured):
        ChangeDetector.from_crawler(crawler)
    items, _ = crawl(tmp_path, [page("a", "1.00")], STRUCTCRAWL_CHANGES_ENABLED=False)
    assert items["a#product"]["change"] is None
    assert not (tmp_path / "changes.sqlite").exists()


def test_scope():
    class Spider:
        name = "site"
        allowed_domains = ["shop.example", "cdn.example"]

    assert default_scope(Spider()) == "site:cdn.example,shop.example"
    assert default_scope(None) == "default"

    class Local:  # two local sites of one host: the port tells them apart
        name = "site"
        allowed_domains = ["127.0.0.1"]
        start_urls = ["http://127.0.0.1:8765/"]

    other = Local()
    other.start_urls = ["http://127.0.0.1:8766/"]
    assert default_scope(Local()) == "site:127.0.0.1@127.0.0.1:8765"
    assert default_scope(other) != default_scope(Local())
