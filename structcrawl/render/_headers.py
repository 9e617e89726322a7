"""The browser's request headers under the crawl's header policy: credentials only to the
endpoint they were set for.

scrapy-playwright gives every navigation request of a rendered page (the page's own, its
iframes', the ones its scripts start) the Scrapy request's headers
(``use_scrapy_headers``), ``Authorization`` and ``Cookie`` included, whatever host it goes
to. Chromium also keeps headers given to a request on the redirects of it. So
:func:`scoped_headers` (``PLAYWRIGHT_PROCESS_REQUEST_HEADERS``, set by
:func:`structcrawl.render.browser.playwright_settings`) keeps them for requests to the
Scrapy request's own host and port only, as Scrapy's ``HttpAuthMiddleware`` scopes
``http_user`` to its domain and its redirect middleware drops ``Authorization`` and ``Cookie``
on a redirect to another host; and :func:`fetch_credentialed` (the navigation guard's) sends a
navigation that carries them itself, without following redirects, and hands the browser the
response: Chromium follows a redirect with its own headers, never the crawl's.
"""

from __future__ import annotations

from typing import Any

from scrapy_playwright.headers import use_scrapy_headers

from structcrawl.core.addresses import endpoint_of

__all__ = ["CREDENTIAL_HEADERS", "fetch_credentialed", "same_endpoint", "scoped_headers"]

#: Headers that carry the crawl's credentials.
CREDENTIAL_HEADERS = frozenset({"authorization", "cookie", "proxy-authorization"})


def same_endpoint(url: str, other: str) -> bool:
    """Whether two URLs name the same host and port.

    >>> same_endpoint("https://a.example/x", "https://A.example:443/y")
    True
    >>> same_endpoint("http://a.example/", "http://a.example:8080/")
    False
    """
    mine = endpoint_of(url)
    return mine is not None and mine == endpoint_of(other)


async def scoped_headers(
    *, browser_type_name: str, playwright_request: Any, scrapy_request_data: dict[str, Any]
) -> dict[str, str]:
    """scrapy-playwright's headers, without the crawl's credentials on requests to another
    endpoint than the Scrapy request's."""
    headers = await use_scrapy_headers(
        browser_type_name=browser_type_name,
        playwright_request=playwright_request,
        scrapy_request_data=scrapy_request_data,
    )
    if same_endpoint(str(playwright_request.url), str(scrapy_request_data["url"])):
        return headers
    kept = {k: v for k, v in headers.items() if k.lower() not in CREDENTIAL_HEADERS}
    own = await playwright_request.all_headers()  # the browser's own (its cookie jar's) stay
    kept.update({k: v for k, v in own.items() if k.lower() in CREDENTIAL_HEADERS})
    return kept


def _has_credentials(scrapy_request: Any) -> bool:
    headers = getattr(scrapy_request, "headers", None) or {}
    return any(
        (k.decode("latin-1") if isinstance(k, bytes) else str(k)).lower() in CREDENTIAL_HEADERS
        for k in headers
    )


async def fetch_credentialed(route: Any, request: Any, scrapy_request: Any) -> bool:
    """Fetch a navigation request to the Scrapy request's own endpoint that carries the
    crawl's credentials, redirects not followed, and fulfil it with the response (the
    request goes through the browser context's proxy, the egress proxy). False when the
    navigation carries none (left to scrapy-playwright)."""
    url = str(request.url)
    if not _has_credentials(scrapy_request) or not same_endpoint(url, str(scrapy_request.url)):
        return False
    headers = await scoped_headers(
        browser_type_name="chromium",
        playwright_request=request,
        scrapy_request_data={"url": scrapy_request.url, "headers": scrapy_request.headers},
    )
    response = await route.fetch(headers=headers, max_redirects=0)
    await route.fulfill(response=response)
    return True
