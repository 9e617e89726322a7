"""A worker process's loop (``python -m structcrawl.workers.serve``): requests in on stdin,
answers out on stdout, one at a time, each a frame of 8 bytes of length (big-endian) and that
many bytes.

A request names a pure function of the crawl's code and its arguments: a frame of 4 bytes of
header length, the header (JSON: ``["module:function", *args]``) and the raw bytes of the page
(not escaped into JSON). The answer is JSON (written by orjson,
:func:`~structcrawl.core.jsontext.dumps_bytes`): ``[true, result]`` where the function
returned ``function(data, *args)``, ``[false, "Error: message"]`` where it raised or returned
what JSON cannot carry (the worker goes on with the next request). A function's module is
imported on its first request, so a worker asked only for main texts never imports the visible
page's readers, nor one asked only for those trafilatura.

It imports nothing of Scrapy or the crawl (~50 MB with its readers), ignores Ctrl-C (the crawl
stops it), and ends when its input ends: when the crawl closes it, or dies. Its errors go to
the crawl's stderr, marked as the worker's.
"""

from __future__ import annotations

import gc
import importlib
import logging
import os
import signal
import sys
from collections.abc import Callable
from typing import Any, BinaryIO

from structcrawl.core.collector import GC_TUNING_ENV, tune
from structcrawl.core.jsontext import dumps_bytes, loads_any

__all__ = ["HEADER", "main", "read_frame", "request", "write_frame"]

HEADER = 8  # bytes of a frame's length
_CALL_HEADER = 4  # bytes of a request's header length

logger = logging.getLogger("structcrawl.workers")


def read_frame(stream: BinaryIO) -> bytes | None:
    """The next frame's bytes, or None when the stream ended (before or inside a frame)."""
    header = stream.read(HEADER)
    if len(header) < HEADER:
        return None
    size = int.from_bytes(header, "big")
    data = stream.read(size)
    return data if len(data) == size else None


def write_frame(stream: BinaryIO, *parts: bytes) -> None:
    """One frame of ``parts`` joined, written part by part: no frame holding a copy of a page's
    bytes is built (the crawl built one for each page on its thread, ~0.3 ms a large page)."""
    stream.write(sum(map(len, parts)).to_bytes(HEADER, "big"))
    for part in parts:
        stream.write(part)
    stream.flush()


def request(call: str, args: list[Any], data: bytes) -> tuple[bytes, bytes]:
    """A request's frame (see the module doc) in two parts, its header and ``data``, for
    :func:`write_frame`.

    >>> b"".join(request("m:f", [1], b"<p>"))
    b'\\x00\\x00\\x00\\t["m:f",1]<p>'
    """
    header = dumps_bytes([call, *args])
    return len(header).to_bytes(_CALL_HEADER, "big") + header, data


def _answer(frame: bytes, functions: dict[str, Callable[..., Any]]) -> bytes:
    size = int.from_bytes(frame[:_CALL_HEADER], "big")
    call, *args = loads_any(frame[_CALL_HEADER : _CALL_HEADER + size])
    try:
        function = functions.get(call)
        if function is None:
            module, _, name = call.partition(":")
            function = functions[call] = getattr(importlib.import_module(module), name)
            if os.environ.get(GC_TUNING_ENV):  # what the import built: frozen like the rest
                gc.collect()
                gc.freeze()
        result = function(frame[_CALL_HEADER + size :], *args)
        # orjson (a large page's answer, ~50 KB: 0.04 ms against the standard library's 0.37);
        # a non-finite float would arrive as null (the records hold none: their JSON reader
        # turns NaN, Infinity and overflows into null)
        return dumps_bytes([True, result])
    except Exception as exc:  # said back to the crawl, which does the work itself
        logger.error("%s failed", call, exc_info=True)
        return dumps_bytes([False, f"{type(exc).__name__}: {exc}"])


def main() -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # the readers' errors on the crawl's stderr, said to be the worker's (their warnings about
    # a page, which the crawl's log would have shown at WARNING, are not worth a raw line)
    logging.basicConfig(
        level=logging.ERROR, format="structcrawl worker %(process)d: %(levelname)s %(message)s"
    )
    if os.environ.get(GC_TUNING_ENV):  # as the crawl's own process (structcrawl.core.collector)
        tune()
    requests = sys.stdin.buffer
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # a stray print goes to stderr
    functions: dict[str, Callable[..., Any]] = {}
    while (frame := read_frame(requests)) is not None:
        write_frame(answers, _answer(frame, functions))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
