"""The skeleton the benchmark page servers share: ``/p/<i>.html`` for ``i < count`` from a
page function, ``/sitemap.xml`` listing them, ``/robots.txt`` allowing all; HTTP/1.1, no
request log, 127.0.0.1 only, stopped by SIGTERM (by PID)."""

from __future__ import annotations

import os
import re
import signal
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

__all__ = ["PageFunction", "make_handler", "serve"]

#: page number -> (Content-Type, body)
PageFunction = Callable[[int], tuple[str, bytes]]

_PAGE = re.compile(r"^/p/(\d+)\.html$")


def make_handler(count: int, page: PageFunction) -> type[BaseHTTPRequestHandler]:
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
                locs = "".join(f"<url><loc>{host}/p/{i}.html</loc></url>" for i in range(count))
                body = (
                    '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/'
                    f'sitemap/0.9">{locs}</urlset>'
                ).encode()
                self._send(200, "application/xml", body)
                return
            m = _PAGE.match(self.path)
            if not m or int(m.group(1)) >= count:
                self._send(404, "text/plain", b"not found")
                return
            self._send(200, *page(int(m.group(1))))

    return Handler


def serve(count: int, page: PageFunction, port: int = 0, portfile: str | None = None) -> int:
    """Serve until SIGTERM; the chosen port is written to ``portfile``."""
    server = ThreadingHTTPServer(("127.0.0.1", port), make_handler(count, page))
    server.daemon_threads = True
    if portfile:
        Path(portfile).write_text(str(server.server_address[1]))
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    server.serve_forever()
    return 0
