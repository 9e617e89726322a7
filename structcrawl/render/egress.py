"""The browser's only way out: a small HTTP proxy inside the crawl (:class:`EgressProxy`).

Chromium is given this proxy for every page it renders (a browser context option), so every
request a page makes (its navigation and the redirects of it, scripts, frames, XHR/fetch,
workers, WebSockets) is a connection this proxy makes on its behalf; Chromium itself
resolves no name. For each one the proxy resolves the host, checks every address against the
address policy (:class:`structcrawl.core.addresses.AddressPolicy`) and connects to a checked
address, never to the name, so what was checked is what is connected to (DNS rebinding and
mixed answers cannot pass). A refused request gets ``403`` (a refused ``CONNECT`` fails the
request in the browser) and its refusal is kept by host and port for the render session,
which turns it into an ``address-refused`` record of the page.

The crawl's proxy (``http_proxy`` / ``https_proxy``, or the request's ``proxy`` meta key)
is the upstream: with one, requests go on through it (``CONNECT`` tunnels for https, with its
credentials), as the HTTP path's do. Responses are cut past ``max_bytes`` (the crawl's
``DOWNLOAD_MAXSIZE``), with a connection reset so that the browser sees the response fail
(a plain close would end a body without Content-Length as if it were whole), and connections
idle for ``timeout`` seconds are closed; a cut response is kept by host and port too (the
page ends as ``too-large``).

Pure asyncio: no Scrapy imports.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import socket
import struct
import urllib.request
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

from structcrawl.core.addresses import AddressPolicy, Refusal, endpoint_of
from structcrawl.core.bounded import remember
from structcrawl.core.hosts import normal_host

__all__ = ["EgressProxy", "Upstream"]

_HEAD_LIMIT = 64 * 1024
_CHUNK = 64 * 1024
_HOP = frozenset(
    {b"proxy-connection", b"proxy-authorization", b"connection", b"keep-alive", b"te", b"upgrade"}
)


@dataclass(frozen=True, slots=True)
class Upstream:
    """The crawl's own proxy: ``host:port`` and its ``Proxy-Authorization`` value, if any."""

    host: str
    port: int
    authorization: str | None = None

    @classmethod
    def from_url(cls, url: str | None) -> Upstream | None:
        """
        >>> Upstream.from_url("http://u:p%40ss@proxy.example:3128")
        Upstream(host='proxy.example', port=3128, authorization='Basic dTpwQHNz')
        >>> Upstream.from_url(""), Upstream.from_url("http://10.0.0.1").port
        (None, 8080)
        """
        if not url:
            return None
        parts = urlsplit(url if "://" in url else f"http://{url}")
        if not parts.hostname:
            return None
        auth = None
        if parts.username is not None:
            pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
            auth = "Basic " + base64.b64encode(pair.encode()).decode()
        return cls(parts.hostname, parts.port or 8080, auth)


@dataclass
class EgressProxy:
    """See the module docstring. ``upstream`` is by target scheme (``http``, ``https``)."""

    policy: AddressPolicy
    upstream: dict[str, Upstream] = field(default_factory=dict)
    max_bytes: int = 32 * 1024 * 1024
    timeout: float = 30.0
    no_proxy: str = ""
    refusals: OrderedDict[tuple[str, int], Refusal] = field(default_factory=OrderedDict)
    #: endpoints whose response was cut at ``max_bytes``
    cut: OrderedDict[tuple[str, int], str] = field(default_factory=OrderedDict)
    _server: asyncio.AbstractServer | None = None
    _port: int = 0

    @classmethod
    def for_crawl(cls, policy: AddressPolicy, *, proxies: bool, **kwargs: Any) -> EgressProxy:
        """The egress proxy of a crawl: upstream proxies from the environment (``http_proxy``,
        ``https_proxy``, ``no_proxy``, as Scrapy's ``HttpProxyMiddleware`` reads them) unless
        ``proxies`` is off (``HTTPPROXY_ENABLED``); they are named by the operator, so
        reachable wherever they are."""
        found = urllib.request.getproxies() if proxies else {}
        upstream = {
            scheme: up
            for scheme in ("http", "https")
            if (up := Upstream.from_url(found.get(scheme))) is not None
        }
        for up in upstream.values():
            policy.named.add((normal_host(up.host), up.port))
        return cls(policy, upstream, no_proxy=str(found.get("no", "")), **kwargs)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._port}"

    async def start(self) -> str:
        """Listen on 127.0.0.1 (an ephemeral port); the proxy's URL."""
        if self._server is None:
            self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
            self._port = self._server.sockets[0].getsockname()[1]
        return self.url

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)
            self._server = None

    def bypass(self, host: str) -> bool:
        """Whether ``no_proxy`` names ``host`` (as for the HTTP path: Scrapy reads the same
        environment)."""
        bypass = getattr(urllib.request, "proxy_bypass_environment", None)  # not in typeshed
        return bool(self.no_proxy and bypass is not None and bypass(host, {"no": self.no_proxy}))

    def refusal_for(self, url: str) -> Refusal | None:
        endpoint = endpoint_of(url)
        return None if endpoint is None else self.refusals.get(endpoint)

    async def precheck(self, url: str) -> Refusal | None:
        """The policy's verdict on a request the browser is about to make (its route), so a
        refused one is aborted before it is sent (a navigation then leaves the page as it
        is); the proxy checks it again when it connects."""
        endpoint = endpoint_of(url)
        if endpoint is None or self.policy.exempt(*endpoint):
            return None
        try:
            resolved = await self._resolve(*endpoint)
        except OSError:
            return None  # unresolvable: the proxy fails it
        return resolved if isinstance(resolved, Refusal) else None

    def was_cut(self, url: str) -> bool:
        endpoint = endpoint_of(url)
        return endpoint is not None and endpoint in self.cut

    # -- one client connection ------------------------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream_writer: asyncio.StreamWriter | None = None
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), self.timeout)
            if len(head) > _HEAD_LIMIT:
                raise ValueError("request head too long")
            target = _target(head)
            if target is None:
                writer.write(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
                return
            connect, host, port, scheme = target
            opened = await self._open(host, port, scheme, connect, head)
            if isinstance(opened, Refusal):
                body = opened.message.encode()
                writer.write(
                    b"HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n"
                    b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
                )
                return
            upstream_reader, upstream_writer, first = opened
            if connect and first is None:
                writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            elif first is not None:
                writer.write(first)
            else:  # the response's own head, told to close: no second request on it
                head_in = upstream_reader.readuntil(b"\r\n\r\n")
                answer = await asyncio.wait_for(head_in, self.timeout)
                writer.write(_closing(answer))
            await self._relay(reader, writer, upstream_reader, upstream_writer, (host, port))
        except TimeoutError:
            pass
        except Exception:  # unreachable, unreadable, reset: the browser sees a failed request
            with contextlib.suppress(Exception):
                writer.write(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
        finally:
            for w in (writer, upstream_writer):
                if w is not None:
                    with contextlib.suppress(Exception):
                        w.close()

    async def _resolve(self, host: str, port: int) -> list[str] | Refusal:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
        addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
        refusal = self.policy.check(host, port, addresses)
        remember(self.refusals, (normal_host(host), port), refusal)
        return refusal if refusal is not None else addresses

    async def _open(
        self, host: str, port: int, scheme: str, connect: bool, head: bytes
    ) -> Refusal | tuple[asyncio.StreamReader, asyncio.StreamWriter, bytes | None]:
        """The connection for one request (direct, or through the upstream proxy), and what
        to send the browser first when the upstream answered the ``CONNECT`` itself."""
        upstream = self.upstream.get("https" if connect else scheme)
        if upstream is not None and self.bypass(host):
            upstream = None
        if upstream is not None:
            if not self.policy.exempt(host, port):
                # the upstream resolves the name: checked here too, before it is asked to
                resolved = await self._resolve(host, port)
                if isinstance(resolved, Refusal):
                    return resolved
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection(upstream.host, upstream.port), self.timeout
            )
            auth = (
                f"Proxy-Authorization: {upstream.authorization}\r\n".encode()
                if (upstream.authorization)
                else b""
            )
            if connect:
                where = f"{_bracket(host)}:{port}".encode()
                writer.write(
                    b"CONNECT " + where + b" HTTP/1.1\r\nHost: " + where + b"\r\n" + auth + b"\r\n"
                )
                answer = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), self.timeout)
                ok = answer.split(b" ", 2)[1:2] == [b"200"]
                return reader, writer, None if ok else answer
            writer.write(_forward(head, absolute=True, extra=auth))
            return reader, writer, None
        resolved = await self._resolve(host, port)
        if isinstance(resolved, Refusal):
            return resolved
        error: OSError | None = None
        for address in resolved:  # a checked address, never the name again
            try:
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection(address, port), self.timeout
                )
            except (OSError, TimeoutError) as exc:
                error = exc if isinstance(exc, OSError) else OSError(str(exc))
                continue
            if not connect:
                writer.write(_forward(head, absolute=False))
            return reader, writer, None
        raise error or OSError(f"no address for {host}")

    async def _relay(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        upstream_reader: asyncio.StreamReader,
        upstream_writer: asyncio.StreamWriter,
        endpoint: tuple[str, int],
    ) -> None:
        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter, cap: bool) -> None:
            total = 0
            while True:
                data = await asyncio.wait_for(src.read(_CHUNK), self.timeout)
                if not data:
                    break
                total += len(data)
                if cap and total > self.max_bytes:
                    remember(self.cut, (normal_host(endpoint[0]), endpoint[1]), "too-large")
                    _reset(dst)  # a failed response, not a shorter one that looks whole
                    return
                dst.write(data)
                await dst.drain()
            with contextlib.suppress(Exception):
                dst.close()

        up = asyncio.ensure_future(pipe(reader, upstream_writer, False))
        down = asyncio.ensure_future(pipe(upstream_reader, writer, True))
        try:
            await asyncio.wait({up, down}, return_when=asyncio.FIRST_COMPLETED)
            if down.done():  # the response ended (or was cut): the request side is over
                up.cancel()
            else:
                await asyncio.wait({down})
        finally:
            for task in (up, down):
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task


def _reset(writer: asyncio.StreamWriter) -> None:
    """Close ``writer``'s connection with a reset (``SO_LINGER`` 0): the browser sees the
    response fail (``requestfailed``), where a plain close would end a body without
    Content-Length as if it were whole."""
    sock = writer.get_extra_info("socket")
    with contextlib.suppress(OSError, AttributeError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


def _bracket(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _target(head: bytes) -> tuple[bool, str, int, str] | None:
    """``(is_connect, host, port, scheme)`` of a proxy request head.

    >>> _target(b"CONNECT shop.example:443 HTTP/1.1\\r\\n\\r\\n")
    (True, 'shop.example', 443, 'https')
    >>> _target(b"GET http://[::1]:81/x HTTP/1.1\\r\\n\\r\\n"), _target(b"GET /x HTTP/1.1\\r\\n")
    ((False, '::1', 81, 'http'), None)
    """
    line = head.split(b"\r\n", 1)[0].decode("latin-1")
    parts = line.split(" ")
    if len(parts) != 3:
        return None
    method, target, _ = parts
    if method.upper() == "CONNECT":
        endpoint = endpoint_of(f"https://{target}")
        return None if endpoint is None else (True, endpoint[0], endpoint[1], "https")
    if not target.lower().startswith(("http://", "https://")):
        return None
    endpoint = endpoint_of(target)
    if endpoint is None:
        return None
    return False, endpoint[0], endpoint[1], target.split(":", 1)[0].lower()


def _closing(head: bytes) -> bytes:
    """A response head with its hop-by-hop headers replaced by ``Connection: close``.

    >>> out = _closing(b"HTTP/1.1 200 OK\\r\\nKeep-Alive: 5\\r\\nContent-Length: 2\\r\\n\\r\\n")
    >>> out.split(b"\\r\\n")[1:4]
    [b'Content-Length: 2', b'Connection: close', b'Proxy-Connection: close']
    """
    lines = head.rstrip(b"\r\n").split(b"\r\n")
    kept = [
        line for line in lines[1:] if line.split(b":", 1)[0].strip().lower() not in _HOP and line
    ]
    return (
        lines[0]
        + b"\r\n"
        + b"".join(line + b"\r\n" for line in kept)
        + b"Connection: close\r\nProxy-Connection: close\r\n\r\n"
    )


def _forward(head: bytes, *, absolute: bool, extra: bytes = b"") -> bytes:
    """The request head sent on: origin-form request line (direct) or absolute form (to the
    upstream proxy, with ``extra`` headers), hop-by-hop headers dropped, ``Connection:
    close`` (one request per connection: the browser's next one is checked afresh).

    >>> _forward(b"GET http://a.example/x?y=1 HTTP/1.1\\r\\nHost: a.example\\r\\n"
    ...          b"Proxy-Connection: keep-alive\\r\\n\\r\\n", absolute=False)
    b'GET /x?y=1 HTTP/1.1\\r\\nHost: a.example\\r\\nConnection: close\\r\\n\\r\\n'
    """
    lines = head.rstrip(b"\r\n").split(b"\r\n")
    method, target, version = lines[0].split(b" ")
    if not absolute:
        parts = urlsplit(target.decode("latin-1"))
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        target = path.encode("latin-1")
    kept = [
        line for line in lines[1:] if line.split(b":", 1)[0].strip().lower() not in _HOP and line
    ]
    out = b" ".join((method, target, version)) + b"\r\n"
    return out + b"".join(line + b"\r\n" for line in kept) + extra + b"Connection: close\r\n\r\n"
