"""The HTML report's structure: contents, collapsible per-type sections, sorted bars, error
codes with example pages, run metadata and the change since the previous run."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from scrapy.utils.test import get_crawler

from structcrawl.crawl.items import EntityItem, PageItem
from structcrawl.report import QualityAggregator, render_html
from structcrawl.report import html as html_module
from structcrawl.report.extension import QualityReport


def _error_page(n: int, code: str) -> dict:
    return {
        "url": f"https://a.example/{code}/{n}",
        "final_url": f"https://a.example/{code}/{n}",
        "records": [{"kind": "error", "format": "page", "error": {"code": code}}],
    }


def _aggregated() -> QualityAggregator:
    agg = QualityAggregator()
    for n in range(5):
        agg.add_page(_error_page(n, "http-404"))
    agg.add_page(_error_page(0, "fetch-TimeoutError"))
    for name, props in (("a", {"name": "A"}), ("b", {"name": "B", "sku": "1"})):
        agg.add_entity(
            {
                "type": ["Product"],
                "key": name,
                "properties": props,
                "validation": {"valid": True, "errors": [], "warnings": []},
                "conflicts": [],
            }
        )
    agg.add_entity(
        {
            "type": ["Event"],
            "key": "e",
            "properties": {"name": "E"},
            "validation": {"valid": False, "errors": [{"path": "startDate"}], "warnings": []},
            "conflicts": [],
        }
    )
    return agg


def test_error_codes_keep_three_example_pages_each():
    errors = _aggregated().report({})["errors"]
    assert errors["http-404"] == {
        "count": 5,
        "examples": [f"https://a.example/http-404/{n}" for n in range(3)],
    }
    assert errors["fetch-TimeoutError"]["count"] == 1


def test_the_page_has_contents_collapsible_types_and_sorted_bars():
    page = render_html(_aggregated().report({}))
    anchors = re.findall(r'<a href="#([a-z]+)">', page)
    assert anchors[:2] == ["run", "pages"] and "errors" in anchors and "completeness" in anchors
    for anchor in anchors:
        assert f'id="{anchor}"' in page
    assert page.count("<details><summary>Product (2 entities") == 1
    assert "<code>https://a.example/http-404/0</code>" in page
    labels = re.findall(
        r'text-anchor="end">([^<]+)</text>', page.split('id="errors"')[0].split('id="pages"')[1]
    )
    assert labels[:2] == ["error:http-404", "error:fetch-TimeoutError"]  # 5 before 1


def test_no_function_of_the_html_module_is_longer_than_80_lines():
    tree = ast.parse(Path(html_module.__file__).read_text())
    long = [
        f.name
        for f in ast.walk(tree)
        if isinstance(f, ast.FunctionDef) and f.end_lineno - f.lineno + 1 > 80
    ]
    assert not long


def _run(directory: Path, products: int) -> dict:
    crawler = get_crawler(
        settings_dict={
            "STRUCTCRAWL_REPORT_DIR": str(directory),
            "STRUCTCRAWL_REPORT_SNAPSHOT_INTERVAL": 0,
            "STRUCTCRAWL_QUALITY_THRESHOLDS": {"max_drop:Product": 0.3},
        }
    )
    report = QualityReport.from_crawler(crawler)
    report.item_scraped(
        PageItem(url="https://a.example/", final_url="https://a.example/", records=[])
    )
    for n in range(products):  # every product has a gtin when there are more than 3
        report.item_scraped(
            EntityItem(
                key=f"p{n}",
                type=["Product"],
                properties={"name": "x", **({"gtin": "1"} if n % 2 == 0 or products > 3 else {})},
                validation={"valid": True, "errors": [], "warnings": []},
            )
        )
    report.spider_closed(None, "finished")
    return json.loads((directory / "report.json").read_text())


def test_run_metadata_and_the_change_since_the_previous_run(tmp_path):
    first = _run(tmp_path, 4)
    assert first["run"]["versions"]["structcrawl"] and first["run"]["finish_reason"] == "finished"
    assert "USER_AGENT" in first["run"]["settings"]
    assert first["since_previous_run"] is None
    assert first["thresholds"] == [
        {"name": "max_drop:Product", "value": 0.0, "limit": 0.3, "ok": True}
    ]
    second = _run(tmp_path, 2)  # fewer products, gtin on half of them only
    change = second["since_previous_run"]
    assert change["entities"]["Product"] == {"now": 2, "before": 4, "delta": -2}
    assert change["completeness"]["Product.gtin"]["delta"] == -0.5
    assert [d["what"] for d in change["drops"]] == ["completeness Product.gtin"]
    assert second["thresholds"] == [
        {"name": "max_drop:Product", "value": 0.5, "limit": 0.3, "ok": False}
    ]
    page = (tmp_path / "report.html").read_text()
    assert "Drops since the previous run" in page and "completeness Product.gtin" in page
