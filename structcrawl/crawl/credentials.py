"""Credentials in the operator's URLs (``https://user:password@host/``), sent the way a
browser sends them and kept out of every URL the crawl stores or logs.

The site spider takes the user information out of its start URLs and sitemaps
(``spider.url_credentials``: ``host:port`` -> ``(user, password)``, see
:func:`structcrawl.core.redact.split_credentials`); :class:`UrlCredentialsMiddleware` adds
them as HTTP basic authentication to every request for that same endpoint (scheme's default
port included) that carries no ``Authorization`` of its own, so the site's other pages and
the redirects that stay on it are fetched as the start URL was. A redirect to another host
gets no credentials (Scrapy's redirect middleware drops ``Authorization`` there, and this one
adds it only for the endpoint it was given for).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from w3lib.http import basic_auth_header

__all__ = ["UrlCredentialsMiddleware", "endpoint"]

_PORTS = {"http": 80, "https": 443}


def endpoint(url: str) -> str:
    """``host:port`` of ``url`` (the scheme's port when none is given).

    >>> endpoint("https://Shop.example/p"), endpoint("http://127.0.0.1:8080/")
    ('shop.example:443', '127.0.0.1:8080')
    """
    parts = urlsplit(url)
    try:
        port = parts.port or _PORTS.get(parts.scheme.lower(), 0)
    except ValueError:
        port = 0
    return f"{(parts.hostname or '').lower()}:{port}"


class UrlCredentialsMiddleware:
    """Basic authentication for the endpoints whose URL the operator gave with credentials."""

    def __init__(self, crawler: Crawler):
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> UrlCredentialsMiddleware:
        if not crawler.settings.getbool("STRUCTCRAWL_URL_CREDENTIALS", True):
            raise NotConfigured("STRUCTCRAWL_URL_CREDENTIALS is off")
        return cls(crawler)

    def process_request(self, request: Request, spider: Any = None) -> None:
        accounts = getattr(self.crawler.spider, "url_credentials", None)
        if not accounts or b"Authorization" in request.headers:
            return None
        account = accounts.get(endpoint(request.url))
        if account is not None:
            request.headers[b"Authorization"] = basic_auth_header(*account)
        return None
