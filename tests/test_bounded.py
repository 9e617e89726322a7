"""Bounded by construction (structcrawl.core.bounded): pages choosing many distinct names
(20,000 properties each, their own type names) leave the crawl's stats, report and memory
bounded, and each page says what was cut (a ``page-budget`` error record)."""

from __future__ import annotations

import json

import pytest

from structcrawl.dev.demo import run_crawl
from structcrawl.entities import store as entity_store
from structcrawl.entities.store import SqliteEntityStore
from tests.faultserver import FaultServer


def _big_state(key: str, fields: int) -> dict:
    return {"key": key, "fields": {f"{key}-f{i}": [{"value": "v" * 40}] for i in range(fields)}}


def test_the_entity_store_cache_is_bounded_by_bytes_not_only_by_count(tmp_path, monkeypatch):
    # states of a page with thousands of names are megabytes each: far fewer than
    # CACHE_STATES of them must already be forgotten (written, then read back when needed)
    monkeypatch.setattr(entity_store, "CACHE_BYTES", 1_000_000)
    store = SqliteEntityStore(tmp_path / "e.sqlite")
    written = {}
    for n in range(40):
        key = f"k{n}"
        state = store.load([key]).get(key) or _big_state(key, 1000)
        written[key] = state
        store.save({key: state}, [(key, "http://a.example/", "json-ld", "", None)])
        states, size = store.cached()
        assert size <= 1_000_000 + len(json.dumps(state)), (n, size)
        assert states < entity_store.CACHE_STATES
    assert store.cached()[1] < 1_000_000 + 100_000
    # nothing forgotten is lost: every state comes back, whole, in the order of its change
    assert len(store) == 40
    assert [s["key"] for s in store.states()] == list(written)
    assert store.load(["k3"])["k3"] == written["k3"]
    # a state handed out is the caller's: changing it changes nothing until it is saved
    mine = store.load(["k39"])["k39"]
    mine["fields"].clear()
    assert store.load(["k39"])["k39"]["fields"]
    store.close()


@pytest.mark.crawl
@pytest.mark.timeout(600)
def test_sixty_pages_of_twenty_thousand_property_names(tmp_path):
    with FaultServer() as site:
        urls = [f"{site.url}/props/{n}?n=20000" for n in range(60)]
        code = run_crawl(
            None,
            tmp_path,
            "-a",
            "start_urls=" + ",".join(urls),
            "-a",
            "depth=0",
            "-s",
            "STRUCTCRAWL_RENDER_ENABLED=False",
            "-s",
            "CONCURRENT_REQUESTS=4",
            timeout=540,
        )
    log = (tmp_path / "crawl.log").read_text()
    assert code == 0, log[-3000:]
    report = (tmp_path / "report" / "report.json").read_bytes()
    stats = json.loads(report)["stats"]
    assert len(stats) < 2_000, len(stats)  # 1.2 million keys before the caps
    assert len(report) < 5_000_000, len(report)  # 207 MB before
    assert len(log) < 5_000_000, len(log)  # 118 MB before
    # 2.9 GB before the caps, 368-385 MB with them; 281-286 MB since the entity store's cache
    # is bounded by bytes and change detection batches entities by size (bench.bench_names,
    # docs/security.md). Asserted loosely: memory on a shared machine varies; the bounds
    # themselves are asserted exactly (test_the_entity_store_cache_is_bounded_by_bytes...)
    assert stats["memusage/max"] < 1024 * 1024 * 1024, stats["memusage/max"]
    pages = [json.loads(x) for x in (tmp_path / "pages.jsonl").read_text().splitlines()]
    assert len(pages) == 60
    records = [json.loads(x) for x in (tmp_path / "records.jsonl").read_text().splitlines()]
    cut = [r for r in records if (r.get("error") or {}).get("code") == "page-budget"]
    assert len(cut) == 60  # one per page, saying what was cut
    assert "propert(ies) over 1000 per record" in cut[0]["error"]["message"]
    entities = [r for r in records if r["kind"] == "entity"]
    assert entities and max(len(r["properties"]) for r in entities) <= 1000
