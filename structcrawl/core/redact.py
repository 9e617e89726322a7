"""Redaction of secrets in headers before anything is stored or logged.

>>> redact_headers({"Set-Cookie": ["a=1"], "Content-Type": ["text/html"]})
{'Set-Cookie': ['[REDACTED]'], 'Content-Type': ['text/html']}
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from urllib.parse import unquote

__all__ = [
    "REDACTED",
    "SENSITIVE_HEADERS",
    "is_sensitive",
    "redact_headers",
    "redact_url",
    "split_credentials",
]

REDACTED = "[REDACTED]"
SENSITIVE_HEADERS = frozenset(
    {
        "cookie",
        "set-cookie",
        "set-cookie2",
        "authorization",
        "proxy-authorization",
        "proxy-authenticate",
        "x-api-key",
        "x-auth-token",
        "x-csrf-token",
        "x-xsrf-token",
        "x-amz-security-token",
    }
)
_SENSITIVE_PATTERN = re.compile(r"(auth|token|secret|passw|api[-_]?key|session|cookie)", re.I)


def is_sensitive(name: str) -> bool:
    lowered = name.strip().lower()
    return lowered in SENSITIVE_HEADERS or bool(_SENSITIVE_PATTERN.search(lowered))


_USERINFO = re.compile(r"^([a-z][a-z0-9+.-]*://)[^/?#@]*@", re.I)


def redact_url(url: str) -> str:
    """``url`` without the credentials of its user information (``user:password@``), which
    are kept out of everything stored or logged.

    >>> redact_url("https://bob:hunter2@shop.example:8443/p?q=1")
    'https://[REDACTED]@shop.example:8443/p?q=1'
    >>> redact_url("https://shop.example/a@b")
    'https://shop.example/a@b'
    """
    if "@" not in url:
        return url
    return _USERINFO.sub(lambda m: m.group(1) + REDACTED + "@", url, count=1)


def split_credentials(url: str) -> tuple[str, tuple[str, str] | None]:
    """``url`` without its user information, and the ``(user, password)`` it held (percent-
    decoded), or ``None``. Scrapy cannot fetch a URL with credentials in it; they are sent as
    HTTP basic authentication to that host and port instead
    (:class:`structcrawl.crawl.credentials.UrlCredentialsMiddleware`).

    >>> split_credentials("https://bob:p%40ss@shop.example:8443/p")
    ('https://shop.example:8443/p', ('bob', 'p@ss'))
    >>> split_credentials("https://shop.example/")
    ('https://shop.example/', None)
    """
    m = _USERINFO.match(url)
    if m is None:
        return url, None
    userinfo = url[len(m.group(1)) : m.end() - 1]
    user, _, password = userinfo.partition(":")
    return m.group(1) + url[m.end() :], (unquote(user), unquote(password))


def _text(value: bytes | str) -> str:
    return value.decode("latin-1") if isinstance(value, bytes) else value


def redact_headers(
    headers: Mapping[bytes | str, Iterable[bytes | str] | bytes | str],
) -> dict[str, list[str]]:
    """A plain ``{name: [values]}`` copy with sensitive values replaced by ``[REDACTED]``."""
    out: dict[str, list[str]] = {}
    for raw_name, raw_values in headers.items():
        name = _text(raw_name)
        values = [raw_values] if isinstance(raw_values, (bytes, str)) else list(raw_values)
        out[name] = [REDACTED if is_sensitive(name) else _text(v) for v in values]
    return out
