"""Decoding an HTTP body inside the download handler (before Scrapy's HttpCompression
middleware has seen it), so the JS-only judgement reads the page and not gzip bytes.

Pure module: no Scrapy imports.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable

__all__ = ["MAX_DECODED", "decoded_body"]

#: Larger decoded bodies are not judged (a decompression bomb must not cost memory).
MAX_DECODED = 20_000_000


def _inflate(data: bytes) -> bytes:
    try:
        out = zlib.decompressobj()
        result = out.decompress(data, MAX_DECODED + 1)
    except zlib.error:  # raw deflate, as some servers send it
        out = zlib.decompressobj(-zlib.MAX_WBITS)
        result = out.decompress(data, MAX_DECODED + 1)
    return result


def _gunzip(data: bytes) -> bytes:
    out = zlib.decompressobj(16 + zlib.MAX_WBITS)
    return out.decompress(data, MAX_DECODED + 1)


#: Decoded bytes produced per step: a body is never decoded further than one step past the cap.
_CHUNK = 65536


class _TooLarge(ValueError):
    """The decoded body would be larger than :data:`MAX_DECODED`."""


def _unbrotli(data: bytes) -> bytes:
    """Brotli, decoded step by step: a bomb stops at the cap, not after inflating whole."""
    import brotli

    decoder = brotli.Decompressor()
    out = [decoder.process(data, output_buffer_limit=_CHUNK)]
    size = len(out[0])
    while not decoder.is_finished() and size <= MAX_DECODED:
        chunk = decoder.process(b"", output_buffer_limit=_CHUNK)
        if not chunk:
            break
        out.append(chunk)
        size += len(chunk)
    if size > MAX_DECODED:
        raise _TooLarge(size)
    if not decoder.is_finished():
        raise ValueError("truncated brotli stream")
    return b"".join(out)


def _unzstd(data: bytes) -> bytes:
    """Zstandard, read in steps from a stream: a bomb stops at the cap."""
    import io

    from structcrawl.core.zstdlib import zstd

    out: list[bytes] = []
    size = 0
    with zstd.ZstdFile(io.BytesIO(data)) as stream:
        while size <= MAX_DECODED:
            chunk = stream.read(_CHUNK)
            if not chunk:
                break
            out.append(chunk)
            size += len(chunk)
    if size > MAX_DECODED:
        raise _TooLarge(size)
    return b"".join(out)


_DECODERS = {
    "gzip": _gunzip,
    "x-gzip": _gunzip,
    "deflate": _inflate,
    "br": _unbrotli,
    "zstd": _unzstd,
}


def decoded_body(body: bytes, encodings: Iterable[bytes | str]) -> bytes | None:
    """``body`` with its ``Content-Encoding`` layers removed (last applied first); ``None``
    when an encoding is unknown, the data is corrupt, or the result is too large.

    >>> import gzip
    >>> decoded_body(gzip.compress(b"<html></html>"), [b"gzip"])
    b'<html></html>'
    >>> decoded_body(b"<html></html>", []), decoded_body(b"xx", ["gzip"]), decoded_body(b"", ["x"])
    (b'<html></html>', None, None)
    """
    names: list[str] = []
    for value in encodings:
        text = value.decode("latin-1") if isinstance(value, bytes) else value
        names.extend(n.strip().lower() for n in text.split(",") if n.strip())
    for name in reversed(names):
        if name == "identity":
            continue
        decoder = _DECODERS.get(name)
        if decoder is None:
            return None
        try:
            body = decoder(body)
        except Exception:  # corrupt or truncated data: not judged
            return None
        if len(body) > MAX_DECODED:
            return None
    return body
