"""End to end: the ``site`` spider crawls the demo site served on 127.0.0.1."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from structcrawl.dev.demo import run_crawl, summarize
from structcrawl.dev.devserver import BackgroundServer

SITE = Path(__file__).resolve().parents[1] / "fixtures" / "site"
pytestmark = pytest.mark.crawl


@pytest.fixture(scope="module")
def crawl(tmp_path_factory):
    out = tmp_path_factory.mktemp("crawl")
    with BackgroundServer(SITE) as server:
        # the demo's rules, passed as `make demo` passes them (no packaged rules know 127.0.0.1)
        rules = f"STRUCTCRAWL_RULES_DIR={SITE / 'rules'}"
        code = run_crawl(server.url, out, "-s", rules, timeout=240)
        base = server.url
    records = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
    pages = [json.loads(x) for x in (out / "pages.jsonl").read_text().splitlines()]
    entities = [json.loads(x) for x in (out / "entities.jsonl").read_text().splitlines()]
    return {
        "code": code,
        "out": out,
        "base": base,
        "records": records,
        "pages": pages,
        "entities": entities,
    }


def _path(url: str, base: str) -> str:
    return "/" + url[len(base) :]


def test_crawl_exits_zero(crawl):
    assert crawl["code"] == 0, (crawl["out"] / "crawl.log").read_text()[-3000:]


def test_every_page_of_the_site_is_accounted_for(crawl):
    fetched = {_path(p["final_url"], crawl["base"]) for p in crawl["pages"]}
    on_disk = {"/" + str(p.relative_to(SITE)) for p in SITE.rglob("*.html")} | {
        "/" + str(p.relative_to(SITE)) for p in SITE.rglob("*.pdf")
    }
    on_disk = {p[: -len("index.html")] if p.endswith("/index.html") else p for p in on_disk}
    missing = on_disk - fetched - {p + "index.html" for p in fetched if p.endswith("/")}
    assert not missing, f"pages never crawled: {sorted(missing)}"
    assert len(crawl["pages"]) >= 25
    # each page ends as records or as a record saying why there are none
    by_page = {r["provenance"]["fetch"]["final_url"] for r in crawl["records"]}
    assert {p["final_url"] for p in crawl["pages"]} <= by_page


def test_page_items_carry_fetch_facts(crawl):
    page = next(p for p in crawl["pages"] if p["final_url"] == crawl["base"])
    # the home page is among the first judged pages: the render audit renders it too
    fetched_with = "browser" if page["fetch_reason"] == "audit" else "http"
    assert page["status"] == 200 and page["fetched_with"] == fetched_with
    assert page["content_type"] == "text/html" and page["payload_kind"] == "html"
    assert page["retrieved_at"].endswith("Z") and page["body_size"] > 0
    assert page["body_ref"].startswith("sha256:")
    body_file = Path(page["body_uri"][len("file://") :])
    assert body_file.exists() and body_file.suffix == ".zst"


def test_all_layers_are_extracted(crawl):
    formats = {r["format"] for r in crawl["records"] if r["kind"] == "entity"}
    assert {"json-ld", "microdata", "rdfa", "opengraph", "twitter", "data-block", "json"} <= formats
    types = {t for r in crawl["records"] if r["format"] == "json-ld" for t in r["type"]}
    assert {"Product", "Organization", "Event", "Recipe"} <= types


def test_malformed_json_ld_is_repaired_with_a_label_or_kept_as_an_error(crawl):
    page = [r for r in crawl["records"] if r["source_url"].endswith("/articles/broken-jsonld.html")]
    jsonld = [r for r in page if r["format"] == "json-ld"]
    repaired = [r for r in jsonld if r["repairs"]]
    errors = [r for r in jsonld if r["kind"] == "error"]
    valid = [r for r in jsonld if r["kind"] == "entity" and not r["repairs"]]
    assert [r["type"] for r in repaired] == [["BlogPosting"]]
    assert repaired[0]["repairs"] == ["remove-trailing-commas", "escape-control-characters"]
    assert isinstance(repaired[0]["raw"], str) and '"publisher"' in repaired[0]["raw"]
    assert len(errors) == 1 and errors[0]["error"]["code"] == "json-ld-invalid"
    assert '"Gear ed' in errors[0]["raw"] and errors[0]["error"]["message"]
    assert [r["type"] for r in valid] == [["WebPage"]]
    assert any(r["format"] == "opengraph" for r in page)


def test_non_html_payloads_are_classified_not_parsed(crawl):
    summary = summarize(crawl["out"])
    assert summary["pages_by_payload"].get("pdf", 0) >= 1
    assert summary["pages_by_payload"].get("json", 0) >= 1
    pdf = [r for r in crawl["records"] if r["error"] and r["error"]["code"] == "payload-pdf"]
    assert pdf and all(r["kind"] == "skip" for r in pdf)


def test_one_entity_per_id_across_formats_and_pages(crawl):
    ids = [e["id"] for e in crawl["entities"] if e["id"]]
    assert len(ids) == len(set(ids)), "an @id appears on more than one entity line"
    keys = [e["key"] for e in crawl["entities"]]
    assert len(keys) == len(set(keys))
    (trail,) = [
        e
        for e in crawl["entities"]
        if e["id"] == "https://northwind.example/products/trail-runner-x#product"
    ]
    assert {"json-ld", "microdata", "rdfa"} <= set(trail["formats"])
    assert {s["format"] for s in trail["sources"]} >= {"json-ld", "microdata", "rdfa"}
    assert trail["properties"]["name"] == "Trail Runner X"
    assert trail["provenance"]["name"] and all(p["path"] for p in trail["provenance"]["name"])


def test_entities_csv_has_the_documented_columns(crawl):
    import csv

    from structcrawl.crawl.exporters import CSV_COLUMNS

    with (crawl["out"] / "entities.csv").open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == [name for name, _ in CSV_COLUMNS]
    assert len(rows) - 1 == len(crawl["entities"])
    by_key = {json.loads(r[-1])["key"]: r for r in rows[1:]}
    assert set(by_key) == {e["key"] for e in crawl["entities"]}


def test_each_page_is_parsed_once(crawl):
    """The download handler parses HTML to judge it; the spider reuses that tree."""
    log = (crawl["out"] / "crawl.log").read_text()
    reused = int(re.search(r"'structcrawl/site/parse_reused': (\d+)", log).group(1))
    parsed = re.search(r"'structcrawl/site/parsed': (\d+)", log)
    http_html = [
        p for p in crawl["pages"] if p["payload_kind"] == "html" and p["fetched_with"] == "http"
    ]
    assert reused == len(http_html)
    # only rendered pages (a new DOM) are parsed by the spider itself
    rendered = [p for p in crawl["pages"] if p["fetched_with"] == "browser"]
    assert (int(parsed.group(1)) if parsed else 0) == len(rendered)


def test_the_feeds_are_logged_in_one_line_with_the_lines_each_wrote(crawl):
    log = (crawl["out"] / "crawl.log").read_text()
    assert not re.search(r"Stored \S+ feed \(\d+ items\)", log)  # Scrapy's line per feed
    [line] = [x for x in log.splitlines() if "[structcrawl.crawl.feedlog]" in x]
    assert f"Stored 5 feeds in {crawl['out']}/: " in line
    for name, fmt in (("records.jsonl", "records"), ("pages.jsonl", "pages")):
        lines = (crawl["out"] / name).read_bytes().count(b"\n")
        assert f"{name} ({fmt}, {lines:,} lines)" in line
    assert f"entities.csv (entities-csv, {len(crawl['entities']):,} lines)" in line  # no header


def test_the_report_has_the_typed_items_of_the_crawl(crawl):
    report = json.loads((crawl["out"] / "report" / "report.json").read_text())
    items = [json.loads(x) for x in (crawl["out"] / "items.jsonl").read_text().splitlines()]
    assert report["items"]["total"] == len(items)
    products = [i for i in items if i["type"] == "Product"]
    assert report["items"]["by_type"]["Product"] == len(products)
    priced = sum(1 for i in products if i.get("price") is not None)
    assert report["items"]["fill"]["Product"]["price"] == round(priced / len(products), 4)
    page = (crawl["out"] / "report" / "report.html").read_text()
    assert 'id="items"' in page
    # conflicts are named by what the entity is called
    assert "<b title=\"id:https://northwind.example/products/trail-runner-x#product\">" \
        "Trail Runner X</b>" in page  # fmt: skip
