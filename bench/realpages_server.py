"""A small threaded static server of the real pages for the crawl benchmark: ``/p/<i>.html``
for ``i < pages`` (bench/realpages.py: the saved pages in turn, varied per copy) and
``/sitemap.xml`` listing them. Bodies are built once, so the crawler, not the server, is what
is measured. Listens on 127.0.0.1 only.

    python -m bench.realpages_server --pages 654 --port 0 --portfile F
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

from bench.realpages import load_pages, varied_pages

_PAGE = re.compile(r"^/p/(\d+)\.html$")


def make_handler(bodies: list[bytes]) -> type[BaseHTTPRequestHandler]:
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
            if self.path == "/sitemap.xml":
                host = f"http://{self.headers.get('Host')}"
                locs = "".join(f"<url><loc>{host}/p/{i}.html</loc></url>" for i in range(len(bodies)))
                body = ('<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/'
                        f'sitemap/0.9">{locs}</urlset>').encode()
                self._send(200, "application/xml", body)
                return
            m = _PAGE.match(self.path)
            if not m or int(m.group(1)) >= len(bodies):
                self._send(404, "text/plain", b"not found")
                return
            # no charset: the pages declare their own (some are not UTF-8), as saved
            self._send(200, "text/html", bodies[int(m.group(1))])

    return Handler


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=654)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--portfile")
    args = parser.parse_args(argv)
    bodies = varied_pages(args.pages, load_pages())
    server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(bodies))
    server.daemon_threads = True
    if args.portfile:
        Path(args.portfile).write_text(str(server.server_address[1]))
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
