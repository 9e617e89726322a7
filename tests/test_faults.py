"""Faults: transient failures are retried with backoff, deterministic ones are not, and every
URL ends in the page ledger with the right reason (a crawl against tests/faultserver.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from scrapy import Request, Spider
from scrapy.exceptions import DownloadCancelledError, DownloadFailedError, DownloadTimeoutError
from scrapy.http import HtmlResponse, Response
from scrapy.utils.test import get_crawler
from twisted.web._newclient import ResponseNeverReceived

from structcrawl.commandline import main as cli_main
from structcrawl.crawl.middlewares import RedirectGuardMiddleware, RedirectLoop, TooManyRedirects
from structcrawl.crawl.retry import RetryPolicy, fetch_error_code, retry_delay
from structcrawl.dev.demo import run_crawl
from tests.faultserver import FaultServer

# -- the pure parts ----------------------------------------------------------------------------


def test_error_codes_of_scrapy_download_exceptions():
    reset = DownloadFailedError("reset")
    reset.__cause__ = ResponseNeverReceived([])
    assert fetch_error_code(reset) == "fetch-ResponseNeverReceived"
    assert fetch_error_code(DownloadTimeoutError("took longer")) == "fetch-TimeoutError"
    assert fetch_error_code(DownloadCancelledError("")) == "too-large"
    assert fetch_error_code(RedirectLoop("a -> b -> a")) == "redirect-loop"


def test_backoff_doubles_up_to_its_cap_and_retry_after_wins_within_its_cap():
    policy = RetryPolicy(base=1.0, max=5.0, retry_after_max=60.0)
    assert [retry_delay(n, None, policy) for n in range(1, 6)] == [1.0, 2.0, 4.0, 5.0, 5.0]
    assert retry_delay(1, 30.0, policy) == 30.0
    assert retry_delay(1, 61.0, policy) is None


def _guard(**settings):
    crawler = get_crawler(Spider, settings_dict={"REDIRECT_MAX_TIMES": 3, **settings})
    crawler.spider = Spider("t")
    return RedirectGuardMiddleware.from_crawler(crawler)


def _redirect(url: str, to: str, **meta) -> tuple[Request, Response]:
    request = Request(url, meta=meta)
    return request, Response(url, status=302, headers={"Location": to}, request=request)


def test_the_redirect_guard_names_loops_and_long_chains_and_lets_the_rest_pass():
    guard = _guard()
    request, response = _redirect("http://a.example/b", "/a", redirect_urls=["http://a.example/a"])
    with pytest.raises(RedirectLoop, match="a.example/a -> http://a.example/b -> http"):
        guard.process_response(request, response)
    request, response = _redirect("http://a.example/self", "http://a.example/self#x")
    with pytest.raises(RedirectLoop):
        guard.process_response(request, response)
    request, response = _redirect("http://a.example/3", "/4", redirect_times=3)
    with pytest.raises(TooManyRedirects, match=r"REDIRECT_MAX_TIMES \(3\)"):
        guard.process_response(request, response)
    request, response = _redirect("http://a.example/1", "/2", redirect_times=1)
    assert guard.process_response(request, response) is response
    ok = HtmlResponse("http://a.example/", body=b"<p>", request=Request("http://a.example/"))
    assert guard.process_response(ok.request, ok) is ok
    request, response = _redirect("http://a.example/x", "/x", dont_redirect=True)
    assert guard.process_response(request, response) is response


# -- a crawl against the fault server ----------------------------------------------------------

# path -> (expected ledger outcome, expected hits on the server: attempts)
CASES = {
    "/ok/plain.html": ("records", 1),
    "/burst/b1?fail=2&status=503": ("records", 3),  # 2 failures, then success
    "/burst/b2?fail=99&status=500": ("error:http-500", 3),  # RETRY_TIMES=2: 3 attempts
    "/burst/b3?fail=1&status=429&after=1": ("records", 2),  # Retry-After honoured
    "/burst/b4?fail=99&status=429&after=3600": ("error:http-429", 1),  # beyond the cap
    "/reset/r1": ("error:fetch-ResponseNeverReceived", 3),
    "/slow-headers/s1?delay=20": ("error:fetch-TimeoutError", 3),
    "/drip/d1?chunks=200&interval=0.3": ("error:fetch-TimeoutError", 3),
    "/short/x1": ("error:fetch-ResponseDataLossError", 3),
    "/loop/a": ("error:redirect-loop", 1),
    "/chain/8": ("error:redirect-too-many", 1),
    "/chain/2": ("records", 1),
    "/status/404": ("error:http-404", 1),
    "/status/410": ("error:http-410", 1),
    "/wrong-type/w1": ("skip:payload-image", 1),
    "/octet/o1": ("skip:payload-other", 1),
    "/large/l1?size=2000000": ("error:too-large", 1),
    "/large/l2?size=2000000&chunked=1": ("error:too-large", 1),
    "/private/p1.html": ("error:fetch-IgnoreRequest", 0),  # robots.txt
    "/redirect?to=http://localhost:{port}/ok/elsewhere.html": ("error:redirect-offsite", 1),
}
SETTINGS = {
    "DOWNLOAD_TIMEOUT": "2",
    "RETRY_TIMES": "2",
    "STRUCTCRAWL_RETRY_BACKOFF_BASE": "0.2",
    "STRUCTCRAWL_RETRY_BACKOFF_MAX": "1",
    "STRUCTCRAWL_RETRY_AFTER_MAX": "5",
    "DOWNLOAD_MAXSIZE": "1000000",
    "REDIRECT_MAX_TIMES": "5",
    "STRUCTCRAWL_RENDER_ENABLED": "False",
    "CONCURRENT_REQUESTS_PER_DOMAIN": "32",
}


def _read(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def _stats(out: Path) -> dict[str, int]:
    log = (out / "crawl.log").read_text()
    return {k: int(v) for k, v in re.findall(r"'([a-z_]+/[^']+)': (\d+)", log)}


@pytest.fixture(scope="module")
def faults(tmp_path_factory):
    out = tmp_path_factory.mktemp("faults")
    with FaultServer(log=out / "server.log") as server:
        urls = {server.url + p.format(port=server.port): p for p in CASES}
        extra = ["-a", "start_urls=" + ",".join(urls), "-a", "depth=0"]
        for name, value in SETTINGS.items():
            extra += ["-s", f"{name}={value}"]
        code = run_crawl(None, out, *extra, timeout=180)
        hits = server.hits()
    return {
        "code": code,
        "out": out,
        "urls": urls,
        "hits": hits,
        "ledger": _read(out / "report" / "ledger.jsonl"),
        "pages": _read(out / "pages.jsonl"),
        "stats": _stats(out),
    }


@pytest.mark.crawl
@pytest.mark.timeout(240)
def test_the_crawl_survives_every_fault_and_exits_zero(faults):
    assert faults["code"] == 0, (faults["out"] / "crawl.log").read_text()[-4000:]


@pytest.mark.crawl
def test_every_url_ends_in_the_ledger_with_the_right_reason(faults):
    by_url = {line["url"]: line for line in faults["ledger"]}
    assert len(faults["ledger"]) == len(CASES)  # exactly one outcome per requested URL
    got = {faults["urls"][url]: line["outcome"] for url, line in by_url.items()}
    assert got == {path: outcome for path, (outcome, _) in CASES.items()}
    assert all(line["problem"] is None for line in faults["ledger"])
    wrong = by_url[next(u for u, p in faults["urls"].items() if p == "/wrong-type/w1")]
    assert wrong["content_type"] == "text/html" and wrong["payload_kind"] == "image"
    robots = by_url[next(u for u, p in faults["urls"].items() if p.startswith("/private/"))]
    assert robots["message"] == "Forbidden by robots.txt"
    assert all(line["message"] for line in faults["ledger"] if line["outcome"].startswith("error:"))


@pytest.mark.crawl
def test_transient_failures_are_retried_and_deterministic_ones_are_not(faults):
    hits = faults["hits"]
    for path, (_, attempts) in CASES.items():
        server_path = path.split("?")[0]
        if server_path == "/redirect":
            continue
        assert len(hits.get(server_path, [])) == attempts, path
    assert len(hits["/loop/b"]) == 1  # the loop is seen once, not followed again
    assert "/ok/elsewhere.html" not in hits  # the off-site redirect was not followed


@pytest.mark.crawl
def test_retries_back_off_and_honour_retry_after(faults):
    b1 = [h["t"] for h in faults["hits"]["/burst/b1"]]
    assert b1[1] - b1[0] >= 0.2 and b1[2] - b1[1] >= 0.4  # 0.2 s, then doubled
    b3 = [h["t"] for h in faults["hits"]["/burst/b3"]]
    assert b3[1] - b3[0] >= 1.0  # Retry-After: 1
    stats = faults["stats"]
    assert stats["structcrawl/retry/retry_after/honoured"] == 1
    assert stats["structcrawl/retry/retry_after/too_long"] == 1
    assert stats["structcrawl/redirect/redirect-loop"] == 1
    assert stats["structcrawl/ledger/requested"] == len(CASES)
    assert stats["structcrawl/ledger/accounted"] == len(CASES)
    assert "structcrawl/failure/ledger/unaccounted" not in stats


@pytest.mark.crawl
def test_the_ledger_check_agrees_with_the_pages_feed(faults, capsys):
    out = faults["out"]
    code = cli_main(
        ["ledger", str(out / "report" / "ledger.jsonl"), "--pages", str(out / "pages.jsonl")]
    )
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert f"requested {len(CASES)}, accounted {len(CASES)}" in printed
    report = json.loads((out / "report" / "report.json").read_text())
    assert report["ledger"]["requested"] == report["ledger"]["accounted"] == len(CASES)
    assert (
        "Every requested URL has exactly one outcome"
        in (out / "report" / "report.html").read_text()
    )
