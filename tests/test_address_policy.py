"""The address policy (docs/security.md): a page served by one loopback server cannot make
the crawl reach a second one (standing in for an internal service) that the operator did not
name, over HTTP or in the browser, by link, redirect, meta refresh, sitemap, script,
subresource, fetch, XHR or navigation, under its address or under a name; every attempt ends
as an ``address-refused`` record. Allowed (``STRUCTCRAWL_ADDRESS_ALLOW``), it receives them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from structcrawl.dev.demo import run_crawl
from tests.faultserver import FaultServer
from tests.test_security import _chromium


def _crawl(out: Path, public: FaultServer, start: list[str], *extra: str) -> dict:
    code = run_crawl(
        None,
        out,
        "-a",
        "start_urls=" + ",".join(f"{public.url}{p}" for p in start),
        "-a",
        "allowed_domains=127.0.0.1,localhost",
        "-a",
        "depth=1",
        *extra,
        timeout=240,
    )
    pages = [json.loads(x) for x in (out / "pages.jsonl").read_text().splitlines()]
    records = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
    return {
        "code": code,
        "pages": pages,
        "records": records,
        "log": (out / "crawl.log").read_text(),
    }


def _refused(result: dict) -> list[dict]:
    return [r for r in result["records"] if (r.get("error") or {}).get("code") == "address-refused"]


_HTTP_PATHS = [
    "/ssrf/links.html?to={to}",
    "/ssrf/refresh.html?to={to}",
    "/redirect?to={to}/ok/redirected.html",
]
_HTTP_HITS = {"/ok/linked.html", "/ok/refreshed.html", "/ok/redirected.html"}


@pytest.mark.crawl
@pytest.mark.timeout(300)
@pytest.mark.parametrize("name", [False, True], ids=["address", "name"])
def test_pages_cannot_steer_the_http_path_to_another_loopback_port(tmp_path, name):
    with FaultServer() as public, FaultServer() as internal:
        to = f"http://localhost:{internal.port}" if name else internal.url
        result = _crawl(
            tmp_path,
            public,
            [p.format(to=to) for p in _HTTP_PATHS],
            "-s",
            "STRUCTCRAWL_RENDER_ENABLED=False",
        )
        hits = internal.hits()
    assert result["code"] == 0, result["log"][-3000:]
    assert hits == {}
    refused = _refused(result)
    assert len(refused) == 3, [r.get("error") for r in result["records"]]
    for record in refused:
        assert f":{internal.port} resolves to 127.0.0.1 (loopback)" in record["error"]["message"]
    names = {r["properties"].get("name") for r in result["records"] if r["kind"] == "entity"}
    assert {"links", "Thing"} & names or "links" in names  # the operator's own pages were read
    assert "structcrawl/address/refused/loopback" in result["log"]


@pytest.mark.crawl
@pytest.mark.timeout(300)
def test_allowed_the_http_path_reaches_the_second_server(tmp_path):
    with FaultServer() as public, FaultServer() as internal:
        result = _crawl(
            tmp_path,
            public,
            [p.format(to=internal.url) for p in _HTTP_PATHS],
            "-s",
            "STRUCTCRAWL_RENDER_ENABLED=False",
            "-s",
            f"STRUCTCRAWL_ADDRESS_ALLOW=127.0.0.1:{internal.port}",
        )
        hits = internal.hits()
    assert result["code"] == 0, result["log"][-3000:]
    assert set(hits) - {"/robots.txt"} == _HTTP_HITS
    assert _refused(result) == []


_BROWSER_HITS = {
    "/ok/script.js",
    "/ok/frame.html",
    "/ok/fetched.html",
    "/ok/xhr.html",
    "/ok/fetch-redirected.html",
    "/ok/navigated.html",
    "/ok/redirected.html",
}


def _browser_crawl(tmp_path: Path, *extra: str, name: bool = False) -> tuple[dict, dict, int]:
    _chromium()
    with FaultServer() as public, FaultServer() as internal:
        to = f"http://localhost:{internal.port}" if name else internal.url
        result = _crawl(
            tmp_path,
            public,
            [f"/ssrf/{kind}.html?to={to}" for kind in ("browser", "navigate")],
            "-a",
            "depth=0",
            "-s",
            "STRUCTCRAWL_RENDER_WAIT_TIMEOUT=3",
            *extra,
        )
        return result, internal.hits(), internal.port


@pytest.mark.crawl
@pytest.mark.timeout(300)
@pytest.mark.parametrize("name", [False, True], ids=["address", "name"])
def test_a_rendered_page_cannot_reach_another_loopback_port(tmp_path, name):
    result, hits, port = _browser_crawl(tmp_path, name=name)
    assert result["code"] == 0, result["log"][-3000:]
    assert hits == {}
    pages = {p["url"].split("?")[0].rsplit("/", 1)[-1]: p for p in result["pages"]}
    assert {p["fetched_with"] for p in pages.values()} == {"browser"}
    # the page's own navigation redirected to the internal server: the page is refused
    assert pages["navigate.html"]["fetch_error"]["code"] == "address-refused"
    # the rest of what the page loaded: one address-refused record each, the page kept
    assert pages["browser.html"]["fetch_error"] is None
    refused = _refused(result)
    urls = {
        r["error"]["message"].split(": ", 1)[0].split("?")[0].rsplit("/", 1)[-1] for r in refused
    }
    # the redirect of a fetch is refused by the egress proxy (the server above got nothing),
    # but its record depends on the page's response event arriving before the render ends:
    # under load it can come too late (a known gap, docs/security.md), so it is not required
    assert urls >= {"script.js", "frame.html", "fetched.html", "xhr.html", "navigated.html"}, urls
    assert all(
        f":{port} resolves to 127.0.0.1 (loopback)" in r["error"]["message"] for r in refused
    )
    names = {r["properties"].get("name") for r in result["records"] if r["kind"] == "entity"}
    assert "steered" in names  # the page rendered in place


@pytest.mark.crawl
@pytest.mark.timeout(300)
def test_allowed_a_rendered_page_reaches_the_second_server(tmp_path):
    result, hits, port = _browser_crawl(tmp_path, "-s", "STRUCTCRAWL_ADDRESS_ALLOW=127.0.0.1:*")
    assert result["code"] == 0, result["log"][-3000:]
    assert set(hits) - {"/robots.txt"} == _BROWSER_HITS, sorted(hits)
    assert _refused(result) == []
