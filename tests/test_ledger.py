"""The page ledger: every requested URL ends in exactly one outcome, a mismatch fails the crawl
(``scrapy crawl`` exits 1) and the ``structcrawl ledger`` check prints it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from itemadapter import ItemAdapter
from scrapy import Request, Spider
from scrapy.exceptions import DropItem
from scrapy.http import HtmlResponse
from scrapy.utils.test import get_crawler
from twisted.python.failure import Failure

from structcrawl.commandline import main as cli_main
from structcrawl.crawl.addon import ITEM_PIPELINES
from structcrawl.crawl.feedstorage import add_page_keeper, keep_failed_page
from structcrawl.crawl.health import crawl_failures
from structcrawl.crawl.items import PageItem
from structcrawl.dev.demo import run_crawl
from structcrawl.dev.devserver import BackgroundServer
from structcrawl.ledger.check import check_ledger
from structcrawl.ledger.extension import LEDGER_META, PageLedger, page_accounted
from structcrawl.ledger.pages import Ledger, ledger_only_line, page_line
from tests.faultserver import FaultServer

# -- the pure ledger ---------------------------------------------------------------------------


def _page(url: str, *records: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"url": url, "final_url": url, "records": list(records), **fields}


ENTITY = {"kind": "entity", "format": "json-ld", "error": None}


def test_each_requested_url_gets_exactly_one_outcome():
    ledger = Ledger()
    for url in ("http://a/1", "http://a/2", "http://a/2", "http://a/3"):
        ledger.request(url)
    ledger.withdraw("http://a/3")  # the duplicate filter refused it
    assert ledger.account(page_line(_page("http://a/1", ENTITY)))["problem"] is None
    assert ledger.account(page_line(_page("http://a/2", ENTITY)))["problem"] is None
    assert ledger.account(ledger_only_line("http://a/2", "dropped:item"))["problem"] is None
    assert ledger.account(page_line(_page("http://a/1", ENTITY)))["problem"] == "duplicate"
    assert ledger.account(page_line(_page("http://a/3", ENTITY)))["problem"] == "unrequested"
    assert ledger.close("finished") == []
    summary = ledger.summary()
    assert (summary["requested"], summary["accounted"]) == (3, 3)
    assert summary["by_outcome"] == {"records": 2, "dropped:item": 1}
    assert (summary["duplicate"], summary["unrequested"], summary["unaccounted"]) == (1, 1, 0)


def test_pending_urls_end_unaccounted_or_unfinished_or_with_their_hint():
    ledger = Ledger()
    for url in ("http://a/lost", "http://a/raised"):
        ledger.request(url)
    ledger.hint(ledger_only_line("http://a/raised", "error:spider-error", "ValueError: x"))
    lines = {line["url"]: line for line in ledger.close("finished")}
    assert lines["http://a/lost"]["outcome"] == "unaccounted"
    assert lines["http://a/lost"]["problem"] == "unaccounted"
    assert lines["http://a/raised"]["outcome"] == "error:spider-error"
    stopped = Ledger()
    stopped.request("http://a/queued")
    [line] = stopped.close("closespider_itemcount")
    assert (line["outcome"], line["problem"]) == ("unfinished:closespider_itemcount", None)


def test_a_payload_outcome_keeps_its_content_type_and_message():
    skip = {"kind": "skip", "format": "page", "error": {"code": "payload-pdf", "message": "a PDF"}}
    line = page_line(_page("http://a/x.pdf", skip, content_type="application/pdf", status=200))
    assert (line["outcome"], line["content_type"], line["message"]) == (
        "skip:payload-pdf",
        "application/pdf",
        "a PDF",
    )


def test_the_check_compares_the_ledger_with_the_pages_feed():
    ledger = [
        {"url": "u1", "outcome": "records", "in_pages": True, "problem": None},
        {"url": "u2", "outcome": "error:http-404", "in_pages": True, "problem": None},
        {"url": "u3", "outcome": "dropped:item", "in_pages": False, "problem": None},
    ]
    pages = [{"url": "u1", "outcomes": ["entity:json-ld"]}, {"url": "u2", "outcomes": ["e"]}]
    check = check_ledger(ledger, pages)
    assert check.ok and (check.requested, check.accounted, check.pages) == (3, 3, 2)
    check = check_ledger(ledger, pages[:1] + [{"url": "u9", "outcomes": []}])
    assert check.problems == [
        "page without outcomes: u9",
        "not in the pages feed: u2 (error:http-404)",
        "in the pages feed but not in the ledger: u9",
    ]


def _write(path: Path, rows: list[dict]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def test_the_cli_exits_1_and_prints_the_mismatch(tmp_path, capsys):
    ledger = _write(
        tmp_path / "ledger.jsonl",
        [
            {"url": "http://a/ok", "outcome": "records", "in_pages": True, "problem": None},
            {"url": "http://a/lost", "outcome": "unaccounted", "problem": "unaccounted"},
        ],
    )
    pages = _write(tmp_path / "pages.jsonl", [{"url": "http://a/ok", "outcomes": ["x"]}])
    assert cli_main(["ledger", ledger, "--pages", pages]) == 1
    captured = capsys.readouterr()
    assert "requested 2, accounted 1 (records 1)" in captured.out
    assert "unaccounted: http://a/lost (no outcome)" in captured.out
    assert "1 problem(s)" in captured.err
    assert cli_main(["ledger", str(tmp_path / "missing.jsonl")]) == 2
    assert cli_main(["ledger", "--pages", pages]) == 0


def test_the_cli_tolerates_a_torn_last_line_but_not_a_bad_line_inside(tmp_path, capsys):
    """A killed worker's pages feed may end mid-line (issue 15): that line is left out."""
    pages = tmp_path / "pages.jsonl"
    pages.write_text('{"url": "http://a/ok", "outcomes": ["x"]}\n{"url": "http://a/half", "out')
    assert cli_main(["ledger", "--pages", str(pages)]) == 0
    assert "pages feed: 1 lines" in capsys.readouterr().out
    pages.write_text('{"url": "http://a/ok", "outcomes": ["x"]}\n{"url": "http\n{"url": "b"}\n')
    assert cli_main(["ledger", "--pages", str(pages)]) == 2  # not the last line: corrupt
    assert "pages.jsonl:2: not JSON" in capsys.readouterr().err


# -- the extension, signal by signal -----------------------------------------------------------


def _extension(tmp_path: Path, **settings: Any) -> tuple[PageLedger, Any]:
    crawler = get_crawler(
        Spider, {"STRUCTCRAWL_LEDGER_FILE": str(tmp_path / "ledger.jsonl"), **settings}
    )
    crawler.spider = Spider("t")
    ext = PageLedger.from_crawler(crawler)
    ext.spider_opened()
    return ext, crawler.stats


def _item(url: str, **fields: Any) -> PageItem:
    item = PageItem(url=url, final_url=url, status=200, **fields)
    item.records = [dict(ENTITY)]
    return item


def test_the_extension_follows_requests_retries_redirects_and_drops(tmp_path):
    ext, stats = _extension(tmp_path)
    first = Request("http://a.example/1")
    ext.request_scheduled(first)
    assert first.meta[LEDGER_META] == "http://a.example/1"
    retry = first.copy()  # a retry or a redirect hop carries the meta: not a new URL
    ext.request_scheduled(retry)
    dup = Request("http://a.example/1")
    ext.request_scheduled(dup)
    ext.request_dropped(dup)  # refused by the duplicate filter: never requested
    moved = Request("http://a.example/moved")
    ext.request_scheduled(moved)
    hop = moved.replace(url="http://a.example/1")
    hop.meta["redirect_urls"] = [moved.url]
    ext.request_scheduled(hop)
    ext.request_dropped(hop)  # a redirect to a URL already requested
    ext.request_scheduled(Request("data:,x", meta={"structcrawl_internal": True}))  # not a page
    dropped = Request("http://a.example/dropped")
    ext.request_scheduled(dropped)
    ext.item_scraped(_item("http://a.example/1"))
    ext.item_scraped({"key": "not a page item"})
    ext.item_dropped(_item("http://a.example/dropped"), DropItem("unwanted"))
    ext.spider_closed("finished")
    lines = {
        line["url"]: line
        for line in map(json.loads, (tmp_path / "ledger.jsonl").read_text().splitlines())
    }
    assert {u: line["outcome"] for u, line in lines.items()} == {
        "http://a.example/1": "records",
        "http://a.example/moved": "dropped:redirect-duplicate",
        "http://a.example/dropped": "dropped:item",
    }
    assert lines["http://a.example/dropped"]["message"] == "DropItem: unwanted"
    values = stats.get_stats()
    assert values["structcrawl/ledger/requested"] == 3
    assert values["structcrawl/ledger/accounted"] == 3
    assert values["structcrawl/ledger/filtered/dupefilter"] == 1
    assert crawl_failures({**values, "finish_reason": "finished"}) == []


def test_a_url_without_an_outcome_is_a_crawl_failure(tmp_path):
    ext, stats = _extension(tmp_path)
    for url in ("http://a.example/lost", "http://a.example/raised", "http://a.example/sitemap"):
        ext.request_scheduled(Request(url))
    response = HtmlResponse("http://a.example/raised", request=Request("http://a.example/raised"))
    ext.spider_error(Failure(ValueError("boom")), response)
    ext.crawler.signals.send_catch_log(
        page_accounted, url="http://a.example/sitemap", outcome="sitemap", message="urlset"
    )
    ext.spider_closed("finished")
    values = stats.get_stats()
    assert values["structcrawl/failure/ledger/unaccounted"] == 1
    assert crawl_failures({**values, "finish_reason": "finished"}) == [
        "structcrawl/failure/ledger/unaccounted: 1"
    ]
    outcomes = [
        json.loads(x)["outcome"] for x in (tmp_path / "ledger.jsonl").read_text().split("\n") if x
    ]
    assert sorted(outcomes) == ["error:spider-error", "sitemap", "unaccounted"]


def test_a_failed_page_a_keeper_kept_is_counted_as_kept_not_accounted_nor_lost(tmp_path):
    # a worker that lost Redis keeps a failed page item in its outage file: the ledger says
    # it is there (not in the feeds, not lost), whichever item_error handler runs first
    ext, stats = _extension(tmp_path)
    calls = []

    def keeper(item, failure):
        calls.append(item.url)
        if "kept" not in item.url:
            return None
        return f"the page is kept in {tmp_path / 'outage.jsonl'}"

    add_page_keeper(ext.crawler, keeper)
    for url in ("http://a.example/kept", "http://a.example/failed"):
        ext.request_scheduled(Request(url))
    kept, failed = _item("http://a.example/kept"), _item("http://a.example/failed")
    boom = Failure(ConnectionError("Redis went away"))
    assert keep_failed_page(ext.crawler, kept, boom)  # the keeper's own component asked first
    ext.item_error(kept, boom)
    ext.item_error(failed, Failure(ValueError("a bug")))
    assert keep_failed_page(ext.crawler, failed, boom) is None  # asked after the ledger
    assert calls == ["http://a.example/kept", "http://a.example/failed"]  # once per item
    ext.spider_closed("finished")
    lines = {
        line["url"]: line
        for line in map(json.loads, (tmp_path / "ledger.jsonl").read_text().splitlines())
    }
    assert lines["http://a.example/kept"]["outcome"] == "unwritten:item-failed"
    assert lines["http://a.example/kept"]["problem"] == "kept"
    assert str(tmp_path / "outage.jsonl") in lines["http://a.example/kept"]["message"]
    assert lines["http://a.example/failed"]["outcome"] == "error:item-failed"
    values = stats.get_stats()
    assert values["structcrawl/ledger/kept"] == 1
    assert values["structcrawl/ledger/accounted"] == 1
    assert "structcrawl/ledger/unaccounted" not in values
    assert crawl_failures({**values, "finish_reason": "finished"}) == [
        "structcrawl/failure/ledger/kept: 1"
    ]
    check = check_ledger(list(lines.values()), None)
    assert (check.requested, check.accounted) == (2, 1)
    assert check.problems[0].startswith("not in the feeds, kept in a local file: http://a.exa")


def test_a_sitemap_crawl_of_mostly_404s_fails(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    for i in range(2):
        (site / f"p{i}.html").write_text(f"<html><title>p{i}</title><p>{i}</p></html>")
    with BackgroundServer(site) as server:
        locs = "".join(f"<url><loc>{server.url}/p{i}.html</loc></url>" for i in range(10))
        (site / "sitemap.xml").write_text(
            '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
            f"{locs}</urlset>"
        )
        out = tmp_path / "out"
        code = run_crawl(
            None, out, "-a", f"sitemap={server.url}/sitemap.xml",
            "-s", "STRUCTCRAWL_RENDER_ENABLED=False", "-s", "ROBOTSTXT_OBEY=False",
        )  # fmt: skip
    assert code == 1  # 8 of 10 pages are 404: not a crawl that went well
    stats = json.loads((out / "report" / "report.json").read_text())["stats"]
    assert stats["structcrawl/failure/ledger/http_errors"] == 8
    assert stats["structcrawl/ledger/outcome/error:http-404"] == 8
    assert "8 of 10 fetched pages ended in an HTTP error" in (out / "crawl.log").read_text()


def test_a_few_http_errors_do_not_fail_the_crawl(tmp_path):
    ext, stats = _extension(tmp_path)
    for i in range(4):
        ext.request_scheduled(Request(f"http://a.example/{i}"))
        ext.item_scraped(_item(f"http://a.example/{i}"))
    ext.request_scheduled(Request("http://a.example/gone"))
    gone = _item("http://a.example/gone")
    gone.status = 404
    gone.records = [{"kind": "error", "format": "page", "error": {"code": "http-404"}}]
    ext.item_scraped(gone)
    ext.spider_closed("finished")
    values = stats.get_stats()
    assert values["structcrawl/ledger/outcome/error:http-404"] == 1
    assert crawl_failures({**values, "finish_reason": "finished"}) == []


def test_a_stopped_job_keeps_its_pending_urls_for_the_resumed_run(tmp_path):
    jobdir = tmp_path / "job"
    ext, stats = _extension(tmp_path, JOBDIR=str(jobdir))
    ext.request_scheduled(Request("http://a.example/queued"))
    ext.spider_closed("shutdown")
    assert stats.get_value("structcrawl/ledger/unfinished") == 1
    assert stats.get_value("structcrawl/failure/ledger/unaccounted") is None
    resumed, stats2 = _extension(tmp_path, JOBDIR=str(jobdir))
    assert stats2.get_value("structcrawl/ledger/resumed") == 1
    resumed.item_scraped(_item("http://a.example/queued"))
    resumed.spider_closed("finished")
    assert stats2.get_value("structcrawl/ledger/accounted") == 1
    assert stats2.get_value("structcrawl/failure/ledger/unrequested") is None


# -- real crawls -------------------------------------------------------------------------------


class SwallowPages:
    """A spider middleware that loses page items: what the ledger is there to catch."""

    def process_spider_output(self, response, result):
        for x in result:
            if not (isinstance(x, PageItem) and "/lost/" in x.url):
                yield x

    async def process_spider_output_async(self, response, result):
        async for x in result:
            if not (isinstance(x, PageItem) and "/lost/" in x.url):
                yield x


class DropPages:
    def process_item(self, item):
        if "/drop/" in ItemAdapter(item).get("url", ""):
            raise DropItem("not wanted here")
        return item


def _stats(out: Path) -> dict[str, int]:
    log = (out / "crawl.log").read_text()
    return {k: int(v) for k, v in re.findall(r"'(structcrawl/[^']+)': (\d+)", log)}


def _crawl(server: FaultServer, out: Path, paths: list[str], *extra: str) -> int:
    urls = ",".join(server.url + p for p in paths)
    return run_crawl(
        None,
        out,
        "-a",
        f"start_urls={urls}",
        "-a",
        "depth=0",
        "-s",
        "STRUCTCRAWL_RENDER_ENABLED=False",
        *extra,
        timeout=120,
    )


@pytest.mark.crawl
def test_a_lost_page_makes_the_crawl_exit_1_and_the_check_names_it(tmp_path, capsys):
    out = tmp_path / "out"
    with FaultServer() as server:
        code = _crawl(
            server,
            out,
            ["/ok/kept.html", "/ok/lost/gone.html"],
            "-s",
            'SPIDER_MIDDLEWARES={"tests.test_ledger.SwallowPages": 10}',
        )
        lost = server.url + "/ok/lost/gone.html"
    assert code == 1
    stats = _stats(out)
    assert stats["structcrawl/failure/ledger/unaccounted"] == 1
    assert (
        cli_main(
            ["ledger", str(out / "report" / "ledger.jsonl"), "--pages", str(out / "pages.jsonl")]
        )
        == 1
    )
    assert f"unaccounted: {lost} (no outcome)" in capsys.readouterr().out
    report = json.loads((out / "report" / "report.json").read_text())
    assert report["ledger"]["unaccounted"] == 1
    assert "MISMATCHED" in (out / "report" / "report.html").read_text()


@pytest.mark.crawl
def test_dropped_items_and_redirect_duplicates_are_accounted(tmp_path):
    out = tmp_path / "out"
    with FaultServer() as server:
        code = _crawl(
            server,
            out,
            ["/ok/a.html", "/redirect?to=/ok/a.html", "/ok/drop/x.html"],
            "-s",
            "ITEM_PIPELINES=" + json.dumps({**ITEM_PIPELINES, "tests.test_ledger.DropPages": 50}),
        )
    assert code == 0, (out / "crawl.log").read_text()[-3000:]
    lines = [json.loads(x) for x in (out / "report" / "ledger.jsonl").read_text().splitlines()]
    by_path = {line["url"].split("/", 3)[3]: line["outcome"] for line in lines}
    assert by_path == {
        "ok/a.html": "records",
        "redirect?to=/ok/a.html": "dropped:redirect-duplicate",
        "ok/drop/x.html": "dropped:item",
    }
    assert (
        cli_main(
            ["ledger", str(out / "report" / "ledger.jsonl"), "--pages", str(out / "pages.jsonl")]
        )
        == 0
    )


@pytest.mark.crawl
def test_a_sitemap_is_accounted_without_a_page_line(tmp_path):
    out = tmp_path / "out"
    site = tmp_path / "site"
    site.mkdir()
    (site / "p.html").write_text("<html><body><p>from the sitemap</p></body></html>")
    with BackgroundServer(site) as server:
        (site / "sitemap.xml").write_text(
            '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
            f"<url><loc>{server.url}p.html</loc></url></urlset>"
        )
        code = run_crawl(
            None,
            out,
            "-a",
            f"sitemap={server.url}sitemap.xml",
            "-s",
            "STRUCTCRAWL_RENDER_ENABLED=False",
            timeout=120,
        )
    assert code == 0, (out / "crawl.log").read_text()[-3000:]
    lines = [json.loads(x) for x in (out / "report" / "ledger.jsonl").read_text().splitlines()]
    assert sorted((line["url"].rsplit("/", 1)[1], line["outcome"]) for line in lines) == [
        ("p.html", "no-records"),
        ("sitemap.xml", "sitemap"),
    ]
