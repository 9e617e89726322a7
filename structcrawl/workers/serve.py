"""A worker process's loop (``python -m structcrawl.workers.serve``): requests in on stdin,
answers out on stdout, one at a time, each a frame of 8 bytes of length (big-endian) and that
many bytes of JSON: a request ``[html, url]``, an answer the page's main text or ``null``
(:func:`structcrawl.workers.maintext.html_main_text`).

It imports nothing of Scrapy or the crawl (~50 MB), ignores Ctrl-C (the crawl stops it), and
ends when its input ends: when the crawl closes it, or dies. Its errors go to the crawl's
stderr, marked as the worker's.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
from typing import BinaryIO

from structcrawl.workers.maintext import html_main_text

__all__ = ["HEADER", "main", "read_frame", "write_frame"]

HEADER = 8  # bytes of a frame's length


def read_frame(stream: BinaryIO) -> bytes | None:
    """The next frame's bytes, or None when the stream ended (before or inside a frame)."""
    header = stream.read(HEADER)
    if len(header) < HEADER:
        return None
    size = int.from_bytes(header, "big")
    data = stream.read(size)
    return data if len(data) == size else None


def write_frame(stream: BinaryIO, data: bytes) -> None:
    stream.write(len(data).to_bytes(HEADER, "big") + data)
    stream.flush()


def main() -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # the extractor's errors on the crawl's stderr, said to be the worker's (its warnings about
    # a page, which the crawl's log would have shown at WARNING, are not worth a raw line)
    logging.basicConfig(
        level=logging.ERROR, format="main-text worker %(process)d: %(levelname)s %(message)s"
    )
    requests = sys.stdin.buffer
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # a stray print goes to stderr
    while (frame := read_frame(requests)) is not None:
        html, url = json.loads(frame)
        write_frame(answers, json.dumps(html_main_text(html, url)).encode())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
