"""Reading one page for ``structcrawl extract`` and ``structcrawl check``: a file or a URL."""

from __future__ import annotations

import mimetypes
import urllib.error
import urllib.request
import zlib
from pathlib import Path
from urllib.parse import urlsplit

from structcrawl import __version__

__all__ = ["InputError", "is_url", "read_input"]

_TIMEOUT = 30.0
#: The largest decoded body read (Scrapy's DOWNLOAD_MAXSIZE in the add-on).
MAX_BODY = 32 * 1024 * 1024


class InputError(Exception):
    """The input could not be read."""


def is_url(source: str) -> bool:
    """Whether ``source`` is an http(s) URL (else a file path or ``file://`` URI)."""
    return urlsplit(source).scheme.lower() in ("http", "https")


def _decoded(body: bytes, encoding: str | None) -> bytes:
    """The body of a server that compressed it although asked not to (``gzip``, ``deflate``),
    within :data:`MAX_BODY` bytes decoded.

    >>> import gzip; _decoded(gzip.compress(b"<p>hi</p>"), "gzip")
    b'<p>hi</p>'
    """
    codings = [c.strip().lower() for c in (encoding or "").split(",") if c.strip()]
    for coding in reversed(codings):
        if coding in ("gzip", "x-gzip", "deflate"):
            decoder = zlib.decompressobj(47)  # a gzip or zlib header, detected
            body = decoder.decompress(body, MAX_BODY)
            if decoder.unconsumed_tail:
                raise ValueError(f"the decoded body is larger than {MAX_BODY} bytes")
        elif coding != "identity":
            raise ValueError(f"unsupported Content-Encoding {coding!r}")
    return body


def read_input(source: str) -> tuple[bytes, str, str | None]:
    """``(body, url, content_type)`` for a local file or an http(s) URL."""
    scheme = urlsplit(source).scheme.lower()
    if scheme in ("http", "https"):
        request = urllib.request.Request(
            source, headers={"User-Agent": f"structcrawl/{__version__}"}
        )
        try:
            with urllib.request.urlopen(request, timeout=_TIMEOUT) as resp:  # noqa: S310
                body = _decoded(resp.read(), resp.headers.get("Content-Encoding"))
                return body, resp.geturl(), resp.headers.get("Content-Type")
        except (urllib.error.URLError, OSError, ValueError, EOFError) as exc:
            raise InputError(f"cannot fetch {source}: {exc}") from exc
    if scheme and len(scheme) > 1 and scheme != "file":
        raise InputError(f"unsupported URL scheme {scheme!r} in {source}")
    path = Path(source[7:] if scheme == "file" else source)
    try:
        body = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from exc
    guessed, _ = mimetypes.guess_type(path.name)
    return body, path.resolve().as_uri(), guessed
