"""URLs: absolute, safely encoded (w3lib ``safe_url_string``), default ports dropped.

Fragment rule. A fragment is kept when it names something:

* on identifiers (``@id``, references ``{"@id": ...}``, the record ``id``) every non-empty
  fragment is kept (``#product``, ``#org`` tell entities apart);
* on other URL values (``url``, ``image``, ``sameAs``, ``og:url``, ...) only a fragment that
  is an id token — a letter or ``_`` then letters, digits, ``-``, ``_``, ``.``, ``:``
  (``#step-2``, ``#team``) — or a ``#!`` hash-bang route is kept; an empty fragment, a text
  fragment (``#:~:text=``) and state or tracking fragments (``#utm_source=x&y``,
  ``#/cart``) are dropped.

``javascript:``, ``vbscript:`` and ``data:`` URLs are flagged ``url-unsafe`` and left as they
were; ``mailto:``, ``tel:``, ``urn:`` and other non-hierarchical schemes are only trimmed.
A relative URL with no base to resolve it against is flagged ``url-relative``.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

from w3lib.url import canonicalize_url, safe_url_string

from structcrawl.normalize._result import Normalized, flagged

__all__ = ["UNSAFE_SCHEMES", "canonical_url", "normalize_url"]

UNSAFE_SCHEMES = frozenset({"javascript", "vbscript", "data"})
_WEB_SCHEMES = frozenset({"http", "https", "ftp", "file"})
_DEFAULT_PORTS = {"http": 80, "https": 443, "ftp": 21}
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")
_ID_FRAGMENT = re.compile(r"[A-Za-z_][\w.:-]*")
_STRIP = str.maketrans("", "", "\t\n\r")


def _scheme(text: str) -> str | None:
    m = _SCHEME.match(text)
    return m.group(1).lower() if m else None


def _drop_default_port(url: str) -> str:
    if url.count(":") < 2:  # only the scheme's colon: no port to drop
        return url
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return url
    if port is not None and _DEFAULT_PORTS.get(parts.scheme) == port:
        host = parts.hostname or ""
        if ":" in host:
            host = f"[{host}]"
        userinfo = parts.netloc.rpartition("@")[0]
        netloc = f"{userinfo}@{host}" if userinfo else host
        return urlunsplit(parts._replace(netloc=netloc))
    return url


def _keep_fragment(fragment: str, is_id: bool) -> bool:
    if not fragment:
        return False
    if is_id:
        return True
    return fragment.startswith("!") or _ID_FRAGMENT.fullmatch(fragment) is not None


def normalize_url(value: Any, *, base: str | None = None, is_id: bool = False) -> Normalized:
    """An absolute, safely encoded URL; ``is_id`` keeps any fragment (see the module docs).

    >>> normalize_url("../img/a b.png", base="https://x.example/p/q.html").value
    'https://x.example/img/a%20b.png'
    >>> normalize_url("HTTPS://X.example:443/p?utm=1#utm_source=a").value
    'https://x.example/p?utm=1'
    >>> normalize_url("/products/x#product", base="https://x.example/", is_id=True).value
    'https://x.example/products/x#product'
    >>> [f.code for f in normalize_url("javascript:alert(1)").flags]
    ['url-unsafe']
    """
    if not isinstance(value, str):
        return flagged(value, "url-invalid", f"not a URL: {type(value).__name__}")
    return _normalize(value, base, is_id)


#: ``safe_url_string`` kept per text: a URL's normalized form is usually the text itself, which
#: its key (:func:`canonical_url`) makes safe again
_safe = lru_cache(maxsize=8192)(safe_url_string)


def _normalize(value: str, base: str | None, is_id: bool) -> Normalized:
    # an absolute URL does not depend on the base: kept once for every page of a site
    if _SCHEME.match(value.lstrip()) is not None:
        return _normalize_text(value, None, is_id)
    return _normalize_text(value, base, is_id)


@lru_cache(maxsize=8192)  # one page repeats its URLs across layers; a site repeats its bases
def _normalize_text(value: str, base: str | None, is_id: bool) -> Normalized:
    text = value.strip().translate(_STRIP)
    if not text:
        return flagged(value, "url-empty", "empty URL")
    if text.startswith("_:"):
        return Normalized(text)  # a blank node identifier
    scheme = _scheme(text)
    if scheme in UNSAFE_SCHEMES:
        return flagged(value, "url-unsafe", f"{scheme}: URL left as it was")
    if scheme is not None and scheme not in _WEB_SCHEMES:
        return Normalized(text)
    if scheme is None:
        if not base:
            return flagged(value, "url-relative", "relative URL and no base to resolve it")
        try:
            text = urljoin(base, text)
        except ValueError as exc:
            return flagged(value, "url-invalid", f"cannot resolve: {exc}")
        if _scheme(text) in UNSAFE_SCHEMES:  # pragma: no cover - bases are http(s)
            return flagged(value, "url-unsafe", "resolves to an unsafe URL")
    try:
        url = _safe(text)
    except (ValueError, UnicodeError) as exc:
        return flagged(value, "url-invalid", f"cannot encode: {exc}")
    head, sep, fragment = url.partition("#")
    if sep and not _keep_fragment(fragment, is_id):
        url = head
    return Normalized(_drop_default_port(url))


@lru_cache(maxsize=8192)
def canonical_url(url: str, *, keep_fragment: bool = True) -> str:
    """The canonical form used in keys: safe-encoded, scheme and host lower-cased, default
    port dropped, query arguments sorted (w3lib ``canonicalize_url``), fragment kept unless
    ``keep_fragment`` is false. A value that is not a web URL is returned trimmed.

    >>> canonical_url("HTTPS://Northwind.Example:443/products/x?b=2&a=1#product")
    'https://northwind.example/products/x?a=1&b=2#product'
    >>> canonical_url("urn:ISBN:978-3-16", keep_fragment=False)
    'urn:ISBN:978-3-16'
    """
    text = url.strip().translate(_STRIP)
    scheme = _scheme(text)
    if scheme not in _WEB_SCHEMES:
        return f"{scheme}{text[len(scheme) :]}" if scheme else text
    try:
        out = canonicalize_url(_safe(text), keep_fragments=keep_fragment)
    except (ValueError, UnicodeError):
        return text
    return _drop_default_port(out)
