"""The quality report's typed-items section (items per type, fill rates of price, currency,
availability, authors and dates; invalid items and failed pages by name and URL), conflicts
named by their entities, and numbers written as a reader writes them."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from structcrawl.dev.devserver import BackgroundServer
from structcrawl.report import QualityAggregator, render_html
from structcrawl.report.items import LISTED


def _product(name: str, **fields: object) -> dict:
    return {"kind": "item", "type": "Product", "role": "primary", "name": name, **fields}


def _page(url: str, items: list[dict], **fields: object) -> dict:
    records = [{"kind": "entity", "format": "json-ld"}] if items else []
    return {"url": url, "final_url": url, "status": 200, "records": records, "typed_items": items, **fields}  # fmt: skip


def _aggregated() -> QualityAggregator:
    agg = QualityAggregator()
    agg.add_page(
        _page(
            "https://shop.example/boot",
            [
                _product("Trail boot", price="129.99", currency="EUR", availability="InStock"),
                {"kind": "item", "type": "BreadcrumbList", "breadcrumbs": [{"name": "Home"}]},
            ],
        )
    )
    agg.add_page(_page("https://shop.example/sock", [_product("Wool sock", price="1,99")]))
    agg.add_page(
        _page(
            "https://shop.example/journal/care",
            [
                {
                    "kind": "item",
                    "type": "Article",
                    "headline": "Boot care 101",
                    "authors": [{"name": "Ada"}],
                    "datePublished": "2026-01-02",
                }
            ],
        )
    )
    agg.add_page(
        {
            "url": "https://shop.example/gone",
            "final_url": "https://shop.example/gone",
            "status": 404,
            "fetch_error": {"code": "http-404", "message": "Not Found"},
            "visible": {"title": "Page not found"},
            "records": [{"kind": "error", "format": "page", "error": {"code": "http-404"}}],
        }
    )
    agg.add_entity(
        {
            "type": ["Product"],
            "key": "id:https://shop.example/boot#product",
            "properties": {"name": "Trail boot"},
            "validation": {"valid": True, "errors": [], "warnings": []},
            "conflicts": [{"field": "offers.price", "chosen": "129.99", "values": []}],
        }
    )
    return agg


def test_items_per_type_and_the_fill_rate_of_the_fields_readers_look_at():
    items = _aggregated().report({})["items"]
    assert items["total"] == 4 and items["pages_with_items"] == 3
    assert items["by_type"] == {"Product": 2, "BreadcrumbList": 1, "Article": 1}
    assert items["fill"]["Product"] == {"price": 1.0, "currency": 0.5, "availability": 0.5}
    assert items["fill"]["Article"] == {"authors": 1.0, "datePublished": 1.0, "dateModified": 0.0}
    assert "BreadcrumbList" not in items["fill"]  # none of the watched fields in its schema


def test_invalid_items_and_failed_pages_are_listed_by_name_and_url():
    items = _aggregated().report({})["items"]
    invalid = items["invalid"]
    assert invalid["total"] == 1 and invalid["by_type"] == {"Product": 1}
    [sock] = invalid["examples"]
    assert (sock["name"], sock["url"]) == ("Wool sock", "https://shop.example/sock")
    assert sock["errors"] and sock["errors"][0].startswith("$.price:")
    failed = items["failed_pages"]
    assert failed["total"] == 1 and failed["by_code"] == {"http-404": 1}
    assert failed["examples"] == [
        {
            "url": "https://shop.example/gone",
            "name": "Page not found",
            "status": 404,
            "code": "http-404",
            "message": "Not Found",
        }
    ]


def test_the_lists_are_bounded_and_the_counts_are_not():
    agg = QualityAggregator()
    for n in range(LISTED + 10):
        agg.add_page(_page(f"https://shop.example/{n}", [_product(f"P{n}", price="x")]))
    invalid = agg.report({})["items"]["invalid"]
    assert invalid["total"] == LISTED + 10 and len(invalid["examples"]) == LISTED


def test_the_page_shows_the_items_section_with_names_and_urls():
    page = render_html(_aggregated().report({}))
    assert '<a href="#items">' in page and 'id="items"' in page
    section = page.split('id="items"')[1].split("<h2")[0]
    assert "4 items on 3 pages." in section
    assert "<td>Wool sock</td>" in section and "https://shop.example/sock" in section
    assert "Page not found" in section and "https://shop.example/gone" in section
    assert "<title>price: 100.0%</title>" in section  # Product's fill rate, as a percentage
    assert "typed items<b>4, 1 invalid</b>" in page  # the card


def test_conflicts_are_shown_by_entity_name_with_the_key_beside_it():
    report = _aggregated().report({})
    assert report["conflicts"]["examples"][0]["name"] == "Trail boot"
    conflicts = render_html(report).split('id="conflicts"')[1]
    summary = re.search(r"<summary>(.*?)</summary>", conflicts).group(1)
    assert "Trail boot" in summary and "offers.price" in summary
    assert not summary.startswith("<code>id:")  # the key is on hover and in the body, not the title
    assert "<code>id:https://shop.example/boot#product</code>" in conflicts


def test_numbers_are_formatted_for_people():
    report = _aggregated().report({})
    report["pages"].update(latency_p50=0.0058213, latency_p95=1.23456, body_bytes=1234567)
    report["records_by_format"] = {"json-ld": 1234567}
    report["run"] = {
        "start_time": "2026-12-02 19:51:15.200320+00:00",
        "finish_time": "2026-12-02 19:53:20.482707+00:00",
        "elapsed_seconds": 125.28,
    }
    report["thresholds"] = [
        {"name": "max_conflict_rate", "value": 0.123456789, "limit": 0.1, "ok": False}
    ]
    page = render_html(report)
    assert "latency p50 / p95<b>0.006 s / 1.2 s</b>" in page
    assert "body bytes<b>1,234,567</b>" in page
    assert ">1,234,567</text>" in page and "e+06" not in page  # a bar's figure
    assert "<td>2026-12-02 19:51:15 UTC</td>" in page and ".200320" not in page
    assert "<td>2 min 5 s</td>" in page
    assert "<td>0.1235</td><td>0.1</td>" in page and "0.123456789" not in page


def test_the_terminal_summary_has_a_line_of_typed_items():
    from structcrawl.commandline.report import summary_lines

    lines = summary_lines(_aggregated().report({}))
    assert "typed items: 4 (Product 2, BreadcrumbList 1, Article 1), 1 invalid" in lines


@pytest.mark.crawl
@pytest.mark.timeout(180)
def test_a_missed_threshold_is_printed_with_its_value_and_limit(tmp_path):
    """``structcrawl crawl`` of the demo site's home page only: no Product there."""
    site = Path(__file__).resolve().parents[1] / "fixtures" / "site"
    thresholds = '{"min_entities:Product": 5, "min_entities:Organization": 1}'
    with BackgroundServer(site) as server:
        done = subprocess.run(
            [
                *[sys.executable, "-m", "structcrawl.commandline", "crawl", server.url + "/"],
                *["-o", str(tmp_path / "out"), "--depth", "0"],
                *["-s", "STRUCTCRAWL_RENDER_ENABLED=False", "-s"],
                f"STRUCTCRAWL_QUALITY_THRESHOLDS={thresholds}",
            ],
            capture_output=True,
            text=True,
            timeout=150,
        )
    assert done.returncode == 1, done.stderr[-2000:]
    said = done.stderr.splitlines()
    assert "thresholds missed: 1" in said and "  min_entities:Product: 0 (limit 5)" in said
    assert not any("min_entities:Organization" in line for line in said)  # met: not listed


def test_only_http_urls_become_links():
    agg = QualityAggregator()
    agg.add_page(_page("javascript:alert(1)", [_product("Odd", price="x")]))
    section = render_html(agg.report({})).split('id="items"')[1]
    assert "<code>javascript:alert(1)</code>" in section and 'href="javascript:' not in section


def test_the_run_section_says_whose_depth_limit_applies():
    report = _aggregated().report({})
    report["run"] = {"spider": {"name": "site", "depth": 1}, "settings": {"DEPTH_LIMIT": 0}}
    page = render_html(report)
    assert "<td>spider site depth</td><td>1</td>" in page
    assert "<code>0</code> (no limit of Scrapy's: the spider's own depth limit is 1)" in page
