"""Link discovery over the shared parsed tree (no second parse of the page)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from urllib.parse import urlsplit

from w3lib.url import canonicalize_url, safe_url_string

from structcrawl.document import Document

__all__ = ["LinkRules", "page_links"]

_FOLLOW_SCHEMES = frozenset({"http", "https"})


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

    def accepts(self, url: str) -> bool:
        parts = urlsplit(url)
        if parts.scheme not in _FOLLOW_SCHEMES:
            return False
        host = (parts.hostname or "").lower()
        if self.domains and not any(host == d or host.endswith("." + d) for d in self.domains):
            return False
        ext = parts.path.rsplit("/", 1)[-1].rpartition(".")[2].lower()
        if ext and ext in self.deny_extensions and "." in parts.path.rsplit("/", 1)[-1]:
            return False
        if self.allow and not any(p.search(url) for p in self.allow):
            return False
        return not any(p.search(url) for p in self.deny)


def page_links(doc: Document, rules: LinkRules) -> Iterator[str]:
    """Absolute, safe-encoded URLs of ``<a href>``/``<area href>`` links, first sighting only,
    fragment dropped."""
    seen: set[str] = set()
    for el in doc.root.iter("a", "area"):
        href = el.get("href")
        if not href or not href.strip():
            continue
        try:
            url = safe_url_string(doc.resolve(href)).split("#", 1)[0]
            key = canonicalize_url(url)
            if key in seen or not rules.accepts(url):
                continue
        except ValueError:  # an unusable href is not a link
            continue
        seen.add(key)
        yield url
