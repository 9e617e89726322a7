"""Classify a response payload before anything parses it.

Nothing is parsed as HTML that is not HTML: the declared ``Content-Type`` is checked against
the first bytes of the body, and a body whose bytes say otherwise (a PDF or an image labelled
``text/html``, binary noise) is classified by what it is.

>>> classify("text/html; charset=utf-8", b"<!doctype html><html></html>")
'html'
>>> classify("text/html", b"%PDF-1.7 ...")
'pdf'
>>> classify("application/octet-stream", b'  {"a": 1}')
'json'
>>> classify(None, b"")
'empty'
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["PAYLOAD_KINDS", "EXTRACTABLE", "classify", "split_content_type"]

PAYLOAD_KINDS = ("html", "xhtml", "xml", "json", "javascript", "pdf", "image", "other", "empty")
#: Payload kinds that can carry records.
EXTRACTABLE = frozenset({"html", "xhtml", "json"})

_MAGIC = (
    (b"%PDF-", "pdf"),
    (b"\x89PNG\r\n\x1a\n", "image"),
    (b"\xff\xd8\xff", "image"),
    (b"GIF87a", "image"),
    (b"GIF89a", "image"),
    (b"RIFF", "image"),  # webp (RIFF....WEBP); other RIFF media are not text either
    (b"\x1f\x8b", "other"),  # gzip that was not decoded
    (b"PK\x03\x04", "other"),  # zip / office documents
    (b"\x00\x00\x01\x00", "image"),  # ico
)

_DECLARED = {
    "text/html": "html",
    "application/xhtml+xml": "xhtml",
    "application/json": "json",
    "application/ld+json": "json",
    "text/json": "json",
    "application/xml": "xml",
    "text/xml": "xml",
    "application/javascript": "javascript",
    "text/javascript": "javascript",
    "application/x-javascript": "javascript",
    "application/ecmascript": "javascript",
    "application/pdf": "pdf",
}


@lru_cache(maxsize=512)  # the same few values again and again (script types, headers)
def split_content_type(value: str | None) -> tuple[str, str | None]:
    """``'text/html; charset=UTF-8'`` -> ``('text/html', 'utf-8')``."""
    if not value:
        return "", None
    parts = [p.strip() for p in value.split(";")]
    mime = parts[0].lower()
    charset = None
    for param in parts[1:]:
        key, _, val = param.partition("=")
        if key.strip().lower() == "charset" and val.strip():
            charset = val.strip().strip("\"'").lower()
    return mime, charset


#: A byte that is not ASCII whitespace (what ``bytes.strip()`` removes).
_NOT_BLANK = re.compile(rb"[^ \t\n\r\x0b\x0c]")


def _sniff(body: bytes) -> str | None:
    """What the first bytes say, or None when they look like text."""
    head = body[:512]
    for magic, kind in _MAGIC:
        if head.startswith(magic):
            return kind
    if b"\x00" in head and not head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "other"  # NUL bytes outside UTF-16: binary
    return None


def _sniff_text(body: bytes) -> str:
    text = body[:1024].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if text.startswith((b"{", b"[")):
        return "json"
    if text.startswith(b"<?xml"):
        return "xhtml" if b"<html" in body[:4096].lower() else "xml"
    if text.startswith(b"<"):
        return "html"
    return "other"


def classify(content_type: str | None, body: bytes) -> str:
    """Return one of :data:`PAYLOAD_KINDS` for a response."""
    if not body or _NOT_BLANK.search(body) is None:  # (no copy of the body, as strip() made)
        return "empty"
    sniffed = _sniff(body)
    mime, _ = split_content_type(content_type)
    declared = _DECLARED.get(mime)
    if declared is None:
        if mime.startswith("image/"):
            declared = "image"
        elif mime.endswith("+json"):
            declared = "json"
        elif mime.endswith("+xml"):
            declared = "xml"
    if sniffed is not None:
        # Bytes that are clearly binary win over a text label.
        if declared in (None, "html", "xhtml", "xml", "json", "javascript") or declared == sniffed:
            return sniffed
        return declared
    if declared in (None, "other") or mime in ("", "text/plain", "application/octet-stream"):
        return _sniff_text(body)
    if declared in ("pdf", "image"):
        return "other"  # labelled binary but the bytes are text: say so rather than guess
    return declared
