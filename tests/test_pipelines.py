from __future__ import annotations

import asyncio
import io
import json

import pytest
from scrapy.exceptions import NotConfigured
from scrapy.utils.test import get_crawler

from structcrawl.crawl.exporters import PagesJsonLinesExporter, RecordsJsonLinesExporter
from structcrawl.crawl.items import PageItem
from structcrawl.crawl.pipelines import BodyStorePipeline, ExtractionPipeline

HTML = (
    b'<html><head><script type="application/ld+json">{"@type": "Thing", "name": "A"}</script>'
    b'<script type="application/ld+json">{"broken": </script></head><body></body></html>'
)


def crawler(**settings):
    return get_crawler(settings_dict=settings)


def page(**kw):
    base = dict(
        url="https://x.example/",
        final_url="https://x.example/",
        status=200,
        content_type="text/html",
        body=HTML,
        retrieved_at="2026-01-01T00:00:00.000Z",
    )
    base.update(kw)
    return PageItem(**base)


def test_disabled_pipelines_raise_not_configured():
    with pytest.raises(NotConfigured):
        ExtractionPipeline.from_crawler(crawler(STRUCTCRAWL_EXTRACT_ENABLED=False))
    with pytest.raises(NotConfigured):
        BodyStorePipeline.from_crawler(crawler(STRUCTCRAWL_BODY_STORE_ENABLED=False))


def test_extraction_attaches_records_with_fetch_provenance_and_stats(tmp_path):
    c = crawler(STRUCTCRAWL_BODY_STORE=str(tmp_path))
    item = asyncio.run(BodyStorePipeline.from_crawler(c).process_item(page()))
    item = ExtractionPipeline.from_crawler(c).process_item(item)
    assert item.body_ref.startswith("sha256:") and item.payload_kind == "html"
    kinds = [(r["kind"], r["format"]) for r in item.records]
    assert kinds == [("entity", "json-ld"), ("error", "json-ld")]
    fetch = item.records[0]["provenance"]["fetch"]
    assert fetch["body_ref"] == item.body_ref and fetch["fetched_with"] == "http"
    stats = c.stats.get_stats()
    assert stats["structcrawl/extract/entity/json-ld"] == 1
    assert stats["structcrawl/extract/error_code/json-ld-invalid"] == 1
    assert stats["structcrawl/bodystore/stored"] == 1


def test_syntaxes_setting_limits_layers():
    c = crawler(STRUCTCRAWL_SYNTAXES="microdata")
    item = ExtractionPipeline.from_crawler(c).process_item(page())
    assert [(r["kind"], r["error"]["code"]) for r in item.records] == [("skip", "no-records")]


def test_fetch_failures_and_http_errors_end_as_error_records():
    pipe = ExtractionPipeline.from_crawler(crawler())
    failed = pipe.process_item(
        page(
            status=None,
            body=b"",
            fetch_error={"code": "fetch-TimeoutError", "message": "took too long"},
        )
    )
    assert [(r["kind"], r["error"]["code"]) for r in failed.records] == [
        ("error", "fetch-TimeoutError")
    ]
    missing = pipe.process_item(page(status=404))
    assert [(r["kind"], r["error"]["code"]) for r in missing.records] == [("error", "http-404")]


def test_exporters_write_one_line_per_record_and_per_page():
    item = ExtractionPipeline.from_crawler(crawler()).process_item(page())
    rec_buf, page_buf = io.BytesIO(), io.BytesIO()
    for exporter_cls, buf in (
        (RecordsJsonLinesExporter, rec_buf),
        (PagesJsonLinesExporter, page_buf),
    ):
        exporter = exporter_cls(buf)
        exporter.start_exporting()
        exporter.export_item(item)
        exporter.finish_exporting()
    lines = [json.loads(x) for x in rec_buf.getvalue().splitlines()]
    assert [r["format"] for r in lines] == ["json-ld", "json-ld"]
    (row,) = [json.loads(x) for x in page_buf.getvalue().splitlines()]
    assert "body" not in row and "document" not in row and "records" not in row
    assert row["record_count"] == 1
    assert row["outcomes"] == ["entity:json-ld", "error:json-ld:json-ld-invalid"]
