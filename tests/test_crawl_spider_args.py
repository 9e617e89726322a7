"""The ``site`` spider's arguments, against a small site written per test on 127.0.0.1."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from structcrawl.dev.demo import run_crawl
from structcrawl.dev.devserver import BackgroundServer

pytestmark = pytest.mark.crawl

PAGES = {
    "index.html": '<a href="a.html">a</a> <a href="dir">dir</a> <a href="private/p.html">p</a>'
    ' <a href="img.png">img</a>',
    "a.html": '<a href="b.html">b</a>',
    "b.html": "<p>deep</p>",
    "c.html": '<a href="d.html">d</a>',
    "d.html": "<p>from sitemap</p>",
    "dir/index.html": "<p>a directory</p>",
    "private/p.html": "<p>disallowed</p>",
}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("site")
    for name, body in PAGES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"<html><body>{body}</body></html>")
    (root / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (root / "robots.txt").write_text("User-agent: *\nDisallow: /private/\n")
    with BackgroundServer(root) as server:
        (root / "sitemap.xml").write_text(
            '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
            f"<url><loc>{server.url}c.html</loc></url></urlset>"
        )
        # a gzipped sitemap naming another page (served as application/gzip, not decoded
        # by HttpCompression): it is a sitemap, not a page
        (root / "sitemap-b.xml.gz").write_bytes(
            gzip.compress(
                b'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                + f"<url><loc>{server.url}b.html</loc></url></urlset>".encode()
            )
        )
        yield server.url


def crawl(tmp_path: Path, start: str | None, *args: str) -> tuple[list[dict], list[dict]]:
    assert run_crawl(start, tmp_path, *args, timeout=120) == 0
    pages = [json.loads(x) for x in (tmp_path / "pages.jsonl").read_text().splitlines()]
    records = [json.loads(x) for x in (tmp_path / "records.jsonl").read_text().splitlines()]
    return pages, records


def paths(pages: list[dict], base: str) -> set[str]:
    return {p["url"][len(base) - 1 :] for p in pages}


def test_depth_limit_redirects_robots_and_extensions(site, tmp_path):
    pages, records = crawl(tmp_path, site, "-a", "depth=1")
    assert paths(pages, site) == {"/", "/a.html", "/dir", "/private/p.html"}
    redirected = next(p for p in pages if p["url"].endswith("/dir"))
    assert redirected["final_url"] == site + "dir/"
    assert redirected["redirect_urls"] == [site + "dir"]
    assert redirected["status"] == 200
    blocked = next(p for p in pages if p["url"].endswith("/private/p.html"))
    assert blocked["status"] is None and blocked["fetch_error"]["code"] == "fetch-IgnoreRequest"
    blocked_records = [r for r in records if r["source_url"].endswith("/private/p.html")]
    assert [(r["kind"], r["error"]["code"]) for r in blocked_records] == [
        ("error", "fetch-IgnoreRequest")
    ]


def test_sitemap_start(site, tmp_path):
    pages, _ = crawl(tmp_path, None, "-a", f"sitemap={site}sitemap.xml")
    assert paths(pages, site) == {"/c.html", "/d.html"}


def test_a_gzipped_sitemap_is_read_as_a_sitemap_not_as_a_page(site, tmp_path):
    pages, records = crawl(tmp_path, None, "-a", f"sitemap={site}sitemap-b.xml.gz")
    assert paths(pages, site) == {"/b.html"}
    assert not [r for r in records if r["source_url"].endswith(".xml.gz")]


def test_follow_and_deny_patterns(site, tmp_path):
    pages, _ = crawl(tmp_path, site, "-a", "follow=/a\\.html,/b\\.html", "-a", "deny=/b")
    assert paths(pages, site) == {"/", "/a.html"}


def test_non_http_start_urls_are_refused(tmp_path):
    assert run_crawl("file:///etc/passwd", tmp_path, timeout=120) != 0
