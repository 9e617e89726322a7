"""``structcrawl.page_item(response)``: a Scrapy response as the page item the pipelines read.

Any spider hands its pages to structcrawl's pipelines (with ``structcrawl.Addon`` enabled) by
yielding one page item per response::

    import scrapy, structcrawl

    class MySpider(scrapy.Spider):
        name = "mine"
        start_urls = ["https://example.com/"]

        def parse(self, response):
            yield structcrawl.page_item(response)   # records, entities, report
            yield from response.follow_all(css="a.product")

The ``site`` spider builds its page items the same way.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from scrapy.http import Response

from structcrawl.core.challenge import CHALLENGE_META, challenge_message
from structcrawl.core.document import PARSED_META, parse_html
from structcrawl.core.links import robots_directives
from structcrawl.core.payload import classify, split_content_type
from structcrawl.core.redact import redact_headers, redact_url
from structcrawl.crawl.items import PageItem
from structcrawl.render.evidence import SERVER_BODY_META

__all__ = ["page_item", "requested_url", "utc_now"]


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def requested_url(response: Response) -> str:
    """The URL that was asked for: the first of a redirect chain, else the request's own
    (a browser may have followed redirects itself: ``response.url`` is where it ended)."""
    redirects = response.meta.get("redirect_urls") if response.request is not None else None
    if redirects:
        return str(redirects[0])
    return response.request.url if response.request is not None else response.url


def page_item(response: Response, stats: Any = None) -> PageItem:
    """The page item of ``response``: fetch facts, redacted headers, the body and (for HTML)
    the parsed document, parsed once and shared by every extractor. ``stats`` (a Scrapy stats
    collector) counts whether the download handler's parse was reused."""
    headers = response.headers
    raw_type = headers.get(b"Content-Type")
    content_type = raw_type.decode("latin-1") if raw_type else None
    mime, charset = split_content_type(content_type)
    meta = response.meta if response.request is not None else {}
    body = response.body
    url = redact_url(response.url)  # credentials in URLs are never stored (docs/security.md)
    item = PageItem(
        url=redact_url(requested_url(response)),
        final_url=url,
        redirect_urls=[redact_url(u) for u in meta.get("redirect_urls", [])],
        status=response.status,
        headers=redact_headers(headers),
        content_type=mime or None,
        charset=charset,
        body_size=len(body),
        retrieved_at=utc_now(),
        latency=meta.get("download_latency"),
        fetched_with="browser" if meta.get("playwright") else "http",
        fetch_reason=meta.get("structcrawl_render_reason"),
        render=meta.get("structcrawl_render"),
        network=list(meta.get("structcrawl_render_network") or []),
        server_body=meta.pop(SERVER_BODY_META, None) or b"",
        depth=meta.get("depth", 0),
        body=body,
    )
    challenge = meta.get(CHALLENGE_META)
    if challenge:  # a bot challenge, not the page: an error record, nothing to parse
        item.fetch_error = {"code": "challenge", "message": challenge_message(challenge)}
        return item
    if response.status < 400 and classify(content_type, body) in ("html", "xhtml"):
        parsed = meta.pop(PARSED_META, None)
        if parsed and parsed[0] == len(body) and parsed[1].url == url:
            item.document = parsed[1]  # parsed once already, by the download handler
            if stats is not None:
                stats.inc_value("structcrawl/site/parse_reused")
        else:
            item.document = parse_html(body, url, content_type=content_type)
            if stats is not None:
                stats.inc_value("structcrawl/site/parsed")
        item.charset = item.charset or item.document.encoding
    item.robots = robots_directives(item.document, headers.getlist(b"X-Robots-Tag"))
    return item
