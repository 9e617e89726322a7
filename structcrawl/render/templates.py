"""URL templates and the per-site template learner of render routing (pure).

A URL's template (:func:`url_template`) generalizes its variable path segments; when pages of
one template needed the browser ``threshold`` times on a site, :class:`TemplateLearner` sends
the template's next pages straight to the browser (``learned``). A whole site can be learned
too (:meth:`TemplateLearner.learn_site`: the render audit does when most of a site's audited
pages gained, whatever their templates). A bot challenge is never counted
(:mod:`structcrawl.core.challenge`: the render handler never escalates one).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from posixpath import splitext
from urllib.parse import parse_qsl, urlsplit

__all__ = ["TemplateLearner", "site_of", "url_template"]

_NUMERIC = re.compile(r"\d+\Z")
_ID = re.compile(r"(?=[^/]*\d)[0-9a-fA-F-]{8,}\Z")
_SLUGGY = re.compile(r"[-_.\d]")


def _generalize(segment: str, leaf: bool) -> str:
    if _NUMERIC.match(segment):
        return "{n}"
    if _ID.match(segment):
        return "{id}"
    if not leaf:
        return segment
    stem, ext = splitext(segment)
    if stem.lower() in ("index", "default", ""):
        return segment
    if _NUMERIC.match(stem):
        return "{n}" + ext
    if _ID.match(stem):
        return "{id}" + ext
    return "{slug}" + ext if _SLUGGY.search(stem) else segment


def url_template(url: str) -> str:
    """The template of a URL: host, the path with its variable parts generalized, and the
    query's parameter names.

    >>> url_template("http://shop.example/products/trail-runner-x.html")
    'shop.example/products/{slug}.html'
    >>> url_template("https://shop.example/p/12345/reviews?page=2&sort=new")
    'shop.example/p/{n}/reviews?page=&sort='
    >>> url_template("https://shop.example/about.html"), url_template("https://shop.example/")
    ('shop.example/about.html', 'shop.example/')
    """
    try:
        parts = urlsplit(url)
        netloc = (parts.hostname or "") + (f":{parts.port}" if parts.port else "")
    except ValueError:
        return url
    segments = parts.path.split("/")
    last = len(segments) - 1
    path = "/".join(_generalize(s, i == last) if s else s for i, s in enumerate(segments))
    keys = sorted({k for k, _ in parse_qsl(parts.query, keep_blank_values=True)})
    query = ("?" + "&".join(f"{k}=" for k in keys)) if keys else ""
    return f"{netloc.lower()}{path or '/'}{query}"


@dataclass(slots=True)
class TemplateLearner:
    """Counts browser escalations per URL template (the template includes the host, so the
    learning is per site); from ``threshold`` escalations on, the template is rendered
    directly. ``threshold`` 0 turns learning off.

    >>> learner = TemplateLearner(2)
    >>> learner.record("http://a.example/p/one-x.html"), learner.learned("http://a.example/p/two-y.html")
    (1, False)
    >>> learner.record("http://a.example/p/two-y.html"), learner.learned("http://a.example/p/3-z.html")
    (2, True)
    >>> learner.learned("http://b.example/p/two-y.html")
    False
    >>> learner.learn_site("http://b.example/news/2020/01/a-b.html")
    >>> learner.learned("http://b.example/shop/item?id=3"), learner.learned_site("http://b.example/")
    (True, True)
    """

    threshold: int
    counts: Counter[str] = field(default_factory=Counter)
    #: hosts (``host[:port]``) whose every page goes to the browser
    sites: set[str] = field(default_factory=set)

    def record(self, url: str) -> int:
        """Count one escalation of ``url``'s template; the new count."""
        key = url_template(url)
        self.counts[key] += 1
        return self.counts[key]

    def learned(self, url: str) -> bool:
        if self.threshold <= 0:
            return False
        template = url_template(url)
        return self.counts[template] >= self.threshold or site_of(template) in self.sites

    def learn_site(self, url: str) -> None:
        """Every page of ``url``'s site goes to the browser from now on."""
        self.sites.add(site_of(url_template(url)))

    def learned_site(self, url: str) -> bool:
        return self.threshold > 0 and site_of(url_template(url)) in self.sites


def site_of(template: str) -> str:
    """The site (``host[:port]``) of a URL template.

    >>> site_of("shop.example:8080/p/{n}.html")
    'shop.example:8080'
    """
    return template.split("/", 1)[0]
