"""The generated site of the frontier benchmark: ``http://h<i>.frontier.test:<port>/p/<j>`` for
``i < hosts`` and ``j < pages``, each page made on the fly (a title, a JSON-LD block, links
to three pages of its host and two of other hosts). One asyncio HTTP/1.1 server on 127.0.0.1
tells the hosts apart by the ``Host`` header; it logs the arrival time of every page request
and writes the log when stopped by SIGTERM (by PID)."""

from __future__ import annotations

import asyncio
import re
import signal
import sys
import time
from pathlib import Path

__all__ = ["links", "serve"]

_PATH = re.compile(rb"^/p/(\d+)$")
_HOST = re.compile(rb"^h(\d+)\.frontier\.test(?::\d+)?$")


def links(host: int, page: int, hosts: int, pages: int) -> list[tuple[int, int]]:
    """The (host, page) pairs page ``page`` of host ``host`` links to."""
    same = [(host, (page * 7 + k * 13 + 1) % pages) for k in range(3)]
    other = [((host * 31 + k * 17 + 1) % hosts, (page * 11 + k) % pages) for k in range(2)]
    return same + other


def _page(host: int, page: int, hosts: int, pages: int, port: int) -> bytes:
    anchors = "".join(
        f'<a href="http://h{h}.frontier.test:{port}/p/{p}">page {p} of h{h}</a> '
        if h != host
        else f'<a href="/p/{p}">page {p}</a> '
        for h, p in links(host, page, hosts, pages)
    )
    return (
        f"<!doctype html><html><head><title>h{host} page {page}</title>"
        '<script type="application/ld+json">{"@context":"https://schema.org",'
        f'"@type":"WebPage","name":"h{host} page {page}"}}</script></head>'
        f"<body><h1>Page {page}</h1>{anchors}</body></html>"
    ).encode()


async def _main(hosts: int, pages: int, portfile: Path, logfile: Path) -> None:
    log: list[str] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        port = writer.get_extra_info("sockname")[1]
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.split(b"\r\n")
                parts = lines[0].split(b" ")
                host = b""
                for line in lines[1:]:
                    if line[:5].lower() == b"host:":
                        host = line[5:].strip()
                path, h = _PATH.match(parts[1]) if len(parts) > 1 else None, _HOST.match(host)
                if path and h and int(h.group(1)) < hosts and int(path.group(1)) < pages:
                    i, j = int(h.group(1)), int(path.group(1))
                    log.append(f"{time.time():.4f} h{i} {j}\n")
                    status, body = b"200 OK", _page(i, j, hosts, pages, port)
                else:
                    status, body = b"404 Not Found", b"not found"
                writer.write(
                    b"HTTP/1.1 " + status + b"\r\nContent-Type: text/html; charset=utf-8\r\n"
                    b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
                )
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0, backlog=1024)
    portfile.write_text(str(server.sockets[0].getsockname()[1]))
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    async with server:
        await stop.wait()
    logfile.write_text("".join(log))


def serve(hosts: int, pages: int, portfile: str, logfile: str) -> None:
    asyncio.run(_main(hosts, pages, Path(portfile), Path(logfile)))


if __name__ == "__main__":
    serve(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4])
