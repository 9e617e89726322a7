"""A local HTTP server for the crawl benchmark: ``/p/<i>.html`` for ``i < pages``, built from
a pool of seeded corpus pages (bench/corpus.py) with per-page ids and links to the next pages,
plus ``/sitemap.xml``. Cheap to serve, so the crawler, not the server, is what is measured.

    python -m bench.corpus_server --pages 2000 --port 0 --portfile F
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from bench.corpus import generate_pages

POOL = 100
_PAGE = re.compile(r"^/p/(\d+)\.html$")


def build_pool(seed: int = 20261129) -> list[bytes]:
    """Page templates: ``{ID}`` marks where the page number goes, ``{LINKS}`` the links."""
    pool = []
    for url, body in generate_pages(POOL, seed=seed):
        index = url.rsplit("/", 1)[1]
        text = body.decode("utf-8").replace(f"/p/{index}", "/p/{ID}").replace("</body>", "{LINKS}</body>")
        pool.append(text.encode("utf-8"))
    return pool


def make_handler(pages: int, pool: list[bytes]) -> type[BaseHTTPRequestHandler]:
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
            if self.path == "/robots.txt":
                self._send(200, "text/plain", b"User-agent: *\nAllow: /\n")
                return
            if self.path == "/sitemap.xml":
                host = f"http://{self.headers.get('Host')}"
                locs = "".join(f"<url><loc>{host}/p/{i}.html</loc></url>" for i in range(pages))
                body = ('<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/'
                        f'sitemap/0.9">{locs}</urlset>').encode()
                self._send(200, "application/xml", body)
                return
            m = _PAGE.match(self.path)
            if not m or int(m.group(1)) >= pages:
                self._send(404, "text/plain", b"not found")
                return
            i = int(m.group(1))
            links = "".join(f'<a href="/p/{j}.html">next {j}</a>' for j in range(i + 1, min(i + 4, pages)))
            body = pool[i % len(pool)].replace(b"{ID}", str(i).encode()).replace(b"{LINKS}", links.encode())
            self._send(200, "text/html; charset=utf-8", body)

    return Handler


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--portfile")
    args = parser.parse_args(argv)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(args.pages, build_pool()))
    server.daemon_threads = True
    if args.portfile:
        Path(args.portfile).write_text(str(server.server_address[1]))
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
