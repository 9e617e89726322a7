"""Invalid entities can go to a feed of their own (STRUCTCRAWL_INVALID_FEED)."""

from __future__ import annotations

import json

import pytest

from structcrawl.crawl.feeds import InvalidEntities, ValidEntities
from structcrawl.crawl.items import EntityItem, PageItem
from structcrawl.dev.demo import run_crawl
from structcrawl.dev.devserver import BackgroundServer

PAGE = (
    '<html><head><script type="application/ld+json">[{"@context": "https://schema.org",'
    ' "@type": "Product", "@id": "#ok", "name": "Ok", "offers": {"@type": "Offer",'
    ' "price": "1.00", "priceCurrency": "EUR"}}, {"@context": "https://schema.org",'
    ' "@type": "Product", "@id": "#bad"}]</script></head><body></body></html>'
)


def test_filters():
    valid = EntityItem(key="a", validation={"valid": True})
    invalid = EntityItem(key="b", validation={"valid": False})
    page = PageItem(url="u", final_url="u")
    assert ValidEntities().accepts(valid) and not ValidEntities().accepts(invalid)
    assert InvalidEntities().accepts(invalid) and not InvalidEntities().accepts(valid)
    assert ValidEntities().accepts(page) and InvalidEntities().accepts(page)


@pytest.mark.crawl
def test_invalid_entities_are_routed_to_their_own_feed(tmp_path):
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text(PAGE)
    invalid = tmp_path / "invalid.jsonl"
    with BackgroundServer(tmp_path / "site") as server:
        code = run_crawl(
            server.url, tmp_path / "out", "-s", f"STRUCTCRAWL_INVALID_FEED={invalid}", timeout=120
        )
    assert code == 0
    main = [json.loads(x) for x in (tmp_path / "out" / "entities.jsonl").read_text().splitlines()]
    bad = [json.loads(x) for x in invalid.read_text().splitlines()]
    assert [e["id"][-3:] for e in main] == ["#ok"]
    assert [e["id"][-4:] for e in bad] == ["#bad"]
    assert bad[0]["validation"]["valid"] is False and bad[0]["validation"]["errors"]
