"""Link discovery over the shared parsed tree (no second parse of the page)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from urllib.parse import urljoin, urlsplit

from w3lib.url import safe_url_string

from structcrawl.core.document import Document
from structcrawl.core.hosts import host_match_length

__all__ = ["LinkRules", "page_links"]

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
    hrefs: set[str] = set()
    base = doc.base_url
    for el in doc.root.iter("a", "area"):
        href = el.get("href")
        if not href or href in hrefs:
            continue
        hrefs.add(href)
        url = rules.follow(base, href)
        if url is not None and url not in seen:
            seen.add(url)
            yield url
