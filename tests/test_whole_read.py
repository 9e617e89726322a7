"""A page read whole by a page worker before the crawl parses it (:mod:`structcrawl.pageread.whole`):
the records, the page items, the typed items and the entities are those of the page parsed in
process, and the crawl never parses the page for them; a reader the worker did not answer
parses it, counted; a worker that fails or answers nonsense leaves the page to the crawl."""

from __future__ import annotations

import asyncio
import json
import math
from pathlib import Path
from typing import Any

import pytest
from itemadapter import ItemAdapter
from scrapy.utils.test import get_crawler

from structcrawl.articles.body import BODY_ELEMENTS_MEMO, PAGE_TEXT_MEMO
from structcrawl.articles.meta import META_MEMO
from structcrawl.articles.shown import SHOWN_MEMO
from structcrawl.core.document import LazyDocument, parse_html
from structcrawl.crawl.items import PageItem
from structcrawl.crawl.pageworkers import PageWorkConfig, PageWorkers, WholeReads
from structcrawl.crawl.pipelines.entities import EntityPipeline
from structcrawl.crawl.pipelines.extraction import ExtractionPipeline
from structcrawl.crawl.pipelines.normalization import NormalizationPipeline
from structcrawl.crawl.pipelines.pagework import PageWorkPipeline
from structcrawl.crawl.pipelines.selectors import SelectorPipeline
from structcrawl.crawl.pipelines.typeditems import TypedItemsPipeline
from structcrawl.crawl.pipelines.validation import ValidationPipeline
from structcrawl.extract.config import ExtractConfig
from structcrawl.extract.pagerecords import page_extraction
from structcrawl.pageread.whole import Reading, read_whole, reading_document
from structcrawl.render.pagereads import reader_of
from structcrawl.typed.classes import item_dict
from structcrawl.visible.evidence import page_evidence
from structcrawl.visible.grid import grid_products
from structcrawl.visible.heading import heading_element
from structcrawl.visible.stock import visible_availability
from tests._conformance import suite_dir
from tests.servers import real_pages_corpus

ROOT = Path(__file__).resolve().parents[1]
ITEMS = ROOT / "fixtures" / "items"
SETTINGS = {
    "STRUCTCRAWL_TYPED_ITEMS": True,
    "STRUCTCRAWL_CHANGES_ENABLED": False,
    "STRUCTCRAWL_ENTITY_STORE": "",
}


def _same(a: Any, b: Any) -> bool:
    """Equal, and of the same types all the way down (JSON turns a tuple into a list)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


def _spec(crawler: Any = None) -> dict[str, Any]:
    settings = (crawler or get_crawler(settings_dict=SETTINGS)).settings
    return Reading.spec(ExtractConfig.from_settings(settings), True, True)


def _answer(body: bytes, url: str, spec: dict[str, Any]) -> dict[str, Any]:
    """The worker's answer as the crawl receives it (through JSON)."""
    said = read_whole(body, url, "text/html", [], spec)
    return json.loads(json.dumps(said))  # type: ignore[no-any-return]


def _pages() -> list[Path]:
    found = sorted(ITEMS.glob("*/page.html"))
    for suite in ("extruct-samples", "jsonld-html", "microformats", "rdfa-html5"):
        found += sorted(suite_dir(suite).rglob("*.html"))[:60]
    return found


@pytest.mark.timeout(300)
def test_a_worker_extracts_the_records_the_crawl_extracts():
    """Every layer's records, through JSON, exactly: the same keys in the same order, the same
    types (no tuple turned into a list), on the item fixtures and the conformance suites."""
    spec = _spec()
    config = ExtractConfig.from_settings(get_crawler(settings_dict=SETTINGS).settings)
    pages = _pages()
    assert len(pages) > 150
    for path in pages:
        body, url = path.read_bytes(), f"https://shop.example/{path.parent.name}/{path.name}"
        doc = parse_html(body, url, content_type="text/html")
        kind, records = page_extraction(body, url, "text/html", config, document=doc)
        said = _answer(body, url, spec)
        if said["verdict"][0]:
            continue  # judged to need a browser: the rendered page is extracted
        assert said["payload_kind"] == kind
        assert _same(said["records"], [r.to_dict() for r in records]), path


def _case(case: Path) -> tuple[bytes, str]:
    meta = json.loads((case / "items.json").read_text(encoding="utf-8"))
    return (case / "page.html").read_bytes(), meta["url"]


def _item(body: bytes, url: str, document: Any) -> PageItem:
    return PageItem(
        url=url, final_url=url, status=200, retrieved_at="2026-03-01T10:00:00Z",
        content_type="text/html", body=body, records=[], document=document,
    )  # fmt: skip


def _through(crawler: Any, page: PageItem) -> tuple[list[Any], list[Any], list[Any]]:
    """(records, typed items, entity lines) of ``page`` through the crawl's pipelines."""
    entities = EntityPipeline.from_crawler(crawler)
    stages = [
        ExtractionPipeline.from_crawler(crawler),
        SelectorPipeline.from_crawler(crawler),
        NormalizationPipeline.from_crawler(crawler),
        ValidationPipeline.from_crawler(crawler),
        entities,
        TypedItemsPipeline.from_crawler(crawler),
    ]
    for stage in stages:
        page = stage.process_item(page)
    records = [{**r, "provenance": {**r["provenance"], "fetch": None}} for r in page.records]
    items = [item_dict(i) for i in ItemAdapter(page).get("typed_items") or []]
    lines = [ItemAdapter(e).asdict() for e in entities.emit(None)]
    entities.close_spider()
    return records, items, lines


CASES = sorted(p.parent for p in ITEMS.glob("*/page.html"))
#: pages whose items read what the worker does not read for every page, so the crawl parses
#: them: the whole visible text (a fallback value checked against the page, ~5 ms a large
#: page to read), the old prices of a product only a data block describes (the evidence of a
#: page whose article no layer made, its meta tags' alone, is read by the worker)
PARSED = {
    "marketplace-aggregateoffer-en": "a fallback SKU checked against the visible text",
    "nextjs-next-data-only-en": "a product only a data block describes: its old prices",
    "og-product-tags-only-en": "a fallback SKU checked against the visible text",
    "shopify-product-json-cents-sv": "a fallback price checked against the visible text",
}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_a_page_read_whole_gives_the_same_items_without_a_parse(case):
    body, url = _case(case)
    here = get_crawler(settings_dict=SETTINGS)
    expected = _through(here, _item(body, url, parse_html(body, url, content_type="text/html")))
    crawler = get_crawler(settings_dict=SETTINGS)
    reading = Reading.from_answer(_answer(body, url, _spec(crawler)))
    parses: list[str] = []
    doc = reading_document(reading, url, body, "text/html", on_parse=lambda: parses.append(url))
    assert _through(crawler, _item(body, url, doc)) == expected
    assert crawler.stats.get_value("structcrawl/extract/read_by_worker") == 1
    # nothing of the page was parsed in the crawl, but where a reader asked for more
    assert doc.parsed is (case.name in PARSED) and len(parses) == doc.parsed


def test_a_reader_the_worker_did_not_answer_parses_the_page_once():
    body, url = _case(ITEMS / "own-stale-instock-sold-out-en")
    reading = Reading.from_answer(_answer(body, url, _spec()))
    parses: list[str] = []
    doc = reading_document(reading, url, body, "text/html", on_parse=lambda: parses.append(url))
    element = heading_element(doc)  # an element: the worker said its text, not the element
    assert doc.parsed and parses == [url]
    assert element is not None and element.tag == "h1"
    assert doc.index().size == parse_html(body, url, content_type="text/html").index().size
    heading_element(doc), doc.root  # parsed once
    assert parses == [url]


def test_a_grid_the_worker_did_not_read_is_read_in_the_crawl():
    """The worker reads no grid of cards for records that make a product; where the crawl's
    final records make none after all, the grid's products are read on the crawl's own parse
    of the page, the same as a page read only here."""
    body, url = _case(ITEMS / "listing-itemlist-urls-en")
    said = _answer(body, url, _spec())
    assert said["visible"]["grid"]  # records that make no product: the worker read the grid
    said["visible"]["grid"] = None  # as if read for records that made one
    doc = reading_document(Reading.from_answer(said), url, body, "text/html")
    here = parse_html(body, url, content_type="text/html")
    ev, expected = page_evidence(doc), page_evidence(here)
    found = grid_products(doc, ev.cards, own_price=ev.price is not None)
    assert doc.parsed and len(found) == 5
    assert found == grid_products(here, expected.cards, own_price=expected.price is not None)
    assert grid_products(doc, ev.cards, own_price=ev.price is not None) == found  # kept


def test_a_product_of_the_visible_page_reads_no_articles_shown_values():
    """An article's completion reads the page's shown byline, dates and headline (~2.7 ms a
    large page); a page whose primary item is a product its visible page makes never asks
    for them, and the worker leaves them unread (its items are the same without a parse:
    above). A page the visible page makes no product of (a listing) has them read."""
    body, url = _case(ITEMS / "own-pl-visible-only")
    said = _answer(body, url, _spec())
    assert said["product"] is False and said["visible"]["evidence"]["price"]
    assert list(said["articles"]) == [META_MEMO]
    body, url = _case(ITEMS / "listing-itemlist-urls-en")
    said = _answer(body, url, _spec())
    assert "visible" in said and list(said["articles"]) == [META_MEMO, SHOWN_MEMO]


@pytest.mark.parametrize("case", ["nationalgeographic.co.uk.goats", "chip.de.beef"])
def test_an_articles_markup_body_is_checked_without_a_parse(case):
    """Checking an article's markup ``articleBody`` reads the page's shown text (a JSON-LD
    body) and the element a Microdata or RDFa body names: the worker reads both with the
    page, and the crawl's items and entities are the same without a parse of its own."""
    meta = json.loads((ROOT / "fixtures" / "articles" / case / "article.json").read_text())
    body, url = (real_pages_corpus() / meta["page"]).read_bytes(), meta["url"]
    here = get_crawler(settings_dict=SETTINGS)
    expected = _through(here, _item(body, url, parse_html(body, url, content_type="text/html")))
    crawler = get_crawler(settings_dict=SETTINGS)
    said = _answer(body, url, _spec(crawler))
    assert PAGE_TEXT_MEMO in said["memo"]
    assert (BODY_ELEMENTS_MEMO in said["memo"]) is (case == "chip.de.beef")  # Microdata's
    doc = reading_document(Reading.from_answer(said), url, body, "text/html")
    assert _through(crawler, _item(body, url, doc)) == expected
    assert not doc.parsed
    assert expected[1][0]["articleBody"]


def test_a_page_judged_to_need_a_browser_is_read_no_further():
    shell = b"<html><body><div id='root'></div><script src='/app.js'></script></body></html>"
    said = _answer(shell, "https://app.example/", _spec())
    reading = Reading.from_answer(said)
    assert reading.verdict.js_only and reading.verdict.reason
    assert "records" not in said and "visible" not in said


@pytest.mark.parametrize("reading_whole", [False, True])
def test_a_page_the_worker_read_for_other_records_reads_the_rest(reading_whole):
    """The worker read the page's visible page for records without a product; the crawl's
    final records have one. The page work pipeline asks the rest (stock, prices) of a worker,
    which parses the page again, the crawl not; but where the pages are read whole (the
    workers are the busier side), the rest is read in process when asked for."""
    body, url = _case(ITEMS / "own-stale-instock-sold-out-en")
    crawler = get_crawler(settings_dict=SETTINGS)
    said = _answer(body, url, _spec(crawler))
    assert said["product"] is True
    said["visible"] = read_whole(body, url, "text/html", [], {"visible": True})["visible"]
    said["product"] = False  # as if read for records without a product
    doc = reading_document(Reading.from_answer(said), url, body, "text/html")
    page = _item(body, url, doc)
    page = ExtractionPipeline.from_crawler(crawler).process_item(page)
    pipeline = PageWorkPipeline.from_crawler(crawler)
    pipeline.workers.reading_whole = reading_whole

    async def crawl() -> None:
        await pipeline.process_item(page)
        pipeline.workers.engine_stopped()

    asyncio.run(crawl())
    assert not doc.parsed
    if not reading_whole:
        assert crawler.stats.get_value("structcrawl/workers/pages") == 1
        assert "visible-availability" in doc.memo
        return
    assert crawler.stats.get_value("structcrawl/workers/busy") == 1
    assert "visible-availability" not in doc.memo
    assert visible_availability(doc).sold_out and doc.parsed  # read here when asked for


class _Workers:
    """Page workers that answer ``answer`` (None: failed)."""

    given_up = False

    def __init__(self, crawler: Any, answer: Any):
        self.config = PageWorkConfig.from_crawler(crawler)
        self.answer = answer

    def busy(self) -> bool:
        return False

    async def ask(self, *args: Any) -> Any:
        return self.answer


@pytest.mark.parametrize("answer", [None, {"verdict": "nonsense"}, {}])
def test_a_failed_or_unreadable_answer_leaves_the_page_to_the_crawl(answer):
    crawler = get_crawler(settings_dict=SETTINGS)
    reads = WholeReads(crawler, _Workers(crawler, answer))  # type: ignore[arg-type]
    body = b"<html><body><h1>Kettle</h1></body></html>"
    assert asyncio.run(reads.read(body, "https://shop.example/k", "text/html", ())) is None
    assert not crawler.stats.get_value("structcrawl/workers/whole")


def test_a_good_answer_gives_the_verdict_and_a_page_not_parsed():
    crawler = get_crawler(settings_dict=SETTINGS)
    body, url = _case(ITEMS / "own-stale-instock-sold-out-en")
    workers = _Workers(crawler, _answer(body, url, _spec(crawler)))
    reads = WholeReads(crawler, workers)  # type: ignore[arg-type]
    verdict, doc = asyncio.run(reads.read(body, url, "text/html", ()))
    assert workers.reading_whole  # a page the crawl parses came while the workers were busy
    assert not verdict.js_only
    assert isinstance(doc, LazyDocument) and not doc.parsed
    assert doc.reading is not None and doc.reading.records
    assert crawler.stats.get_value("structcrawl/workers/whole") == 1


def test_the_page_workers_are_the_download_handlers_reader():
    crawler = get_crawler(settings_dict=SETTINGS)
    workers = PageWorkers.of(crawler)
    assert workers is not None and isinstance(reader_of(crawler), WholeReads)
    off = get_crawler(settings_dict={**SETTINGS, "STRUCTCRAWL_PAGE_WORKERS": 0})
    assert PageWorkers.of(off) is None and reader_of(off) is None  # judged and parsed there


def test_a_page_a_site_rule_applies_to_is_parsed_by_the_handler():
    """The site rules' selectors read the crawl's own tree: such a page is judged and parsed
    in the handler, not read whole first (it would be parsed twice), nor counted as a page
    that came while the workers were busy."""
    rules = ROOT / "fixtures" / "site" / "rules"
    crawler = get_crawler(settings_dict={**SETTINGS, "STRUCTCRAWL_RULES_DIR": str(rules)})
    body, url = _case(ITEMS / "own-stale-instock-sold-out-en")
    workers = _Workers(crawler, _answer(body, url, _spec(crawler)))
    reads = WholeReads(crawler, workers)  # type: ignore[arg-type]
    page = "https://northwind.example/products/canyon-rain-shell.html"
    assert asyncio.run(reads.read(body, page, "text/html", ())) is None
    assert crawler.stats.get_value("structcrawl/workers/whole_site_rules") == 1
    assert not getattr(workers, "reading_whole", False)
    assert asyncio.run(reads.read(body, url, "text/html", ())) is not None  # no rule: read
