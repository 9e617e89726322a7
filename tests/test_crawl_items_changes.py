"""End to end: two successive crawls of a small local site where a price changes between
them. The second run's ``items`` feed says ``changed`` with fields ``["price"]`` and the item's
``history`` holds both prices; the ``items-merged`` feed has one item for a product seen on two
pages (JSON-LD on one, Microdata on the other) with both sources and the price conflict; a
meta-tag price the page does not show is flagged.

The site is served by the validator server of :mod:`tests.test_crawl_incremental` (on
127.0.0.1, stopped by PID).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.test_crawl_incremental import LONG_AGO, ValidatorServer

pytestmark = pytest.mark.crawl

GTIN = "4006381333931"


def kettle(price: str) -> str:
    data = {
        "@context": "https://schema.org",
        "@type": "Product",
        "name": "Kettle",
        "sku": "K-1",
        "offers": {
            "@type": "Offer",
            "price": price,
            "priceCurrency": "EUR",
            "availability": "https://schema.org/InStock",
        },
    }
    return (
        f'<!doctype html><html lang="en"><head><title>Kettle</title><script type="application/'
        f'ld+json">{json.dumps(data)}</script></head><body><h1>Kettle</h1></body></html>'
    )


MUG_JSONLD = (
    '<!doctype html><html><head><title>Mug</title><script type="application/ld+json">'
    '{"@context": "https://schema.org", "@type": "Product", "name": "Mug", "gtin13": "GTIN",'
    ' "offers": {"@type": "Offer", "price": "12.00", "priceCurrency": "EUR"}}</script></head>'
    "<body><h1>Mug</h1></body></html>"
).replace("GTIN", GTIN)
MUG_MICRODATA = (
    '<!doctype html><html><head><title>Mug</title></head><body><div itemscope itemtype="https://'
    'schema.org/Product"><h1 itemprop="name">Mug</h1><meta itemprop="gtin13" content="GTIN">'
    '<div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><span itemprop="price"'
    ' content="13.50">13,50 EUR</span><meta itemprop="priceCurrency" content="EUR"></div></div>'
    "</body></html>"
).replace("GTIN", GTIN)
LAMP = (
    '<!doctype html><html><head><title>Desk Lamp</title><meta property="og:type" content="product">'
    '<meta property="product:price:amount" content="19.99"><meta property="product:price:currency"'
    ' content="EUR"></head><body><h1>Desk Lamp</h1><p class="price">24,99 &euro;</p>'
    "<button>Add to cart</button></body></html>"
)
INDEX = (
    "<!doctype html><html><head><title>Shop</title></head><body>"
    + " ".join(f'<a href="/p/{n}.html">{n}</a>' for n in ("kettle", "mug-a", "mug-b", "lamp"))
    + "</body></html>"
)


def write_site(root: Path, kettle_price: str) -> None:
    (root / "p").mkdir(parents=True, exist_ok=True)
    (root / "index.html").write_text(INDEX)
    (root / "p" / "kettle.html").write_text(kettle(kettle_price))
    (root / "p" / "mug-a.html").write_text(MUG_JSONLD)
    (root / "p" / "mug-b.html").write_text(MUG_MICRODATA)
    (root / "p" / "lamp.html").write_text(LAMP)
    for path in root.rglob("*.html"):
        os.utime(path, (LONG_AGO, LONG_AGO))


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def _crawl(url: str, out: Path) -> dict[str, Any]:
    from structcrawl.dev.demo import run_crawl

    code = run_crawl(
        url,
        out,
        "-s",
        "STRUCTCRAWL_RENDER_ENABLED=False",
        "-O",
        f"{out / 'merged.jsonl'}:items-merged",
        timeout=120,
    )
    items = _lines(out / "items.jsonl")
    return {
        "code": code,
        "log": (out / "crawl.log").read_text()[-3000:],
        "items": {i["page_url"].rsplit("/", 1)[-1]: i for i in items if i.get("role") == "primary"},
        "merged": _lines(out / "merged.jsonl"),
        "report": json.loads((out / "report" / "report.json").read_text()),
    }


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("items-changes")
    site, out = tmp / "site", tmp / "out"
    write_site(site, "39.00")
    with ValidatorServer(site, tmp / "requests.log") as url:
        first = _crawl(url, out)
        write_site(site, "34.90")  # between the runs: the kettle's price changes
        second = _crawl(url, out)
    return {"first": first, "second": second}


def test_both_runs_exit_zero(runs):
    for name in ("first", "second"):
        assert runs[name]["code"] == 0, runs[name]["log"]


def test_first_run_every_item_is_new_with_one_observation(runs):
    items = runs["first"]["items"]
    assert set(items) == {"kettle.html", "mug-a.html", "mug-b.html", "lamp.html"}
    assert {i["change"]["status"] for i in items.values()} == {"new"}
    assert [h["price"] for h in items["kettle.html"]["history"]] == ["39.00"]


def test_second_run_says_which_field_changed_and_keeps_both_prices(runs):
    items = runs["second"]["items"]
    kettle_item = items["kettle.html"]
    assert kettle_item["price"] == "34.90"
    assert kettle_item["change"] == {"status": "changed", "fields": ["price"]}
    history = kettle_item["history"]
    assert [(h["price"], h["currency"], h["availability"]) for h in history] == [
        ("39.00", "EUR", "InStock"),
        ("34.90", "EUR", "InStock"),
    ]
    assert all(h["seen"] for h in history)
    assert items["lamp.html"]["change"]["status"] == "unchanged"
    # one GTIN on two pages at two prices: each page's item is its own series (no flip-flop)
    assert [items[p]["change"]["status"] for p in ("mug-a.html", "mug-b.html")] == [
        "unchanged",
        "unchanged",
    ]
    assert [h["price"] for h in items["lamp.html"]["history"]] == ["19.99", "19.99"]


def test_a_meta_price_the_page_does_not_show_is_flagged(runs):
    lamp = runs["second"]["items"]["lamp.html"]
    assert lamp["price"] == "19.99" and lamp["provenance"]["price"]["fallback"]
    assert [f["code"] for f in lamp["validation"]["flags"]] == ["fallback-not-visible"]


def test_the_same_product_on_two_pages_is_one_merged_item_with_the_conflict(runs):
    mugs = [m for m in runs["second"]["merged"] if m.get("name") == "Mug"]
    assert len(mugs) == 1, runs["second"]["merged"]
    (mug,) = mugs
    assert {s["url"].rsplit("/", 1)[-1] for s in mug["sources"]} == {"mug-a.html", "mug-b.html"}
    assert {s["layer"] for s in mug["sources"]} == {"json-ld", "microdata"}
    assert mug["price"] == "12.00" and mug["gtin"][0]["value"] == GTIN
    assert [c["value"] for c in mug["conflicts"]["price"]] == ["13.50"]
    assert mug["change"]["status"] == "unchanged"
