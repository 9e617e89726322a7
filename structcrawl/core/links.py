"""Link discovery over the shared parsed tree (no second parse of the page)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from urllib.parse import urljoin, urlsplit

from w3lib.url import safe_url_string

from structcrawl.core.document import Document
from structcrawl.core.hosts import host_match_length

__all__ = [
    "LINKS_MEMO",
    "ROBOTS_DIRECTIVES",
    "ROBOTS_MEMO",
    "LinkRules",
    "link_hrefs",
    "meta_robots",
    "page_links",
    "robots_directives",
]

#: where a document keeps its links' hrefs (:func:`link_hrefs`)
LINKS_MEMO = "link-hrefs"
#: where a document keeps its meta robots directives (:func:`meta_robots`)
ROBOTS_MEMO = "meta-robots"

_FOLLOW_SCHEMES = frozenset({"http", "https"})
_CACHE_SIZE = 100_000


class LinkRules:
    """Which discovered links to follow: allowed domains, allow/deny patterns, extensions."""

    def __init__(
        self,
        *,
        allowed_domains: Iterable[str] = (),
        allow: Iterable[str] = (),
        deny: Iterable[str] = (),
        deny_extensions: Iterable[str] = (),
    ):
        self.domains = tuple(d.lower().lstrip(".") for d in allowed_domains if d)
        self.allow = tuple(re.compile(p) for p in allow if p)
        self.deny = tuple(re.compile(p) for p in deny if p)
        self.deny_extensions = frozenset(e.lower().lstrip(".") for e in deny_extensions if e)
        # (base, href) -> followable URL or None; nav links repeat on every page of a site
        self._cache: dict[tuple[str, str], str | None] = {}

    def follow(self, base_url: str, href: str) -> str | None:
        """The safe-encoded absolute URL to follow for ``href`` on a page at ``base_url``,
        without fragment, or None when the link is not to be followed (cached)."""
        href = href.strip()
        if href.startswith("/") and not href.startswith("//"):  # root-relative: only the origin
            base_url = base_url[: base_url.find("/", base_url.find("//") + 2) + 1] or base_url
        key = (base_url, href)
        try:
            return self._cache[key]
        except KeyError:
            pass
        try:
            url: str | None = safe_url_string(urljoin(base_url, href)).split("#", 1)[0]
            if not self.accepts(url):  # type: ignore[arg-type]
                url = None
        except ValueError:  # an unusable href is not a link
            url = None
        if len(self._cache) > _CACHE_SIZE:
            self._cache.clear()
        self._cache[key] = url
        return url

    def accepts(self, url: str) -> bool:
        parts = urlsplit(url)
        if parts.scheme not in _FOLLOW_SCHEMES:
            return False
        if self.domains and host_match_length(parts.hostname or "", self.domains) < 0:
            return False
        ext = parts.path.rsplit("/", 1)[-1].rpartition(".")[2].lower()
        if ext and ext in self.deny_extensions and "." in parts.path.rsplit("/", 1)[-1]:
            return False
        if self.allow and not any(p.search(url) for p in self.allow):
            return False
        return not any(p.search(url) for p in self.deny)


def page_links(doc: Document, rules: LinkRules) -> Iterator[str]:
    """Absolute, safe-encoded URLs of ``<a href>``/``<area href>`` links to follow, each once
    per page, fragment dropped."""
    seen: set[str] = set()
    base = doc.base_url
    for href in link_hrefs(doc):
        url = rules.follow(base, href)
        if url is not None and url not in seen:
            seen.add(url)
            yield url


def link_hrefs(doc: Document) -> list[str]:
    """The ``href`` of the page's ``<a>`` and ``<area>`` elements, each once, in document
    order, as written (kept on its memo).

    >>> from structcrawl.core.document import parse_html
    >>> link_hrefs(parse_html(b'<a href="/a">1</a><area href="/b"><a href="/a">2</a><a>3</a>', "http://a.test/"))
    ['/a', '/b']
    """
    return doc.memoized(LINKS_MEMO, _link_hrefs)


def _link_hrefs(doc: Document) -> list[str]:
    hrefs: dict[str, None] = {}  # a dict keeps the first of each in order
    for el in doc.index().named("a", "area"):  # the page's one shared walk
        href = el.get("href")
        if href:
            hrefs[href] = None
    return list(hrefs)


#: Robots directives structcrawl acts on (``none`` means ``noindex, nofollow``).
ROBOTS_DIRECTIVES = frozenset({"noindex", "nofollow", "none", "noarchive", "nosnippet"})


def _directives(value: str) -> list[str]:
    """Directives of one ``X-Robots-Tag`` / meta robots value. A value naming a user agent
    (``googlebot: noindex``) is for that crawler only and is skipped.

    >>> _directives("NoIndex, nofollow"), _directives("googlebot: noindex"), _directives("none")
    (['noindex', 'nofollow'], [], ['noindex', 'nofollow'])
    """
    text = value.strip().lower()
    head, sep, _ = text.partition(":")
    agent = head.strip()
    if sep and agent and " " not in agent and "," not in agent and agent != "unavailable_after":
        return []  # for the crawler named before the colon
    found: list[str] = []
    for part in text.split(","):
        token = part.strip()
        if token == "none":
            found += ["noindex", "nofollow"]
        elif token in ROBOTS_DIRECTIVES:
            found.append(token)
    return found


def robots_directives(doc: Document | None, header_values: Iterable[str | bytes] = ()) -> list[str]:
    """The page's robots directives, sorted: ``<meta name="robots">`` (and
    ``name="structcrawl"``) of ``doc`` plus its ``X-Robots-Tag`` header values.

    >>> from structcrawl.core.document import parse_html
    >>> doc = parse_html(b'<meta name="Robots" content="noindex">', "http://a.example/")
    >>> robots_directives(doc, [b"nofollow"]), robots_directives(None, ["bingbot: none"])
    (['nofollow', 'noindex'], [])
    """
    found: set[str] = set()
    for value in header_values:
        text = value.decode("latin-1") if isinstance(value, bytes) else value
        found.update(_directives(text))
    if doc is not None:
        found.update(meta_robots(doc))
    return sorted(found)


def meta_robots(doc: Document) -> list[str]:
    """The directives of the page's ``<meta name="robots">`` (and ``name="structcrawl"``),
    sorted (kept on its memo)."""
    return doc.memoized(ROBOTS_MEMO, _meta_robots)


def _meta_robots(doc: Document) -> list[str]:
    found: set[str] = set()
    for el in doc.index().named("meta"):  # the page's one shared walk
        name = (el.get("name") or "").strip().lower()
        if name in ("robots", "structcrawl"):
            found.update(_directives(el.get("content") or ""))
    return sorted(found)
