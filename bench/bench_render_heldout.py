"""JSON-LD that a page's script adds, on real pages: does the crawl end with it?

    python -m bench.bench_render_heldout [--pages 30] [--recrawl] [--keep DIR] [-s NAME=VALUE ...]

Three sites on three loopback ports, built from the real pages beside the checkout
(``../shared/corpus/products/pages`` and ``../shared/corpus/pages``), each page served at its
own site's URL path (a product page at the path of the URL it was saved from, a news page at
the path of its canonical URL), so the URL templates are as varied as real shops' and
newspapers':

* ``xhr``: product pages whose JSON-LD blocks were cut out of the HTML; an external script
  (``/ld.js``) fetches them with ``XMLHttpRequest`` as a JSON list of block texts and inserts
  each as a ``<script type="application/ld+json">``;
* ``onload``: news pages whose JSON-LD blocks were cut out; an external script of the page's
  own writes them into the DOM on ``load``;
* ``control``: other real pages, unchanged.

The blocks are moved as their text is, malformed ones too (those end as error records,
whichever way the page is fetched). The three sitemaps are crawled in one run by the
project's command, default settings:
``structcrawl crawl --sitemap URL ... -o DIR --depth 0 -s AUTOTHROTTLE_ENABLED=False
-s DOWNLOAD_DELAY=0``. Reported per site: pages (URLs) that end with JSON-LD entity records, pages
fetched with the browser and why (a page fetched over HTTP before its site was learned, and
fetched again in the browser, counts once: as rendered). Ends with one line:
``xhr_with_jsonld=N onload_with_jsonld=N control_rendered=N pages=N seconds=N exit=N``, with
``--recrawl`` also ``recrawl_rendered=N recrawl_from_cache=N recrawl_seconds=N`` (the same
crawl again, ``--overwrite`` into the same folder: pages the browser rendered again, pages
whose rendered snapshot was reused).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bench.realpages import corpus_dir

ROOT = Path(__file__).resolve().parent.parent
_BLOCK = re.compile(
    rb"<script\b[^>]*\btype\s*=\s*[\"']?application/ld\+json[\"']?[^>]*>(.*?)</script\s*>",
    re.I | re.S,
)
_CANONICAL = re.compile(
    rb"<link\b[^>]*\brel\s*=\s*[\"']?canonical[\"']?[^>]*\bhref\s*=\s*[\"']([^\"'>]+)", re.I
)
_OG_URL = re.compile(
    rb"<meta\b[^>]*\bproperty\s*=\s*[\"']og:url[\"'][^>]*\bcontent\s*=\s*[\"']([^\"'>]+)", re.I
)
_LD_JS = """(function () {
  var src = document.currentScript.getAttribute('data-ld');
  var xhr = new XMLHttpRequest();
  xhr.open('GET', src);
  xhr.onload = function () {
    JSON.parse(xhr.responseText).forEach(function (text) {
      var s = document.createElement('script');
      s.type = 'application/ld+json';
      s.text = text;
      document.head.appendChild(s);
    });
  };
  xhr.send();
})();
"""
_ONLOAD_JS = """window.addEventListener('load', function () {
  %s.forEach(function (text) {
    var s = document.createElement('script');
    s.type = 'application/ld+json';
    s.text = text;
    document.head.appendChild(s);
  });
});
"""


def _has_jsonld(body: bytes) -> bool:
    return _BLOCK.search(body) is not None


def _insert_before_body_end(body: bytes, tag: bytes) -> bytes:
    at = body.lower().rfind(b"</body")
    return body[:at] + tag + body[at:] if at >= 0 else body + tag


def _path_of(url: str | None, fallback: str, taken: set[str]) -> str:
    """A page's path on its test site: its URL's path (and query) when it has one not taken."""
    path = fallback
    if url:
        parts = urlsplit(url)
        candidate = parts.path or "/"
        if parts.query:
            candidate += "?" + parts.query
        if candidate not in ("/", "/sitemap.xml", "/robots.txt", "/ld.js"):
            path = candidate
    if path in taken:
        path = fallback
    taken.add(path)
    return path


def _page_url(body: bytes) -> str | None:
    for pattern in (_CANONICAL, _OG_URL):
        m = pattern.search(body)
        if m:
            return m.group(1).decode("latin-1").replace("&amp;", "&")
    return None


def _pick(count: int) -> dict[str, list[tuple[str, bytes, str | None]]]:
    """(name, body, original URL) of the pages of each site."""
    corpus = corpus_dir().parent  # shared/corpus: pages/ and products/
    truth = json.loads((corpus / "products" / "ground-truth.json").read_text())
    products = [
        (p.stem, p.read_bytes(), truth.get(p.stem, {}).get("url"))
        for p in sorted((corpus / "products" / "pages").glob("*.html"))
    ]
    pages = [(p.stem, p.read_bytes(), None) for p in sorted((corpus / "pages").glob("*.html"))]
    pages = [(name, body, _page_url(body)) for name, body, _ in pages]
    shop = [p for p in products if _has_jsonld(p[1])]
    news = [p for p in pages if _has_jsonld(p[1])]
    # the shop site tops up with real pages carrying JSON-LD from the other corpus
    xhr = (shop + news[::-1])[:count]
    used = {name for name, _, _ in xhr}
    onload = [p for p in news if p[0] not in used][:count]
    used |= {name for name, _, _ in onload}
    rest_pages = [p for p in pages if p[0] not in used]
    rest_products = [p for p in products if p[0] not in used]
    control = [x for pair in zip(rest_pages, rest_products, strict=False) for x in pair][:count]
    return {"xhr": xhr, "onload": onload, "control": control}


def build(count: int, root: Path) -> dict[str, list[str]]:
    """Write each site's files and ``routes.json`` (path -> file) under ``root/<site>``;
    returns the paths of each site's pages."""
    paths: dict[str, list[str]] = {}
    for site, chosen in _pick(count).items():
        folder = root / site
        folder.mkdir(parents=True)
        routes: dict[str, str] = {"/ld.js": "ld.js"}
        (folder / "ld.js").write_text(_LD_JS)
        taken: set[str] = set()
        for n, (_name, body, url) in enumerate(chosen):
            path = _path_of(url, f"/page/{n}.html", taken)
            blocks = [m.group(1).decode("utf-8", "replace") for m in _BLOCK.finditer(body)]
            if site != "control":
                body = _BLOCK.sub(b"", body)
            if site == "xhr":
                (folder / f"ld-{n}.json").write_text(json.dumps(blocks))
                routes[f"/ld/{n}.json"] = f"ld-{n}.json"
                tag = f'<script src="/ld.js" data-ld="/ld/{n}.json"></script>'
                body = _insert_before_body_end(body, tag.encode())
            elif site == "onload":
                (folder / f"s-{n}.js").write_text(_ONLOAD_JS % json.dumps(blocks))
                routes[f"/s/{n}.js"] = f"s-{n}.js"
                body = _insert_before_body_end(body, f'<script src="/s/{n}.js"></script>'.encode())
            (folder / f"page-{n}.html").write_bytes(body)
            routes[path] = f"page-{n}.html"
        (folder / "routes.json").write_text(json.dumps(routes))
        paths[site] = [p for p in routes if routes[p].startswith("page-")]
    return paths


# -- the server (a child process, stopped by PID) ------------------------------------------


def _serve(folder: Path, portfile: Path) -> int:
    routes: dict[str, str] = json.loads((folder / "routes.json").read_text())
    pages = [p for p, f in routes.items() if f.startswith("page-")]

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(self, status: int, ctype: str, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            host = f"http://{self.headers.get('Host')}"
            if self.path == "/robots.txt":
                return self._send(200, "text/plain", b"User-agent: *\nAllow: /\n")
            if self.path == "/sitemap.xml":
                locs = "".join(
                    f"<url><loc>{host}{p.replace('&', '&amp;')}</loc></url>" for p in pages
                )
                body = (
                    '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/'
                    f'sitemap/0.9">{locs}</urlset>'
                ).encode()
                return self._send(200, "application/xml", body)
            name = routes.get(self.path)
            if name is None:
                return self._send(404, "text/plain", b"not found")
            ctype = {".js": "text/javascript", ".json": "application/json"}.get(
                Path(name).suffix, "text/html"
            )
            return self._send(200, ctype, (folder / name).read_bytes())

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt))
    portfile.write_text(str(server.server_address[1]))
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


def _start(folder: Path, tmp: Path) -> tuple[subprocess.Popen[bytes], str]:
    portfile = tmp / f"{folder.name}.port"
    proc = subprocess.Popen(
        [sys.executable, "-m", "bench.bench_render_heldout", "--serve", str(folder), str(portfile)],
        cwd=ROOT,
    )
    deadline = time.monotonic() + 20
    while not (portfile.exists() and portfile.read_text().strip()):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.terminate()
            raise RuntimeError(f"server for {folder} did not start")
        time.sleep(0.05)
    return proc, f"http://127.0.0.1:{portfile.read_text().strip()}"


def _recrawl_counts(out: Path) -> dict[str, int]:
    pages = [p for p in _read(out / "pages.jsonl") if p.get("fetched_with") == "browser"]
    hits = [p for p in pages if (p.get("render") or {}).get("cache")]
    return {"rendered": len(pages) - len(hits), "from_cache": len(hits)}


def _read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines() if x] if path.exists() else []


def measure(
    count: int, work: Path, settings: list[str], timeout: float = 900, recrawl: bool = False
) -> dict[str, Any]:
    """Build the sites under ``work``, crawl them, count (see the module). ``recrawl``: crawl
    them once more into the same folder (``--overwrite``) and count what the browser rendered
    again and what came from the rendered-snapshot cache."""
    sites = build(count, work / "sites")
    procs: list[subprocess.Popen[bytes]] = []
    bases: dict[str, str] = {}
    out = work / "out"
    try:
        for site in sites:
            proc, bases[site] = _start(work / "sites" / site, work)
            procs.append(proc)
        cmd = [sys.executable, "-m", "structcrawl.commandline", "crawl"]
        for site in sites:
            cmd += ["--sitemap", f"{bases[site]}/sitemap.xml"]
        cmd += ["-o", str(out), "--depth", "0", "-s", "AUTOTHROTTLE_ENABLED=False"]
        cmd += ["-s", "DOWNLOAD_DELAY=0"]
        for pair in settings:
            cmd += ["-s", pair]
        started = time.monotonic()
        code = subprocess.run(
            cmd, cwd=ROOT, stdout=subprocess.DEVNULL, check=False, timeout=timeout
        ).returncode
        result: dict[str, Any] = {"code": code, "seconds": round(time.monotonic() - started, 1)}
        result["sites"] = _site_counts(out, bases)
        if recrawl:
            started = time.monotonic()
            subprocess.run(
                [*cmd, "--overwrite"], cwd=ROOT, stdout=subprocess.DEVNULL, timeout=timeout
            )
            seconds = round(time.monotonic() - started, 1)
            result["recrawl"] = {"seconds": seconds, **_recrawl_counts(out)}
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)
    return result


def _site_counts(out: Path, bases: dict[str, str]) -> dict[str, Any]:
    site_of = {base: site for site, base in bases.items()}

    def site(url: str) -> str:
        return site_of.get(f"{urlsplit(url).scheme}://{urlsplit(url).netloc}", "?")

    with_ld: dict[str, set[str]] = {s: set() for s in bases}
    for r in _read(out / "records.jsonl"):
        if r.get("kind") == "entity" and r.get("format") == "json-ld":
            with_ld.setdefault(site(r["source_url"]), set()).add(r["source_url"])
    pages = [p for p in _read(out / "pages.jsonl") if urlsplit(p["url"]).path != "/sitemap.xml"]
    counts: dict[str, Any] = {}
    for s in bases:
        # a page fetched over HTTP before its site was learned is fetched again in the
        # browser: two page lines, one URL
        mine = [p for p in pages if site(p["url"]) == s]
        rendered = {p["url"]: p for p in mine if p.get("fetched_with") == "browser"}
        urls = {p["url"] for p in mine}
        counts[s] = {
            "pages": len(urls),
            "page_lines": len(mine),
            "with_jsonld": len(with_ld.get(s, ())),
            "rendered": len(rendered),
            "reasons": dict(Counter(p.get("fetch_reason") for p in rendered.values())),
            "without_jsonld": sorted(urls - with_ld[s])[:10],
        }
    return counts


def main(argv: list[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["--serve"]:
        return _serve(Path(argv[1]), Path(argv[2]))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, default=30)
    parser.add_argument("--keep", help="keep the sites and the crawl's output in DIR")
    parser.add_argument("-s", dest="settings", action="append", default=[])
    parser.add_argument(
        "--recrawl", action="store_true", help="crawl again: what the snapshot cache saves"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(args.keep) if args.keep else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        result = measure(args.pages, work, args.settings, recrawl=args.recrawl)
    print(json.dumps(result, indent=2))
    s = result["sites"]
    print(
        f"xhr_with_jsonld={s['xhr']['with_jsonld']} onload_with_jsonld={s['onload']['with_jsonld']}"
        f" control_rendered={s['control']['rendered']} pages={args.pages}"
        f" seconds={result['seconds']} exit={result['code']}"
        + (
            f" recrawl_rendered={result['recrawl']['rendered']}"
            f" recrawl_from_cache={result['recrawl']['from_cache']}"
            f" recrawl_seconds={result['recrawl']['seconds']}"
            if "recrawl" in result
            else ""
        )
    )
    return 0 if result["code"] == 0 else 1


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
