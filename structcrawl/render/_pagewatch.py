"""What the egress proxy (:mod:`structcrawl.render.egress`) did to one rendered page's
requests, seen from the page's own events (:class:`PageWatch`). No Scrapy imports."""

from __future__ import annotations

from dataclasses import dataclass, field

from structcrawl.core.addresses import Refusal
from structcrawl.render.egress import EgressProxy

__all__ = ["PageWatch"]


@dataclass
class PageWatch:
    """What the egress proxy did to one rendered page's requests, seen from the page's own
    ``requestfailed`` and ``response`` events: the refused ones (at most ``limit`` kept, all
    counted), the refusal of the page's own navigation (or of a redirect of it), and the
    responses cut at the size limit."""

    proxy: EgressProxy
    limit: int = 100
    refused: list[dict[str, object]] = field(default_factory=list)
    refused_count: int = 0
    navigation: Refusal | None = None
    cut: list[str] = field(default_factory=list)
    _urls: set[str] = field(default_factory=set)

    def note(self, url: str, refusal: Refusal) -> None:
        """One refused request of the page (each URL once)."""
        if url in self._urls:
            return
        if len(self._urls) < 10 * self.limit:
            self._urls.add(url)
        self.refused_count += 1
        if len(self.refused) < self.limit:
            self.refused.append({"url": url, "refused": refusal.to_dict(), "note": refusal.message})

    def on_response(self, response: object) -> None:
        if getattr(response, "status", None) == 403:  # how a refused plain-http request ends
            self.seen(getattr(response, "request", None), failed=False)

    def on_request_failed(self, request: object) -> None:
        self.seen(request, failed=True)

    def seen(self, request: object, *, failed: bool) -> None:
        try:
            url = str(getattr(request, "url", ""))
            navigation = bool(request.is_navigation_request())  # type: ignore[attr-defined]
            main = navigation and request.frame.parent_frame is None  # type: ignore[attr-defined]
        except Exception:  # a request without a frame (a worker's)
            navigation = main = False
        refusal = self.proxy.refusal_for(url)
        if refusal is not None:
            if main and self.navigation is None and url not in self._urls:
                self.navigation = refusal  # not aborted by the route: a redirect of it
            self.note(url, refusal)
        elif failed and self.proxy.was_cut(url) and len(self.cut) < self.limit:
            self.cut.append(url)
