"""The browser under the crawl's rules (structcrawl.render.egress, structcrawl.render._headers):
its egress proxy checks every address it connects to (rebinding and mixed answers refused),
cuts responses past the size limit, goes on through the crawl's own proxy; the crawl's
credentials reach only the host they were set for."""

from __future__ import annotations

import asyncio
import json
import os
import socket

import pytest

from bench.bench_browser_bombs import crawl as bombs_crawl
from bench.bench_browser_bombs import serve_bombs
from structcrawl.core.addresses import AddressPolicy
from structcrawl.dev.demo import run_crawl
from structcrawl.render.egress import EgressProxy, Upstream
from tests.faultserver import FaultServer
from tests.test_security import _chromium


async def _ask(proxy_url: str, head: bytes) -> bytes:
    host, port = proxy_url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(head)
    await writer.drain()
    data = await asyncio.wait_for(reader.read(), 20)
    writer.close()
    return data


def _proxy_get(proxy: EgressProxy, url: str) -> bytes:
    async def run() -> bytes:
        try:
            return await _ask(
                await proxy.start(), f"GET {url} HTTP/1.1\r\nHost: x\r\n\r\n".encode()
            )
        finally:
            await proxy.close()

    return asyncio.run(run())


def test_the_egress_proxy_refuses_an_unnamed_loopback_port():
    with FaultServer() as public, FaultServer() as internal:
        policy = AddressPolicy()
        policy.name(public.url)
        proxy = EgressProxy(policy)
        assert b"HTTP/1.0 200" in _proxy_get(proxy, f"{public.url}/ok/a.html")
        refused = _proxy_get(proxy, f"{internal.url}/ok/b.html")
        assert refused.startswith(b"HTTP/1.1 403") and b"(loopback)" in refused
        assert proxy.refusal_for(f"{internal.url}/x").rule == "loopback"
        assert internal.hits() == {}


def test_a_name_that_rebinds_or_answers_mixed_is_refused(monkeypatch):
    """The proxy connects to the addresses it checked: a name whose second answer is internal
    (rebinding), or whose answer mixes a public and an internal address, never reaches it."""
    with FaultServer() as internal:
        answers = iter([["93.184.216.34", "127.0.0.1"], ["127.0.0.1"]])

        async def getaddrinfo(host, port, **kwargs):
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port)) for a in next(answers)]

        proxy = EgressProxy(AddressPolicy())

        async def run() -> list[bytes]:
            monkeypatch.setattr(asyncio.get_running_loop(), "getaddrinfo", getaddrinfo)
            url = await proxy.start()
            try:
                return [
                    await _ask(
                        url,
                        f"GET http://rebind.example:{internal.port}/ok/x.html "
                        "HTTP/1.1\r\nHost: x\r\n\r\n".encode(),
                    )
                    for _ in range(2)
                ]
            finally:
                await proxy.close()

        first, second = asyncio.run(run())
        assert first.startswith(b"HTTP/1.1 403") and second.startswith(b"HTTP/1.1 403")
        assert internal.hits() == {}


def _read_until_reset(proxy: EgressProxy, url: str) -> tuple[int, bool]:
    """(bytes received, whether the connection was reset) for a GET through ``proxy``."""

    async def run() -> tuple[int, bool]:
        try:
            host, port = (await proxy.start()).removeprefix("http://").split(":")
            reader, writer = await asyncio.open_connection(host, int(port))
            writer.write(f"GET {url} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            await writer.drain()
            received = 0
            try:
                while data := await asyncio.wait_for(reader.read(65536), 20):
                    received += len(data)
            except ConnectionResetError:
                return received, True
            finally:
                writer.close()
            return received, False
        finally:
            await proxy.close()

    return asyncio.run(run())


@pytest.mark.parametrize("chunked", [False, True], ids=["length", "no-length"])
def test_responses_past_the_limit_are_cut_and_fail(chunked):
    """Cut with a reset: a body without Content-Length must not look whole to the browser."""
    with FaultServer() as site:
        policy = AddressPolicy()
        policy.name(site.url)
        proxy = EgressProxy(policy, max_bytes=100_000)
        query = "size=2000000" + ("&chunked=1" if chunked else "")
        received, reset = _read_until_reset(proxy, f"{site.url}/large/x?{query}")
        assert received < 300_000 and reset
        assert proxy.was_cut(f"{site.url}/large/x")


def test_upstream_from_a_proxy_url():
    up = Upstream.from_url("http://crawler:s3cret@127.0.0.1:3128")
    assert (up.host, up.port) == ("127.0.0.1", 3128) and up.authorization.startswith("Basic ")


BEARER = "bearer-scope-5ecret"


@pytest.mark.crawl
@pytest.mark.timeout(300)
def test_the_browser_sends_credentials_only_to_their_host(tmp_path):
    _chromium()
    headers = json.dumps({"Authorization": f"Bearer {BEARER}"})
    with FaultServer() as site, FaultServer() as other:
        code = run_crawl(
            None,
            tmp_path,
            "-a",
            "start_urls="
            + ",".join(
                f"{site.url}/ssrf/{kind}.html?to={other.url}" for kind in ("browser", "navigate")
            ),
            "-a",
            "depth=0",
            "-s",
            f"DEFAULT_REQUEST_HEADERS={headers}",
            "-s",
            "STRUCTCRAWL_ADDRESS_ALLOW=127.0.0.1:*",
            "-s",
            "STRUCTCRAWL_RENDER_WAIT_TIMEOUT=3",
            timeout=240,
        )
        site_hits, other_hits = site.hits(), other.hits()
    assert code == 0, (tmp_path / "crawl.log").read_text()[-3000:]
    # the browser's navigations reached the other host: the iframe, the script's, a redirect's
    assert {"/ok/frame.html", "/ok/navigated.html", "/ok/redirected.html"} <= set(other_hits)
    leaked = [p for p, hits in other_hits.items() for h in hits if BEARER in json.dumps(h)]
    assert leaked == []
    own = [h["headers"] for h in site_hits["/ssrf/browser.html"]]
    assert len(own) == 2 and all(h.get("Authorization") == f"Bearer {BEARER}" for h in own)


@pytest.mark.crawl
@pytest.mark.timeout(300)
def test_the_browser_goes_through_the_crawls_proxy(tmp_path, monkeypatch):
    _chromium()
    for key in ("no_proxy", "NO_PROXY", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY"):
        monkeypatch.delenv(key, raising=False)
    with FaultServer() as site, FaultServer() as proxy:
        monkeypatch.setenv("http_proxy", proxy.url)
        code = run_crawl(
            None,
            tmp_path,
            "-a",
            f"start_urls={site.url}/ssrf/browser.html?to={site.url}",
            "-a",
            "depth=0",
            "-s",
            "STRUCTCRAWL_RENDER_WAIT_TIMEOUT=3",
            timeout=240,
        )
        site_hits, proxy_hits = site.hits(), proxy.hits()
    assert code == 0, (tmp_path / "crawl.log").read_text()[-3000:]
    pages = [json.loads(x) for x in (tmp_path / "pages.jsonl").read_text().splitlines()]
    assert [p["fetched_with"] for p in pages] == ["browser"]
    assert site_hits == {}  # nothing went around the proxy
    for path in ("/ok/script.js", "/ok/fetched.html", "/ok/xhr.html"):  # the browser's own
        assert path in proxy_hits and all(h["proxied"] for h in proxy_hits[path])
    assert os.environ["http_proxy"] == proxy.url


@pytest.mark.crawl
@pytest.mark.timeout(240)
def test_a_rendered_page_cut_short_ends_as_too_large(tmp_path):
    """A page rendered in Chromium that navigates to a body without Content-Length larger
    than DOWNLOAD_MAXSIZE: cut by the egress proxy, it is ``too-large`` (it rendered its
    first bytes with no error when the cut was a plain close)."""
    _chromium()
    with serve_bombs() as site:
        pages, _, _ = bombs_crawl(
            site,
            ["big"],
            tmp_path / "out",
            ("DOWNLOAD_MAXSIZE=2000000", "STRUCTCRAWL_RENDER_TIMEOUT=10"),
        )
    assert [(p["fetched_with"], (p["fetch_error"] or {}).get("code")) for p in pages] == [
        ("browser", "too-large")
    ], (tmp_path / "out" / "crawl.log").read_text()[-3000:]
    assert "is over DOWNLOAD_MAXSIZE (2000000 bytes)" in pages[0]["fetch_error"]["message"]
