"""The rendered-snapshot cache inside the download handler: a page whose server HTML has not
changed since an earlier crawl rendered it gets that render back instead of a browser.

Every render of the handler goes through :meth:`SnapshotRun.render`. With a snapshot of the
URL (:class:`~structcrawl.render.snapshots.SnapshotStore`) it asks whether the server's page
changed: the HTTP response the handler already has (a page judged before it was escalated or
audited) is compared by SHA-256; a page routed straight to the browser (a rule, a learned
template or site, the request's wish) is asked with a conditional request (``If-None-Match`` /
``If-Modified-Since`` from the snapshot, through the plain HTTP handler), a 304 or the same
body meaning unchanged. An unchanged page gets the snapshot's rendered DOM, JSON responses,
app state and rendering context, with ``render.cache`` saying so (``hit``, how it was
validated, when it was rendered) and ``render_ms`` 0; a changed or new page is rendered and
its snapshot kept. A conditional request that fails only means the page is rendered.

Stats: ``structcrawl/render/cache/hit`` (and ``/hit/not-modified``, ``/hit/same-body``),
``/miss`` (no snapshot of the URL), ``/changed`` (the server's page, or what decides the
render, changed), ``/stored``, ``/revalidate_failed``, ``/unusable`` (the store could not be
opened, read or written: the crawl renders as without it).
"""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime
from typing import Any

from scrapy import Request
from scrapy.http import Headers, Response
from scrapy.responsetypes import responsetypes

import structcrawl
from structcrawl.render._body import decoded_body
from structcrawl.render._session import SERVER_FACTS_META, render_page
from structcrawl.render.evidence import SERVER_BODY_META, server_html
from structcrawl.render.routing import Route, ShellVerdict
from structcrawl.render.snapshots import (
    Snapshot,
    SnapshotStore,
    body_sha256,
    fingerprint,
    unchanged,
)

__all__ = ["CACHE_FLAG", "SnapshotRun"]

logger = logging.getLogger("structcrawl.render")
_PREFIX = "structcrawl/render/cache/"
#: ``response.flags`` of a page served from its rendered snapshot.
CACHE_FLAG = "render-cache"


class SnapshotRun:
    """The render cache of one crawl (shared by the handler instances of one crawler)."""

    def __init__(self, core: Any):  # the handler's shared state (handler._Core)
        self.core = core
        self.stats = core.stats
        config = core.config
        self.store: SnapshotStore | None = None
        if config.enabled and config.cache_path:
            try:
                self.store = SnapshotStore(config.cache_path, config.cache_max_age)
            except Exception as exc:  # sqlite3.Error, OSError: render as without a cache
                self._unusable("open", exc)
        self.fingerprint = fingerprint(
            config.app_state,
            config.capture_json,
            config.capture_max_bytes,
            config.viewport,
            config.locale,
            config.timezone,
            config.user_agent,
            sorted(config.block_resources),
            structcrawl.__version__,
        )

    def _count(self, name: str) -> None:
        self.stats.inc_value(_PREFIX + name)

    def _unusable(self, what: str, exc: Exception) -> None:
        self._count("unusable")
        logger.warning("render cache: cannot %s %s: %s", what, self.core.config.cache_path, exc)

    def close(self) -> None:
        if self.store is not None:
            self.store.close()
            self.store = None

    async def render(
        self,
        request: Request,
        route: Route,
        http_response: Response | None,
        verdict: ShellVerdict | None,
    ) -> Response:
        core = self.core
        if self.store is None or request.method != "GET":
            try:
                return await render_page(
                    core, request, route, http_response=http_response, verdict=verdict
                )
            finally:
                request.meta.pop(SERVER_FACTS_META, None)
        key = fingerprint(self.fingerprint, route.rule, route.plan)
        snapshot = self._get(request.url)
        if snapshot is None:
            self._count("miss")
        else:
            how, http_response = await self._validate(request, snapshot, key, http_response)
            if how is not None:
                return self._reuse(request, route, snapshot, how, http_response, verdict)
            self._count("changed")
        try:
            response = await render_page(
                core, request, route, http_response=http_response, verdict=verdict
            )
        finally:
            facts = request.meta.pop(SERVER_FACTS_META, None) or {}
        self._keep(request, key, response, facts)
        return response

    def _get(self, url: str) -> Snapshot | None:
        assert self.store is not None
        try:
            return self.store.get(url)
        except Exception as exc:  # a damaged row or file: render the page
            self._unusable("read", exc)
            return None

    async def _validate(
        self, request: Request, snapshot: Snapshot, key: str, http_response: Response | None
    ) -> tuple[str | None, Response | None]:
        """How the server's page is known unchanged (or None), and the HTTP response to
        render from when it changed."""
        if http_response is not None:
            return unchanged(snapshot, key, body=_server_body(http_response)), http_response
        if snapshot.fingerprint != key:
            return None, None
        meta = {k: v for k, v in request.meta.items() if not k.startswith("playwright")}
        headers = request.headers.copy()
        for name, value in snapshot.validators.items():
            headers[name] = value
        asked = request.replace(headers=headers, meta=meta)
        try:
            response: Response = await self.core.http.download_request(asked)
        except Exception as exc:  # the page is rendered, as without a snapshot
            self._count("revalidate_failed")
            logger.debug("render cache: revalidating %s failed: %s", request.url, exc)
            return None, None
        if response.status == 304:
            return unchanged(snapshot, key, status=304), None
        if not 200 <= response.status < 300:
            return None, None
        return unchanged(snapshot, key, body=_server_body(response)), response

    def _reuse(
        self,
        request: Request,
        route: Route,
        snapshot: Snapshot,
        how: str,
        http_response: Response | None,
        verdict: ShellVerdict | None,
    ) -> Response:
        self._count("hit")
        self._count(f"hit/{how}")
        meta = request.meta
        meta["playwright"] = True
        meta["structcrawl_render_reason"] = route.reason
        context = {k: v for k, v in snapshot.context.items() if k not in ("audit", "signals")}
        context.update(reason=route.reason, render_ms=0, queued_ms=0)
        context["cache"] = {
            "hit": True,
            "validated_by": how,
            "rendered_at": datetime.fromtimestamp(snapshot.rendered_at, UTC).isoformat(
                timespec="seconds"
            ),
            "render_ms": snapshot.context.get("render_ms"),
        }
        if verdict is not None:
            context["signals"] = list(verdict.signals)
        meta["structcrawl_render"] = context
        meta["structcrawl_render_network"] = [dict(entry) for entry in snapshot.network]
        server_body = server_html(http_response)[0] if http_response is not None else None
        server_body = server_body if server_body is not None else snapshot.server_body
        if server_body is not None and len(server_body) <= self.core.maxsize:
            meta[SERVER_BODY_META] = server_body
        grouped: dict[str, list[str]] = {}
        for name, value in snapshot.headers:
            grouped.setdefault(name, []).append(value)
        headers = Headers(grouped)
        cls = responsetypes.from_args(headers=headers, url=snapshot.final_url, body=snapshot.body)
        kwargs: dict[str, Any] = {"encoding": snapshot.encoding} if snapshot.encoding else {}
        return cls(
            url=snapshot.final_url,
            status=snapshot.status,
            headers=headers,
            body=snapshot.body,
            request=request,
            flags=[CACHE_FLAG],
            **kwargs,
        )

    def _keep(self, request: Request, key: str, response: Response, facts: dict[str, Any]) -> None:
        """Keep the render of a 2xx page whose server HTML is known."""
        server_body = request.meta.get(SERVER_BODY_META)
        if self.store is None or server_body is None or not 200 <= response.status < 300:
            return
        snapshot = Snapshot(
            url=request.url,
            fingerprint=key,
            server_sha256=body_sha256(server_body),
            etag=facts.get("etag"),
            last_modified=facts.get("last-modified"),
            rendered_at=time.time(),
            status=response.status,
            final_url=response.url,
            headers=[
                (k.decode("latin-1"), v.decode("latin-1"))
                for k, values in response.headers.items()
                for v in values
            ],
            encoding=getattr(response, "encoding", None),
            body=response.body,
            server_body=server_body,
            server_type=facts.get("type"),
            network=list(request.meta.get("structcrawl_render_network") or []),
            context=dict(request.meta.get("structcrawl_render") or {}),
        )
        try:
            self.store.put(snapshot)
        except Exception as exc:  # a full disk, a locked file: the crawl goes on
            self._unusable("write", exc)
            return
        self._count("stored")


def _server_body(response: Response) -> bytes | None:
    return decoded_body(response.body, response.headers.getlist(b"Content-Encoding"))
