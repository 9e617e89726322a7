"""``ChallengeMiddleware``: a bot challenge is an answer, not a transient failure.

A downloader middleware placed before the retry middleware (``process_response`` runs from
the highest order down: 590 decompression, 560 here, 550 retry). For each response it asks
:func:`structcrawl.core.challenge.detect_challenge` (status, headers, decompressed body); a
challenge is noted in ``request.meta["structcrawl_challenge"]`` (vendor and signals, also set
by the render handler when it refused to render one) and ``dont_retry`` is set, so a 403, 429
or 503 challenge is not retried with backoff. The spider then ends the page as a
``challenge`` error record (records feed, page ledger ``error:challenge``, report). A response
the render handler already read and found not to be a challenge (same status and body length)
is not read again.

Stats: ``structcrawl/challenge/pages``, ``structcrawl/challenge/vendor/<vendor>``.
"""

from __future__ import annotations

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.http import Response

from structcrawl.core.challenge import CHALLENGE_CHECKED_META, CHALLENGE_META, detect_challenge

__all__ = ["ChallengeMiddleware"]


class ChallengeMiddleware:
    """See the module documentation (``STRUCTCRAWL_CHALLENGE_ENABLED``)."""

    def __init__(self, crawler: Crawler):
        self.crawler = crawler
        self.stats = crawler.stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ChallengeMiddleware:
        if not crawler.settings.getbool("STRUCTCRAWL_CHALLENGE_ENABLED", True):
            raise NotConfigured("STRUCTCRAWL_CHALLENGE_ENABLED is off")
        return cls(crawler)

    def process_response(self, request: Request, response: Response) -> Response:
        found = request.meta.get(CHALLENGE_META)
        checked = request.meta.pop(CHALLENGE_CHECKED_META, None)
        if found is None and checked == (response.status, len(response.body)):
            return response  # the download handler read this response already
        if found is None:
            headers = {
                k.decode("latin-1"): [v.decode("latin-1") for v in values]
                for k, values in response.headers.items()
            }
            challenge = detect_challenge(response.status, headers, response.body)
            if challenge is None:
                return response
            found = request.meta[CHALLENGE_META] = challenge.to_dict()
        request.meta["dont_retry"] = True
        self.stats.inc_value("structcrawl/challenge/pages")
        self.stats.inc_value(f"structcrawl/challenge/vendor/{found.get('vendor')}")
        return response
