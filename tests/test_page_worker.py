"""A page's visible readings and article main text read in a worker process
(``STRUCTCRAWL_PAGE_WORKERS``): the same readings and text the crawl makes in process, kept on
its parsed page; a reading not sent, or any page once the pool failed, is read in process; the
worker stops with the engine."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from itemadapter import ItemAdapter
from scrapy.exceptions import NotConfigured
from scrapy.utils.test import get_crawler

from structcrawl.articles.body import MAIN_TEXT_MEMO, main_text, page_html
from structcrawl.articles.complete import may_read_main_text
from structcrawl.core.document import parse_html
from structcrawl.crawl.items import PageItem
from structcrawl.crawl.pageworkers import GIVE_UP, WAITING
from structcrawl.crawl.pipelines.pagework import PageWorkPipeline
from structcrawl.crawl.pipelines.typeditems import TypedItemsPipeline
from structcrawl.extract import extract_payload
from structcrawl.visible.evidence import EVIDENCE_MEMO
from structcrawl.visible.facts import FACTS_MEMO, LazyVisibleFacts
from structcrawl.visible.grid import GRID_MEMO
from structcrawl.visible.oldprices import OLD_PRICES_MEMO, old_prices
from structcrawl.visible.stock import AVAILABILITY_MEMO, visible_availability
from structcrawl.visible.tree import element_at
from structcrawl.visible.wire import adopt, readings
from structcrawl.workers.maintext import html_main_text
from structcrawl.workers.page import READ_PAGE, read_page
from structcrawl.workers.pool import WorkerError, WorkerGone, WorkerPool
from tests.servers import require

ROOT = Path(__file__).resolve().parents[1]

URL = "https://news.example/2026/pier"
_PARAGRAPH = (
    "<p>The old pier at the end of the bay was closed for three winters while the town argued "
    "about who should pay for the repairs, and the fishermen moored their boats further north "
    "where the water is shallow and the walk to the market is long. Paragraph {i}.</p>"
)


def _script(jsonld: dict[str, Any] | None) -> bytes:
    return (
        f'<script type="application/ld+json">{json.dumps(jsonld)}</script>'.encode()
        if jsonld
        else b""
    )


def _article(head: str = "", jsonld: dict[str, Any] | None = None) -> bytes:
    script = _script(jsonld).decode()
    paragraphs = "".join(_PARAGRAPH.format(i=i) for i in range(8))
    return (
        f"<html><head><title>The pier is back</title>{head}{script}</head><body>"
        f"<nav><a href='/'>Home</a></nav><article><h1>The pier is back</h1>{paragraphs}"
        f"</article><footer>News of the bay</footer></body></html>"
    ).encode()


def _records(body: bytes, doc: Any) -> list[dict[str, Any]]:
    return [r.to_dict() for r in extract_payload(body, URL, "text/html", document=doc).records]


def _crawler(**settings: Any) -> Any:
    return get_crawler(
        settings_dict={
            "STRUCTCRAWL_TYPED_ITEMS": True,
            "STRUCTCRAWL_CHANGES_ENABLED": False,
            **settings,
        }
    )


def test_the_worker_reads_the_text_the_page_reads_in_process():
    doc = parse_html(_article(), URL)
    html = page_html(doc)
    assert html is not None
    in_process = main_text(doc)
    assert in_process and "Paragraph 7" in in_process
    assert html_main_text(html, URL) == in_process
    assert doc.memo[MAIN_TEXT_MEMO] == in_process  # read once per document
    said = read_page(_article(), URL, "text/html; charset=utf-8", False, True)
    assert said == {"main_text": in_process}  # the worker's own parse of the bytes


_PUBLISHED = '<meta property="article:published_time" content="2026-01-02">'


@pytest.mark.parametrize(
    ("head", "jsonld", "expected"),
    [
        ("", {"@context": "https://schema.org", "@type": "NewsArticle", "headline": "x"}, True),
        ('<meta property="og:type" content="article">', None, True),
        ('<meta name="author" content="Ann Lee">', None, True),
        ('<meta property="article:published_time" content="2026-01-02">', None, True),
        ("", {"@context": "https://schema.org", "@type": "Product", "name": "Kettle"}, False),
        # a shop theme's dates on a product page: its product is the primary item, no text read
        (_PUBLISHED, {"@context": "https://schema.org", "@type": "Product", "name": "K"}, False),
        (_PUBLISHED + '<meta property="og:type" content="product">', None, False),
        ("", None, False),
    ],
)
def test_which_pages_may_read_their_main_text(head, jsonld, expected):
    body = _article(head, jsonld)
    doc = parse_html(body, URL)
    assert may_read_main_text(_records(body, doc), doc) is expected
    assert may_read_main_text(_records(body, doc), None) is False


def test_an_article_nested_in_a_page_record_is_seen():
    data = {
        "@context": "https://schema.org",
        "@type": "WebPage",
        "mainEntity": {"@type": "BlogPosting", "headline": "x"},
    }
    body = _article("", data)
    doc = parse_html(body, URL)
    assert may_read_main_text(_records(body, doc), doc)


def _page(head: str = "", jsonld: dict[str, Any] | None = None, body: bytes = b"") -> PageItem:
    body = (
        body.replace(b"</head>", _script(jsonld) + b"</head>") if body else _article(head, jsonld)
    )
    doc = parse_html(body, URL)
    return PageItem(url=URL, final_url=URL, records=_records(body, doc), document=doc, body=body)


@pytest.mark.timeout(120)
def test_the_crawl_reads_it_in_a_worker_and_the_items_are_the_same():
    data = {"@context": "https://schema.org", "@type": "NewsArticle", "headline": "The pier"}
    crawler = _crawler()
    pipeline = PageWorkPipeline.from_crawler(crawler)
    page = _page(jsonld=data)

    async def crawl() -> None:
        await pipeline.process_item(page)
        pool = pipeline.workers._pool
        assert pool is not None
        (worker,) = pool.workers
        pipeline.workers.engine_stopped()
        assert worker.proc.poll() is not None  # stopped with the engine

    asyncio.run(crawl())
    assert crawler.stats.get_value("structcrawl/workers/pages") == 1
    document = page.document
    text = document.memo[MAIN_TEXT_MEMO]
    assert text and "Paragraph 7" in text
    assert EVIDENCE_MEMO not in document.memo  # an article's page: its visible page not asked
    (article,) = TypedItemsPipeline.from_crawler(crawler).process_item(page).typed_items
    alone = _page(jsonld=data)
    (expected,) = TypedItemsPipeline.from_crawler(_crawler()).process_item(alone).typed_items
    assert ItemAdapter(article).get("articleBody") == ItemAdapter(expected).get("articleBody")
    assert ItemAdapter(article).get("articleBody")


def test_a_page_that_may_not_read_it_is_left_alone():
    crawler = _crawler(STRUCTCRAWL_VISIBLE_PAGE=False)
    pipeline = PageWorkPipeline.from_crawler(crawler)
    product = {"@context": "https://schema.org", "@type": "Product", "name": "Kettle"}
    page = _page(jsonld=product)
    asyncio.run(pipeline.process_item(page))
    assert pipeline.workers._pool is None  # no worker started for it
    assert MAIN_TEXT_MEMO not in page.document.memo


_SHOP = (
    "<html><head><title>Kettle | Shop</title></head><body><nav>Home</nav><h1>Kettle K1</h1>"
    "<p class='price'><s>59,90 EUR</s> 49,90 EUR</p><p>Art.-Nr.: K-100</p>"
    "<p>Sold out</p><button>Add to cart</button><ul class='related'>"
    + "".join(
        f"<li class='product-card'><a href='/p/{i}'><h3>Mug {i}</h3></a><span>{i},50 EUR</span>"
        "</li>"
        for i in range(5)
    )
    + "</ul></body></html>"
).encode()


def _read_in_a_worker(page: PageItem) -> tuple[Any, PageItem]:
    """The page through the page-work pipeline (a crawler of its own), its worker stopped
    after; the crawler and the page, which a worker read."""
    crawler = _crawler()
    pipeline = PageWorkPipeline.from_crawler(crawler)

    async def crawl() -> None:
        await pipeline.process_item(page)
        pipeline.workers.engine_stopped()

    asyncio.run(crawl())
    assert crawler.stats.get_value("structcrawl/workers/pages") == 1
    return crawler, page


@pytest.mark.timeout(120)
def test_the_visible_page_is_read_in_the_worker_and_the_items_are_the_same():
    product = {"@context": "https://schema.org", "@type": "Product", "name": "Kettle K1"}
    crawler, page = _read_in_a_worker(_page(jsonld=product, body=_SHOP))
    memo = page.document.memo
    assert memo[EVIDENCE_MEMO].price == "49,90 EUR" and memo[EVIDENCE_MEMO].sku == "K-100"
    assert memo[AVAILABILITY_MEMO].sold_out == "Sold out"
    assert MAIN_TEXT_MEMO not in memo  # a product page reads no main text
    assert "visible-walk" not in memo  # nothing of the page was walked in process
    (item,) = TypedItemsPipeline.from_crawler(crawler).process_item(page).typed_items
    alone = _page(jsonld=product, body=_SHOP)
    (expected,) = TypedItemsPipeline.from_crawler(_crawler()).process_item(alone).typed_items
    assert ItemAdapter(item).asdict() == ItemAdapter(expected).asdict()
    assert ItemAdapter(item).get("sku") == "K-100"
    assert "visible-walk" not in memo  # the items took the worker's readings
    assert "visible-walk" in alone.document.memo


@pytest.mark.timeout(120)
def test_a_page_without_a_product_record_is_sent_for_less_and_reads_the_rest_itself():
    """No record is a product or has a price: the worker reads the evidence and the grid, not
    the stock, the prices or the old prices (no check of a product's record reads them); a
    reader that asks all the same reads them in process, as it would have without a worker."""
    webpage = {"@context": "https://schema.org", "@type": "WebPage", "name": "Kettle K1"}
    crawler, page = _read_in_a_worker(_page(jsonld=webpage, body=_SHOP))
    memo = page.document.memo
    assert memo[EVIDENCE_MEMO].price == "49,90 EUR"
    assert GRID_MEMO in memo  # a category page's products, read there
    assert AVAILABILITY_MEMO not in memo and OLD_PRICES_MEMO not in memo
    assert "prices" not in memo[FACTS_MEMO] and memo[FACTS_MEMO]["h1"] == ["Kettle K1"]
    assert "visible-walk" not in memo
    alone = parse_html(_SHOP, URL)
    assert visible_availability(page.document) == visible_availability(alone)
    assert old_prices(page.document) and [v for v, _ in old_prices(page.document)] == [
        v for v, _ in old_prices(alone)
    ]
    assert LazyVisibleFacts(page.document)["prices"] == LazyVisibleFacts(alone)["prices"]


def test_the_readings_a_product_needs_are_made_only_where_asked():
    doc = parse_html(_SHOP, URL)
    full = readings(doc)
    less = readings(parse_html(_SHOP, URL), product=False, grid=False)
    assert full["availability"] == ["Sold out", "Add to cart"]
    ((value, path),) = full["old_prices"]  # the struck price, said by its path
    assert value == "59.90" and element_at(doc.root, path) is old_prices(doc)[0][1]
    assert full["grid"] == []
    assert full["facts"]["prices"] == ["59,90 EUR", "49,90 EUR"]
    assert less["availability"] is None and less["old_prices"] is None and less["grid"] is None
    assert less["facts"] == {k: v for k, v in full["facts"].items() if k != "prices"}
    assert less["evidence"] == full["evidence"] and less["heading"] == full["heading"]


def test_a_reading_of_another_tree_is_not_adopted():
    said = read_page(_SHOP, URL, None, True, False)["visible"]
    other = parse_html(_SHOP.replace(b"<p>Sold out</p>", b""), URL)
    assert not adopt(other, said)
    assert other.memo == {}
    beyond = {**said, "evidence": {**said["evidence"], "price_element": [1, 99]}}
    same = parse_html(_SHOP, URL)
    assert not adopt(same, beyond)  # as many elements, but not that one
    assert same.memo == {}
    assert same.memo == {}
    assert adopt(same, said)


class _Broken:
    """A pool whose every worker dies on its first page (``per_worker``: on its first pages
    asked together, each failing)."""

    def __init__(self, per_worker: int = 1) -> None:
        self.closed = False
        self.lost = 0
        self.asked = 0
        self.per_worker = per_worker

    async def ask(self, call: str, args: list[Any], data: bytes) -> Any:
        self.asked += 1
        self.lost = (self.asked + self.per_worker - 1) // self.per_worker
        raise WorkerGone(f"worker {self.lost} ended without answering (exit -9)")

    def waiting(self) -> int:
        return 0

    def close(self) -> None:
        self.closed = True


def test_a_failed_worker_leaves_the_text_to_the_process(caplog):
    crawler = _crawler()
    pipeline = PageWorkPipeline.from_crawler(crawler)
    broken = _Broken()
    pipeline.workers._pool = broken  # type: ignore[assignment]
    data = {"@context": "https://schema.org", "@type": "Article", "headline": "The pier"}
    pages = [_page(jsonld=data) for _ in range(GIVE_UP + 1)]
    for page in pages:
        asyncio.run(pipeline.process_item(page))
    failed = crawler.stats.get_value("structcrawl/workers/failed")
    assert failed == GIVE_UP  # then no worker is asked any more
    assert broken.closed
    assert sum("page worker failed" in r.getMessage() for r in caplog.records) == GIVE_UP
    assert all(MAIN_TEXT_MEMO not in page.document.memo for page in pages)
    (article,) = TypedItemsPipeline.from_crawler(crawler).process_item(pages[0]).typed_items
    assert "Paragraph 7" in ItemAdapter(article).get("articleBody")  # read in process


def test_one_worker_lost_with_several_pages_is_one_failure_not_three(caplog):
    crawler = _crawler()
    pipeline = PageWorkPipeline.from_crawler(crawler)
    broken = _Broken(per_worker=GIVE_UP + 1)
    pipeline.workers._pool = broken  # type: ignore[assignment]
    data = {"@context": "https://schema.org", "@type": "Article", "headline": "The pier"}
    for _ in range(GIVE_UP + 1):
        asyncio.run(pipeline.process_item(_page(jsonld=data)))
    assert crawler.stats.get_value("structcrawl/workers/failed") == GIVE_UP + 1
    assert sum("page worker failed" in r.getMessage() for r in caplog.records) == 1
    assert (
        not broken.closed and pipeline.workers._failures < GIVE_UP
    )  # a new worker takes the next pages


@pytest.mark.timeout(60)
def test_a_killed_worker_fails_its_request_and_a_new_one_takes_the_next():
    args = [URL, None, False, True]

    async def crawl() -> None:
        pool = WorkerPool(1)
        try:
            first = await pool.ask(READ_PAGE, args, _article())
            (worker,) = pool.workers
            os.kill(worker.proc.pid, signal.SIGKILL)
            worker.proc.wait()
            with pytest.raises(WorkerGone):
                await pool.ask(READ_PAGE, args, _article())
            assert pool.workers == [] and pool.lost == 1
            assert await pool.ask(READ_PAGE, args, _article()) == first  # a new worker
            assert len(pool.workers) == 1 and pool.workers[0] is not worker
        finally:
            pool.close()

    asyncio.run(crawl())


@pytest.mark.parametrize(
    "settings",
    [
        {"STRUCTCRAWL_PAGE_WORKERS": 0},
        {"STRUCTCRAWL_ARTICLE_BODY_WORKERS": 0},  # its former name
        {"STRUCTCRAWL_VISIBLE_PAGE": False, "STRUCTCRAWL_ARTICLE_BODY": False},
        {"STRUCTCRAWL_VISIBLE_PAGE": False, "STRUCTCRAWL_TYPED_ITEMS": False},
    ],
)
def test_it_is_off_where_nothing_would_be_read_or_workers_are_not_wanted(settings):
    with pytest.raises(NotConfigured):
        PageWorkPipeline.from_crawler(_crawler(**settings))


@pytest.mark.timeout(60)
def test_requests_asked_together_are_answered_each_with_its_own_text():
    pages = [_article().replace(b"Paragraph", f"Page {n} paragraph".encode()) for n in range(6)]
    htmls = [page_html(parse_html(body, URL)) for body in pages]

    async def crawl() -> list[Any]:
        pool = WorkerPool(2)
        try:
            asked = (pool.ask(READ_PAGE, [URL, None, False, True], body) for body in pages)
            return [said["main_text"] for said in await asyncio.gather(*asked)]
        finally:
            pool.close()

    answers = asyncio.run(crawl())
    assert answers == [html_main_text(html, URL) for html in htmls]  # type: ignore[arg-type]
    assert all(f"Page {n} paragraph 7" in answers[n] for n in range(6))


@pytest.mark.timeout(60)
def test_an_answer_waiting_for_a_busy_loop_is_not_the_workers_work():
    async def crawl() -> None:
        pool = WorkerPool(1)
        try:
            asked = asyncio.ensure_future(pool.ask(READ_PAGE, [URL, None, True, False], b"<p>x"))
            await asyncio.sleep(0)  # written to the worker
            (worker,) = pool.workers
            assert pool.waiting() == 1 and len(worker.pending) == 1
            deadline = time.monotonic() + 30
            while pool.waiting() and time.monotonic() < deadline:
                time.sleep(0.01)  # the loop busy (a page read in process): nothing handed to it
            assert pool.waiting() == 0 and len(worker.pending) == 1  # answered, not yet taken
            assert (await asked)["visible"]["evidence"]["price"] is None
            assert pool.waiting() == 0 and not worker.pending
        finally:
            pool.close()

    asyncio.run(crawl())


@pytest.mark.timeout(60)
def test_a_function_that_raises_is_said_back_and_the_worker_goes_on():
    async def crawl() -> None:
        pool = WorkerPool(1)
        try:
            with pytest.raises(WorkerError, match="TypeError"):
                await pool.ask(READ_PAGE, [URL], _article())  # arguments missing
            said = await pool.ask(READ_PAGE, [URL, None, False, True], _article())
            assert "Paragraph 7" in said["main_text"]
            assert pool.lost == 0 and len(pool.workers) == 1
        finally:
            pool.close()

    asyncio.run(crawl())


_CRAWL = """
import asyncio, sys, time
from structcrawl.workers.pool import WorkerPool

async def main():
    pool = WorkerPool(1)
    await pool.ask("structcrawl.workers.page:read_page", ["u", None, True, False], b"<p>x</p>")
    print(pool.workers[0].proc.pid, flush=True)
    time.sleep(120)

asyncio.run(main())
"""


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.timeout(90)
def test_a_worker_whose_crawl_was_killed_ends(tmp_path):
    require(Path("/proc/self/stat").exists(), "finding the worker's process needs /proc")
    script = tmp_path / "crawl.py"
    script.write_text(_CRAWL)
    crawl = subprocess.Popen(
        [sys.executable, str(script)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    try:
        assert crawl.stdout is not None
        (worker,) = map(int, crawl.stdout.readline().split())
        assert _alive(worker)
    finally:
        crawl.kill()  # SIGKILL: the pool is never closed
        crawl.wait()
    deadline = time.monotonic() + 10
    while _alive(worker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(worker)  # its input ended with the crawl


def test_frames_round_trip_and_a_cut_frame_is_the_end():
    import io

    from structcrawl.workers.serve import read_frame, write_frame

    stream = io.BytesIO()
    write_frame(stream, b'["<p>a</p>", null]')
    write_frame(stream, b"")
    whole = stream.getvalue()
    stream.seek(0)
    assert read_frame(stream) == b'["<p>a</p>", null]'
    assert read_frame(stream) == b""
    assert read_frame(stream) is None  # the end
    assert read_frame(io.BytesIO(whole[:12])) is None  # cut inside the first frame
    assert read_frame(io.BytesIO(whole[:5])) is None  # cut inside its length


def test_an_answer_carries_what_json_can_and_says_what_it_cannot():
    from structcrawl.core.jsontext import loads_any
    from structcrawl.workers.serve import _answer, request

    def said(result: Any) -> Any:
        frame = b"".join(request("t:f", [], b"<p>"))
        return loads_any(_answer(frame, {"t:f": lambda data: result}))

    page = {"text": "Caf\u00e9 \U0001f600", "price": 9.9, "counts": [1, 2**70], "none": None}
    assert said(page) == [True, page]  # beyond 64 bits: the standard library's encoder
    assert said(["lone \ud800 surrogate"]) == [True, ["lone \ud800 surrogate"]]
    assert said((1, 2)) == [True, [1, 2]]  # as JSON: a tuple arrives as a list
    for what in ({1, 2}, dt.date(2026, 1, 1)):  # no JSON value: said back, not guessed
        ok, message = said(what)
        assert not ok and message.startswith("TypeError")


class _Busy:
    """A pool with pages waiting for each of its workers."""

    def __init__(self, waiting: int) -> None:
        self._waiting = waiting
        self.asked = 0

    def waiting(self) -> int:
        return self._waiting

    async def ask(self, call: str, args: list[Any], data: bytes) -> Any:
        self.asked += 1
        return read_page(data, *args)

    def close(self) -> None:
        pass


def test_a_page_is_read_in_process_while_the_workers_are_busy():
    crawler = _crawler()
    pipeline = PageWorkPipeline.from_crawler(crawler)
    product = {"@context": "https://schema.org", "@type": "Product", "name": "Kettle K1"}
    busy = _Busy(WAITING)
    pipeline.workers._pool = busy  # type: ignore[assignment]
    page = _page(jsonld=product, body=_SHOP)
    asyncio.run(pipeline.process_item(page))
    assert busy.asked == 0 and crawler.stats.get_value("structcrawl/workers/busy") == 1
    assert EVIDENCE_MEMO not in page.document.memo  # the resolution reads it here
    busy._waiting = WAITING - 1
    asyncio.run(pipeline.process_item(page))
    assert busy.asked == 1 and page.document.memo[EVIDENCE_MEMO].price == "49,90 EUR"
    busy._waiting = WAITING + 5
    article = _page(jsonld={"@context": "https://schema.org", "@type": "NewsArticle"})
    asyncio.run(pipeline.process_item(article))
    assert busy.asked == 2  # a main text waits for the worker however busy it is
    assert "Paragraph 7" in article.document.memo[MAIN_TEXT_MEMO]
