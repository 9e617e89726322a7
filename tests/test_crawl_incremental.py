"""End to end: an incremental re-crawl revalidates pages with HTTP validators and reports each
entity as new / changed / unchanged / gone.

The site is served by a small server (this file run as a script, on 127.0.0.1, stopped by
PID) that sends ``ETag`` and ``Last-Modified``, answers ``304`` to matching conditional
requests and logs every request with its validators.
"""

from __future__ import annotations

import email.utils
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.crawl

LONG_AGO = time.time() - 30 * 86400  # heuristic freshness would skip such pages for 3 days


def product(slug: str, name: str, price: str) -> str:
    data = {
        "@context": "https://schema.org",
        "@type": "Product",
        "@id": f"https://shop.example/p/{slug}#product",
        "name": name,
        "sku": slug.upper(),
        "offers": {"@type": "Offer", "price": price, "priceCurrency": "EUR"},
    }
    return (
        f'<!doctype html><html lang="en"><head><title>{name}</title>'
        f'<script type="application/ld+json">{json.dumps(data)}</script></head>'
        f"<body><h1>{name}</h1></body></html>"
    )


INDEX = (
    '<!doctype html><html lang="en"><head><title>Shop</title><script type="application/ld+json">'
    '{"@context": "https://schema.org", "@type": "Organization", "@id": "https://shop.example/#org",'
    ' "name": "Shop", "url": "https://shop.example/"}</script></head><body>'
    '<a href="/p/alpha.html">alpha</a> <a href="/p/beta.html">beta</a>'
    ' <a href="/p/gamma.html">gamma</a></body></html>'
)


def write_site(root: Path) -> None:
    (root / "p").mkdir(parents=True, exist_ok=True)
    (root / "index.html").write_text(INDEX)
    (root / "p" / "alpha.html").write_text(product("alpha", "Alpha Boot", "129.99"))
    (root / "p" / "beta.html").write_text(product("beta", "Beta Shell", "89.00"))
    (root / "p" / "gamma.html").write_text(product("gamma", "Gamma Sock", "9.50"))
    for path in root.rglob("*.html"):
        os.utime(path, (LONG_AGO, LONG_AGO))


# -- the server (run as a script) ------------------------------------------------------------


class _Handler(BaseHTTPRequestHandler):
    root: Path
    log: Path

    def do_GET(self) -> None:  # noqa: N802
        path = self.path.split("?", 1)[0]
        target = self.root / path.lstrip("/")
        if target.is_dir():
            target = target / "index.html"
        inm = self.headers.get("If-None-Match")
        ims = self.headers.get("If-Modified-Since")
        if not target.is_file():
            self._reply(path, inm, ims, 404, b"not found", {})
            return
        body = target.read_bytes()
        mtime = int(target.stat().st_mtime)
        etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
        headers = {"ETag": etag, "Last-Modified": email.utils.formatdate(mtime, usegmt=True)}
        if inm is not None:
            not_modified = etag in [t.strip() for t in inm.split(",")] or inm.strip() == "*"
        elif ims is not None:
            since = email.utils.parsedate_to_datetime(ims).timestamp()
            not_modified = mtime <= since
        else:
            not_modified = False
        self._reply(path, inm, ims, 304 if not_modified else 200, body, headers)

    def _reply(
        self, path: str, inm: str | None, ims: str | None, status: int, body: bytes, headers: dict
    ) -> None:
        with self.log.open("a") as log:
            log.write(json.dumps({"path": path, "inm": inm, "ims": ims, "status": status}) + "\n")
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        if status != 304:
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if status != 304:
            self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass


def serve(root: str, portfile: str, log: str) -> None:
    _Handler.root, _Handler.log = Path(root), Path(log)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    Path(portfile).write_text(str(server.server_address[1]))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    server.serve_forever()


class ValidatorServer:
    def __init__(self, root: Path, log: Path):
        self.root, self.log = root, log
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> str:
        portfile = self.log.with_suffix(".port")
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "serve", str(self.root), str(portfile), str(self.log)]
        )
        deadline = time.monotonic() + 20
        while not (portfile.exists() and portfile.read_text().strip()):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.__exit__()
                raise RuntimeError("the validator server did not start")
            time.sleep(0.05)
        return f"http://127.0.0.1:{portfile.read_text().strip()}/"

    def __exit__(self, *exc: Any) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait()

    def requests(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines() if line]


# -- the crawls ---------------------------------------------------------------------------------


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def _crawl(url: str, out: Path, server: ValidatorServer) -> dict[str, Any]:
    from structcrawl.dev.demo import run_crawl

    before = len(server.requests())
    code = run_crawl(
        url,
        out,
        "-s",
        "STRUCTCRAWL_INCREMENTAL=True",
        "-s",
        "STRUCTCRAWL_RENDER_ENABLED=False",
        "-O",
        f"{out / 'delta.jsonl'}:entities-delta",
        timeout=120,
    )
    base = url.rstrip("/")
    return {
        "code": code,
        "log": (out / "crawl.log").read_text()[-3000:],
        "requests": {
            r["path"]: r for r in server.requests()[before:] if r["path"] != "/robots.txt"
        },
        "pages": {p["url"][len(base) :]: p for p in _lines(out / "pages.jsonl")},
        "records": _lines(out / "records.jsonl"),
        "entities": {e["key"]: e for e in _lines(out / "entities.jsonl")},
        "delta": {e["key"]: e for e in _lines(out / "delta.jsonl")},
        "report": json.loads((out / "report" / "report.json").read_text()),
        "html": (out / "report" / "report.html").read_text(),
    }


ORG = "id:https://shop.example/#org"
ALPHA, BETA, GAMMA = (f"id:https://shop.example/p/{s}#product" for s in ("alpha", "beta", "gamma"))


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("incremental")
    site, out = tmp / "site", tmp / "out"
    write_site(site)
    server = ValidatorServer(site, tmp / "requests.log")
    with server as url:
        first = _crawl(url, out, server)
        # between the runs: one price changes, one product page disappears
        (site / "p" / "beta.html").write_text(product("beta", "Beta Shell", "79.00"))
        (site / "p" / "gamma.html").unlink()
        second = _crawl(url, out, server)
        third = _crawl(url, out, server)  # nothing changed since the second run
    return {"first": first, "second": second, "third": third, "out": out}


def test_every_run_exits_zero(runs):
    for name in ("first", "second", "third"):
        assert runs[name]["code"] == 0, runs[name]["log"]


def test_first_run_fetches_plainly_and_every_entity_is_new(runs):
    first = runs["first"]
    assert set(first["requests"]) == {"/", "/p/alpha.html", "/p/beta.html", "/p/gamma.html"}
    assert all(r["inm"] is None and r["ims"] is None for r in first["requests"].values())
    assert {p["http_cache"] for p in first["pages"].values()} == {"miss"}
    assert {k: e["change"]["status"] for k, e in first["delta"].items()} == {
        ORG: "new",
        ALPHA: "new",
        BETA: "new",
        GAMMA: "new",
    }
    assert (runs["out"] / "state" / "httpcache").is_dir()


def test_second_run_revalidates_with_conditional_requests(runs):
    second = runs["second"]
    requests = second["requests"]
    assert set(requests) == {"/", "/p/alpha.html", "/p/beta.html", "/p/gamma.html"}
    for path, request in requests.items():
        assert request["inm"] and request["ims"], path  # If-None-Match and If-Modified-Since
    statuses = {path: r["status"] for path, r in requests.items()}
    assert statuses == {"/": 304, "/p/alpha.html": 304, "/p/beta.html": 200, "/p/gamma.html": 404}
    stats = second["report"]["stats"]
    assert stats["httpcache/revalidate"] == 2 and stats["httpcache/invalidate"] == 2


def test_revalidated_pages_still_go_through_extraction(runs):
    pages = runs["second"]["pages"]
    assert {path: p["http_cache"] for path, p in pages.items()} == {
        "/": "revalidated",
        "/p/alpha.html": "revalidated",
        "/p/beta.html": "modified",
        "/p/gamma.html": "modified",
    }
    assert pages["/p/alpha.html"]["status"] == 200 and pages["/p/alpha.html"]["record_count"] == 1
    alpha = [r for r in runs["second"]["records"] if r["id"] == ALPHA[3:]]
    assert alpha and alpha[0]["properties"]["offers"]["properties"]["price"] == "129.99"


def test_entities_are_unchanged_changed_or_gone(runs):
    first, second = runs["first"], runs["second"]
    entities = second["entities"]
    assert {k: e["change"]["status"] for k, e in entities.items()} == {
        ORG: "unchanged",
        ALPHA: "unchanged",
        BETA: "changed",
    }  # the entities feed holds what this run saw: gone ones are in the delta only
    assert entities[BETA]["change"]["fields"] == ["offers.price"]
    assert entities[BETA]["properties"]["offers"]["price"] == "79.00"
    assert entities[ALPHA]["change"]["previous_seen"] == first["delta"][ALPHA]["last_seen"]
    assert (
        entities[ALPHA]["change"]["fingerprint"] == first["delta"][ALPHA]["change"]["fingerprint"]
    )


def test_delta_feed_has_only_new_changed_and_gone_entities(runs):
    delta = runs["second"]["delta"]
    assert {k: e["change"]["status"] for k, e in delta.items()} == {BETA: "changed", GAMMA: "gone"}
    gone = delta[GAMMA]
    assert gone["properties"]["name"] == "Gamma Sock"  # its last known state
    assert gone["change"]["previous_seen"] == runs["first"]["delta"][GAMMA]["last_seen"]
    assert runs["third"]["delta"] == {}  # gone is reported once; nothing changed since


def test_report_counts_changes(runs):
    report = runs["second"]["report"]
    changes = {k: v for k, v in report["changes"].items() if k != "top_changed_fields"}
    assert changes == {"new": 0, "changed": 1, "unchanged": 2, "gone": 1}
    assert report["changes"]["top_changed_fields"] == {"Product.offers.price": 1}
    assert report["entities"]["total"] == 3  # gone entities are not part of this crawl
    assert report["pages"]["by_http_cache"] == {"revalidated": 2, "modified": 2}
    assert "Changes since the previous run" in runs["second"]["html"]
    third = runs["third"]["report"]["changes"]
    assert (third["unchanged"], third["gone"], third["new"]) == (3, 0, 0)


if __name__ == "__main__" and sys.argv[1:2] == ["serve"]:
    serve(*sys.argv[2:5])
