"""Secrets never reach the output, and pages cannot take the crawl elsewhere.

* A crawl that sends ``Authorization`` and ``Cookie`` (``DEFAULT_REQUEST_HEADERS``) through a
  proxy with credentials, against a server answering with ``Set-Cookie`` and
  ``WWW-Authenticate``, at ``LOG_LEVEL=DEBUG``: no secret value appears in the feeds, the
  report, the ledger, the crawl log or the body store.
* ``file://`` URLs are refused by the spider.
* A rendered page cannot navigate to ``file:`` or to another host, nor fetch from one, unless
  ``STRUCTCRAWL_RENDER_ALLOWED_HOSTS`` says so.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
from pathlib import Path

import pytest

from structcrawl.core.zstdlib import zstd
from structcrawl.dev.demo import run_crawl
from structcrawl.render.browser import locate_chromium
from structcrawl.spiders.site import SiteSpider
from tests.faultserver import FaultServer

SERVER_SECRET = "srv-5ecret-7f3a9c"
BEARER_SECRET = "bearer-5ecret-1b2c3d"
COOKIE_SECRET = "cookie-5ecret-4e5f6a"
PROXY_SECRET = "proxy-5ecret-8d9e0f"
PROXY_BASIC = base64.b64encode(f"crawler:{PROXY_SECRET}".encode()).decode()
SECRETS = (SERVER_SECRET, BEARER_SECRET, COOKIE_SECRET, PROXY_SECRET, PROXY_BASIC)


def test_file_urls_are_refused_by_the_spider():
    for kwargs in (
        {"start_urls": "file:///etc/passwd"},
        {"sitemap": "file:///etc/sitemap.xml"},
        {"start_urls": "http://a.example/,ftp://a.example/x"},
    ):
        with pytest.raises(ValueError, match="refusing non-http"):
            SiteSpider(**kwargs)


def _files(out: Path) -> dict[str, str]:
    """Every file the crawl wrote, as text (the stored bodies decompressed)."""
    texts = {}
    for path in out.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            if path.suffix == ".gz":
                data = gzip.decompress(data)
            elif path.suffix == ".zst":
                data = zstd.decompress(data)
            texts[str(path.relative_to(out))] = data.decode("utf-8", "replace")
    return texts


@pytest.fixture(scope="module")
def secret_crawl(tmp_path_factory):
    out = tmp_path_factory.mktemp("secrets")
    headers = {"Authorization": f"Bearer {BEARER_SECRET}", "Cookie": f"sid={COOKIE_SECRET}"}
    saved = {k: os.environ.get(k) for k in ("http_proxy", "no_proxy", "NO_PROXY", "HTTP_PROXY")}
    with FaultServer(secret=SERVER_SECRET) as server:
        try:
            for key in ("no_proxy", "NO_PROXY", "HTTP_PROXY"):
                os.environ.pop(key, None)
            os.environ["http_proxy"] = f"http://crawler:{PROXY_SECRET}@127.0.0.1:{server.port}"
            urls = [f"{server.url}/secret/{n}" for n in ("a", "b", "c")] + [
                f"{server.url}/ok/x.html"
            ]
            code = run_crawl(
                None,
                out,
                "-a",
                "start_urls=" + ",".join(urls),
                "-a",
                "depth=0",
                "-s",
                "DEFAULT_REQUEST_HEADERS=" + json.dumps(headers),
                "-s",
                "COOKIES_ENABLED=False",  # the Cookie header is then sent as it is
                "-s",
                "STRUCTCRAWL_RENDER_ENABLED=False",
                "-s",
                "LOG_LEVEL=DEBUG",
                timeout=120,
            )
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
        hits = server.hits()
    return {"code": code, "out": out, "hits": hits, "files": _files(out)}


@pytest.mark.crawl
def test_the_crawl_really_sent_and_received_the_secrets(secret_crawl):
    assert secret_crawl["code"] == 0, secret_crawl["files"].get("crawl.log", "")[-3000:]
    seen = [h for hits in secret_crawl["hits"].values() for h in hits]
    assert seen and all(h["proxied"] for h in seen)  # every request went through the proxy
    sent = {k.lower(): v for h in seen for k, v in h["headers"].items()}
    assert sent["authorization"] == f"Bearer {BEARER_SECRET}"
    assert COOKIE_SECRET in sent["cookie"]
    assert sent["proxy-authorization"] == f"Basic {PROXY_BASIC}"
    page = next(
        json.loads(x) for x in secret_crawl["files"]["pages.jsonl"].splitlines() if "/secret/a" in x
    )
    assert page["headers"]["Set-Cookie"] == ["[REDACTED]"]
    assert page["headers"]["Www-Authenticate"] == ["[REDACTED]"]


@pytest.mark.crawl
def test_no_secret_in_feeds_report_ledger_log_or_body_store(secret_crawl):
    files = secret_crawl["files"]
    for name in (
        "pages.jsonl",
        "records.jsonl",
        "crawl.log",
        "report/report.json",
        "report/report.html",
        "report/ledger.jsonl",
    ):
        assert name in files, sorted(files)
    bodies = [text for name, text in files.items() if name.startswith("bodies/")]
    assert any("<html" in text.lower() for text in bodies)  # read as the pages, not compressed
    leaks = [(name, s) for name, text in files.items() for s in SECRETS if s in text]
    assert leaks == []


def _chromium() -> str:
    location = locate_chromium(None)
    problem = location.problem()
    if problem:
        message = f"the browser guard test needs Chromium: {problem}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return str(location.path)


def _guard_crawl(tmp_path: Path, *extra: str) -> dict:
    _chromium()
    out = tmp_path / "out"
    with FaultServer() as server:
        other = f"http://localhost:{server.port}"  # the same server under another host name
        code = run_crawl(
            None,
            out,
            "-a",
            f"start_urls={server.url}/js/guard.html?other={other}",
            "-a",
            "depth=0",
            "-s",
            "STRUCTCRAWL_RENDER_WAIT_TIMEOUT=3",
            *extra,
            timeout=240,
        )
        hits = server.hits()
    pages = [json.loads(x) for x in (out / "pages.jsonl").read_text().splitlines()]
    records = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
    log = (out / "crawl.log").read_text()
    return {
        "code": code,
        "hits": hits,
        "pages": pages,
        "records": records,
        "log": log,
        "files": _files(out),
    }


@pytest.mark.crawl
@pytest.mark.timeout(300)
def test_a_rendered_page_cannot_leave_the_crawl(tmp_path):
    result = _guard_crawl(tmp_path)
    assert result["code"] == 0, result["log"][-3000:]
    [page] = result["pages"]
    assert page["fetched_with"] == "browser" and page["fetch_error"] is None
    assert page["final_url"].startswith("http://127.0.0.1:")
    names = {r["properties"].get("name") for r in result["records"] if r["kind"] == "entity"}
    assert "guarded" in names  # the page rendered in place
    assert "/ok/exfiltrated.html" not in result["hits"]  # the fetch to another host
    assert "/ok/navigated.html" not in result["hits"]  # the navigation to another host
    assert "/ok/popup.html" not in result["hits"]  # a window opened on another host
    assert "'structcrawl/render/blocked/offsite': " in result["log"]
    assert not any("root:x:0:0" in text for text in result["files"].values())


@pytest.mark.crawl
@pytest.mark.timeout(300)
def test_allowed_hosts_let_the_page_reach_another_host(tmp_path):
    # localhost is a loopback address too: the address policy must allow it as well
    result = _guard_crawl(
        tmp_path,
        "-s",
        "STRUCTCRAWL_RENDER_ALLOWED_HOSTS=localhost",
        "-s",
        "STRUCTCRAWL_ADDRESS_ALLOW=localhost:*",
    )
    assert result["code"] == 0, result["log"][-3000:]
    assert "/ok/exfiltrated.html" in result["hits"]
    assert "/ok/popup.html" in result["hits"]
    assert "structcrawl/render/blocked/offsite" not in result["log"]


URL_SECRET = "url-5ecret-6a7b8c"


def test_credentials_in_the_start_url_are_sent_as_basic_auth_and_never_stored(tmp_path):
    import http.server
    import threading

    expected = "Basic " + base64.b64encode(f"crawler:{URL_SECRET}".encode()).decode()
    seen: list[tuple[str, str | None]] = []
    pages = {
        "/": b'<html><body><a href="p1.html">1</a><a href="gone.html">x</a></body></html>',
        "/p1.html": b'<html><head><script type="application/ld+json">{"@context": '
        b'"https://schema.org", "@type": "Product", "@id": "#p", "name": "P"}</script>'
        b"</head><body>p1</body></html>",
    }

    class Guarded(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append((self.path, self.headers.get("Authorization")))
            if self.headers.get("Authorization") != expected:
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="x"')
                self.end_headers()
                return
            body = pages.get(self.path)
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(body or b"no")

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Guarded)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    out = tmp_path / "out"
    try:
        code = run_crawl(
            f"http://crawler:{URL_SECRET}@127.0.0.1:{port}/",
            out,
            "-s",
            "LOG_LEVEL=DEBUG",
            "-s",
            "STRUCTCRAWL_RENDER_ENABLED=False",
            timeout=120,
        )
    finally:
        server.shutdown()
        server.server_close()
    paths = {path for path, _ in seen}
    assert {"/robots.txt", "/", "/p1.html", "/gone.html"} <= paths
    assert all(auth == expected for _, auth in seen)  # every request authenticated
    assert code == 0, (out / "crawl.log").read_text()[-3000:]
    statuses = {json.loads(line)["url"]: json.loads(line)["status"]
                for line in (out / "pages.jsonl").read_text().splitlines()}  # fmt: skip
    base = f"http://127.0.0.1:{port}/"
    assert statuses == {base: 200, base + "p1.html": 200, base + "gone.html": 404}
    records = (out / "records.jsonl").read_text()
    assert f"{base}p1.html#p" in records  # ids resolved against the bare URL
    leaked = [name for name, text in _files(out).items() if URL_SECRET in text]
    assert leaked == []
