from __future__ import annotations

import json

import pytest

from structcrawl.dev.demo import run_crawl
from structcrawl.dev.devserver import BackgroundServer
from structcrawl.report import QualityAggregator, check_thresholds, page_outcome, render_html


def page(records, **kw):
    return {"records": records, "content_type": "text/html", "body_size": 100, "latency": 0.1, **kw}


ENTITY = {"kind": "entity", "format": "json-ld"}


def test_page_outcomes():
    assert page_outcome(page([ENTITY])) == "records"
    assert (
        page_outcome(page([{"kind": "skip", "format": "page", "error": {"code": "no-records"}}]))
        == "no-records"
    )
    assert (
        page_outcome(page([{"kind": "error", "format": "page", "error": {"code": "http-404"}}]))
        == "error:http-404"
    )
    assert (
        page_outcome(page([{"kind": "skip", "format": "page", "error": {"code": "payload-pdf"}}]))
        == "skip:payload-pdf"
    )


def aggregated():
    agg = QualityAggregator()
    for i in range(10):
        agg.add_page(page([ENTITY], latency=i / 10))
    agg.add_page(
        page([{"kind": "error", "format": "page", "error": {"code": "http-500"}}], latency=None)
    )
    agg.add_entity(
        {
            "type": ["Product"],
            "key": "a",
            "properties": {"name": "A", "offers": {"@type": ["Offer"], "price": "1"}},
            "validation": {"valid": True, "errors": [], "warnings": [{"path": "sku"}]},
            "conflicts": [],
        }
    )
    agg.add_entity(
        {
            "type": ["Product"],
            "key": "b",
            "properties": {"name": "B"},
            "validation": {"valid": False, "errors": [{"path": "offers"}], "warnings": []},
            "conflicts": [{"field": "name", "values": []}],
        }
    )
    return agg


def test_report_figures():
    report = aggregated().report({"downloader/response_bytes": 1234})
    assert report["pages"]["total"] == 11
    assert report["pages"]["by_outcome"] == {"records": 10, "error:http-500": 1}
    assert report["pages"]["latency_p50"] == pytest.approx(0.45)
    assert report["pages"]["latency_p95"] == pytest.approx(0.855)
    assert report["completeness"]["Product"] == {"name": 1.0, "offers": 0.5, "offers.price": 0.5}
    assert report["validation"]["by_type"]["Product"] == {
        "entities": 2,
        "error_rate": 0.5,
        "warning_rate": 0.5,
    }
    assert report["entities"]["with_conflicts"] == 1
    assert report["conflicts"]["by_field"] == {"Product.name": 1}


def test_thresholds():
    report = aggregated().report({})
    results = check_thresholds(
        report,
        {
            "completeness:Product.name": 0.9,
            "completeness:Product.offers.price": 0.9,
            "max_error_rate:Product": 0.2,
            "min_entities:Event": 1,
            "max_page_error_rate": 0.1,
            "max_conflict_rate": 0.5,
        },
    )
    assert {r["name"]: r["ok"] for r in results} == {
        "completeness:Product.name": True,
        "completeness:Product.offers.price": False,
        "max_error_rate:Product": False,
        "min_entities:Event": False,
        "max_page_error_rate": True,
        "max_conflict_rate": True,
    }
    with pytest.raises(ValueError):
        check_thresholds(report, {"nonsense:x": 1})


def test_html_is_self_contained_with_charts():
    report = aggregated().report({})
    report["thresholds"] = check_thresholds(report, {"completeness:Product.offers.price": 0.9})
    page_html = render_html(report)
    assert page_html.count("<svg") >= 5
    assert "MISSED" in page_html
    assert "<script" not in page_html and "http://" not in page_html and "https://" not in page_html


@pytest.mark.crawl
def test_thresholds_change_the_exit_code(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(
        '<html><head><script type="application/ld+json">{"@type": "Product", "name": "P"}</script>'
        "</head><body></body></html>"
    )
    with BackgroundServer(site) as server:
        met = run_crawl(
            server.url,
            tmp_path / "met",
            "-s",
            'STRUCTCRAWL_QUALITY_THRESHOLDS={"completeness:Product.name": 1.0}',
            timeout=120,
        )
        missed = run_crawl(
            server.url,
            tmp_path / "missed",
            "-s",
            'STRUCTCRAWL_QUALITY_THRESHOLDS={"completeness:Product.sku": 0.5}',
            timeout=120,
        )
    assert met == 0
    assert missed == 1
    report = json.loads((tmp_path / "missed" / "report" / "report.json").read_text())
    assert report["thresholds"] == [
        {"name": "completeness:Product.sku", "value": 0.0, "limit": 0.5, "ok": False}
    ]
    assert (tmp_path / "missed" / "report" / "report.html").exists()
