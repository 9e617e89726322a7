"""A test server on 127.0.0.1 that misbehaves on purpose, one behaviour per path.

    python tests/faultserver.py --port PORT [--secret TOKEN]

Started as a child process and stopped by PID (:class:`FaultServer`). Paths (``<key>`` keeps
per-URL state apart; numbers come from the query string):

=================================  ==========================================================
``/ok/<name>.html``                an HTML page with one JSON-LD Product
``/burst/<key>?fail=N&status=S``   status S (default 503) the first N times, then the page;
                                   ``&after=SEC`` adds ``Retry-After: SEC``
``/status/<code>``                 that status (404, 410, ...)
``/reset/<key>``                   the connection is reset before any response
``/slow-headers/<key>?delay=SEC``  nothing for SEC seconds, then the page
``/drip/<key>?chunks=N&interval=S`` headers at once, then the body one byte every S seconds
``/short/<key>``                   ``Content-Length: 1000`` and 100 bytes, then close
``/loop/a``, ``/loop/b``           a redirect loop a -> b -> a
``/chain/<n>``                     a chain of n redirects ending on a page
``/redirect?to=URL``               one redirect to URL
``/wrong-type/<key>``              PNG bytes labelled ``text/html``
``/octet/<key>``                   bytes as ``application/octet-stream``
``/large/<key>?size=N``            N bytes of HTML with ``Content-Length``; ``&chunked=1``
                                   without it (the body ends when the connection closes)
``/robots.txt``                    ``Disallow: /private/``
``/secret/<key>``                  a page sent with ``Set-Cookie`` and ``WWW-Authenticate``
                                   carrying the server's secret
``/challenge/<case>``               the sample page of ``fixtures/challenges/<case>`` with its
                                   status and headers (a bot challenge, a consent wall)
``/js/guard.html?other=URL``       a page whose script fetches URL (another host), opens a
                                   window on it and tries to navigate to
                                   ``file:///etc/passwd`` and to URL
``/ssrf/<kind>.html?to=URL``       a page leading to URL (another server): ``links`` (a link),
                                   ``refresh`` (a meta refresh), ``browser`` (a JavaScript
                                   shell whose script, iframe, fetch, XHR and navigation, and
                                   a same-site redirect of a fetch and of the navigation,
                                   all lead to URL), ``navigate`` (a shell navigating to a
                                   same-site redirect to URL)
``/ssrf/sitemap.xml?to=URL``       a sitemap listing URL
``/props/<key>?n=N``               a JSON-LD Thing with N property names of its own (the
                                   key in each) and a Microdata item with N more
``/__hits``                        JSON: every request seen so far, per path, with its time
                                   and headers (not recorded itself)
=================================  ==========================================================

A request line in absolute form (``GET http://host/path``, as a client sends to a proxy) is
served the same way and recorded with ``"proxied": true``.
"""

from __future__ import annotations

import argparse
import json
import socket
import struct
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

if __package__:
    from tests.servers import _stop, _wait_port, free_port
else:  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.servers import _stop, _wait_port, free_port

__all__ = ["FaultServer", "PNG"]

_CHALLENGES = Path(__file__).resolve().parents[1] / "fixtures" / "challenges"

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


def _page(name: str) -> bytes:
    return (
        f'<html><head><title>{name}</title><script type="application/ld+json">'
        f'{{"@context": "https://schema.org", "@type": "Product", "name": "{name}"}}'
        f"</script></head><body><h1>{name}</h1></body></html>"
    ).encode()


_GUARD_PAGE = """<html><head><title>guard</title></head><body><div id="root"></div>
<script>
fetch(%(other)s + "/ok/exfiltrated.html").catch(function () {});
try { window.location = "file:///etc/passwd"; } catch (e) {}
try { window.open(%(other)s + "/ok/popup.html"); } catch (e) {}
setTimeout(function () { try { window.location = %(other)s + "/ok/navigated.html"; } catch (e) {} }, 50);
setTimeout(function () {
  var s = document.createElement("script"); s.type = "application/ld+json";
  s.textContent = '{"@type": "Thing", "name": "guarded"}';
  document.head.appendChild(s);
  document.getElementById("root").textContent = "rendered";
}, 300);
</script></body></html>"""


_SSRF_PAGES = {
    "links": '<a href="%(to)s/ok/linked.html">next</a>',
    "refresh": '<meta http-equiv="refresh" content="0; url=%(to)s/ok/refreshed.html">',
    "browser": """<div id="root"></div>
<script src="%(to)s/ok/script.js"></script>
<iframe src="%(to)s/ok/frame.html"></iframe>
<script>
var done = function () {};
var tries = [
  fetch("%(to)s/ok/fetched.html").catch(done),
  fetch("/redirect?to=%(to)s/ok/fetch-redirected.html").catch(done),
  new Promise(function (resolve) {
    var x = new XMLHttpRequest(); x.onloadend = resolve; x.open("GET", "%(to)s/ok/xhr.html");
    x.send();
  }),
];
Promise.all(tries).then(function () {  // the data appears once every attempt is over
  window.location = "%(to)s/ok/navigated.html";
  setTimeout(function () {
    var s = document.createElement("script"); s.type = "application/ld+json";
    s.textContent = '{"@type": "Thing", "name": "steered"}';
    document.head.appendChild(s);
    document.getElementById("root").textContent = "rendered";
  }, 300);
});
</script>""",
    "navigate": """<div id="root"></div>
<script>window.location = "/redirect?to=%(to)s/ok/redirected.html";</script>""",
}


def _ssrf_page(kind: str, to: str) -> bytes:
    body = _SSRF_PAGES[kind] % {"to": to}
    if kind in ("browser", "navigate"):  # an app shell: rendered in the browser
        return f"<html><head><title>shell</title></head><body>{body}</body></html>".encode()
    return (
        "<html><head><title>ssrf</title><script type='application/ld+json'>"
        '{"@context": "https://schema.org", "@type": "Thing", "name": "' + kind + '"}'
        "</script></head><body>" + body + "</body></html>"
    ).encode()


class _State:
    def __init__(self, secret: str):
        self.secret = secret
        self.lock = threading.Lock()
        self.hits: dict[str, list[dict[str, Any]]] = {}

    def record(self, path: str, headers: dict[str, str], proxied: bool) -> int:
        with self.lock:
            seen = self.hits.setdefault(path, [])
            seen.append({"t": time.time(), "headers": headers, "proxied": proxied})
            return len(seen)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"
    state: _State

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _send(
        self, status: int, body: bytes = b"", ctype: str = "text/html; charset=utf-8", **extra: str
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for name, value in extra.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _redirect(self, location: str) -> None:
        self._send(302, b"", Location=location)

    def do_HEAD(self) -> None:
        self.do_GET()

    def do_GET(self) -> None:
        proxied = self.path.startswith(("http://", "https://"))
        parts = urlsplit(self.path)
        path, query = parts.path, {k: v[-1] for k, v in parse_qs(parts.query).items()}
        if path == "/__hits":
            with self.state.lock:
                body = json.dumps(self.state.hits).encode()
            self._send(200, body, "application/json")
            return
        count = self.state.record(path, dict(self.headers.items()), proxied)
        try:
            self._route(path, query, count)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _route(self, path: str, query: dict[str, str], count: int) -> None:
        head, _, rest = path.lstrip("/").partition("/")
        if head == "ok" or head == "private":
            self._send(200, _page(rest or "ok"))
        elif head == "burst":
            if count <= int(query.get("fail", "1")):
                extra = {"Retry-After": query["after"]} if "after" in query else {}
                self._send(int(query.get("status", "503")), b"busy", **extra)
            else:
                self._send(200, _page(rest))
        elif head == "status":
            self._send(int(rest), f"<p>status {rest}</p>".encode())
        elif head == "reset":
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            self.connection.close()
        elif head == "slow-headers":
            time.sleep(float(query.get("delay", "10")))
            self._send(200, _page(rest))
        elif head == "drip":
            body = _page(rest)
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            interval = float(query.get("interval", "1"))
            for i in range(min(int(query.get("chunks", "30")), len(body))):
                self.wfile.write(body[i : i + 1])
                self.wfile.flush()
                time.sleep(interval)
        elif head == "short":
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b"<html>" + b"x" * 94)
            self.wfile.flush()
            self.close_connection = True
        elif head == "loop":
            self._redirect("/loop/b" if rest == "a" else "/loop/a")
        elif head == "chain":
            n = int(rest or "0")
            if n > 0:
                self._redirect(f"/chain/{n - 1}")
            else:
                self._send(200, _page("chain-end"))
        elif head == "redirect":
            self._redirect(query["to"])
        elif head == "wrong-type":
            self._send(200, PNG, "text/html")
        elif head == "octet":
            self._send(200, b"\x00\x01binary\x02" * 8, "application/octet-stream")
        elif head == "large":
            size = int(query.get("size", "2000000"))
            if query.get("chunked"):
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.end_headers()
                chunk = b"a" * 65536
                sent = 0
                while sent < size:
                    self.wfile.write(chunk)
                    sent += len(chunk)
                self.close_connection = True
            else:
                self._send(200, b"<html>" + b"a" * size)
        elif path == "/robots.txt":
            self._send(200, b"User-agent: *\nDisallow: /private/\n", "text/plain")
        elif head == "secret":
            secret = self.state.secret
            self._send(
                200,
                _page("secret-page"),
                Set_Cookie=f"session={secret}; Path=/; HttpOnly",
                WWW_Authenticate=f'Basic realm="{secret}"',
            )
        elif head == "challenge" and (_CHALLENGES / rest / "response.json").is_file():
            meta = json.loads((_CHALLENGES / rest / "response.json").read_text())
            headers = {k: v[0] for k, v in meta["headers"].items() if k.lower() != "content-type"}
            body = (_CHALLENGES / rest / "page.html").read_bytes()
            self.send_response(meta["status"])
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)
        elif head == "props":
            n = int(query.get("n", "20000"))
            props = ", ".join(f'"p{rest}x{i}": "v"' for i in range(n))
            micro = "".join(f'<span itemprop="m{rest}x{i}">v</span>' for i in range(n))
            body = (
                '<html><head><script type="application/ld+json">{"@context": '
                f'"https://schema.org", "@type": "Thing{rest}", {props}}}</script></head><body>'
                f'<div itemscope itemtype="https://schema.org/Thing">{micro}</div></body></html>'
            )
            self._send(200, body.encode())
        elif head == "ssrf" and rest == "sitemap.xml":
            loc = query.get("to", "")
            body = (
                '<?xml version="1.0" encoding="UTF-8"?><urlset xmlns='
                f'"http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>{loc}</loc></url></urlset>'
            )
            self._send(200, body.encode(), "application/xml")
        elif head == "ssrf" and rest.removesuffix(".html") in _SSRF_PAGES:
            self._send(200, _ssrf_page(rest.removesuffix(".html"), query.get("to", "")))
        elif head == "js" and rest == "guard.html":
            other = json.dumps(query.get("other", "http://localhost"))
            self._send(200, (_GUARD_PAGE % {"other": other}).encode())
        else:
            self._send(404, b"<p>not found</p>")


def serve(port: int, secret: str) -> None:
    handler = type("Handler", (_Handler,), {"state": _State(secret)})
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.daemon_threads = True
    print(f"fault server on http://127.0.0.1:{port}/", flush=True)
    server.serve_forever()


class FaultServer:
    """``with FaultServer(secret=...) as srv``: ``srv.url``, ``srv.hits()``; stopped by PID."""

    def __init__(self, secret: str = "no-secret", log: Path | None = None):
        self.secret = secret
        self.log = log
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> FaultServer:
        out = self.log.open("wb") if self.log else subprocess.DEVNULL
        cmd = [sys.executable, __file__, "--port", str(self.port), "--secret", self.secret]
        self.proc = subprocess.Popen(cmd, stdout=out, stderr=out)
        try:
            _wait_port(self.port, self.proc, 20)
        except BaseException:
            _stop(self.proc)
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None:
            _stop(self.proc)

    def hits(self) -> dict[str, list[dict[str, Any]]]:
        import urllib.request

        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never a proxy
        with opener.open(f"{self.url}/__hits", timeout=10) as resp:
            return json.loads(resp.read())

    def count(self, path: str) -> int:
        return len(self.hits().get(path, []))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--secret", default="no-secret")
    args = parser.parse_args()
    serve(args.port, args.secret)
