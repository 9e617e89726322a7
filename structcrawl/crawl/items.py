"""Typed items. Pipelines touch them through ``ItemAdapter``.

A :class:`PageItem` is one fetched URL: what was asked for, what came back, how it was
fetched, where its raw bytes are kept, and (after the extraction pipeline) its records.
``body``, ``server_body`` (the server's own HTML of a rendered page), ``document`` and
``network`` (captured JSON responses) are transient: they are never exported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["TRANSIENT_FIELDS", "EntityItem", "PageItem"]

#: Fields that carry in-process data (bytes, the parsed tree) and are never exported.
TRANSIENT_FIELDS = frozenset({"body", "server_body", "document", "network", "resolution"})


@dataclass(kw_only=True)
class PageItem:
    url: str = field(metadata={"doc": "The URL that was requested (before redirects)."})
    final_url: str = field(metadata={"doc": "The URL of the response after redirects."})
    redirect_urls: list[str] = field(default_factory=list, metadata={"doc": "Redirect chain."})
    status: int | None = field(default=None, metadata={"doc": "HTTP status; None if no response."})
    headers: dict[str, list[str]] = field(
        default_factory=dict, metadata={"doc": "Response headers, secrets redacted."}
    )
    content_type: str | None = field(default=None, metadata={"doc": "Declared MIME type."})
    charset: str | None = field(default=None, metadata={"doc": "Declared or detected charset."})
    body_size: int = field(default=0, metadata={"doc": "Body size in bytes (decoded)."})
    retrieved_at: str = field(default="", metadata={"doc": "UTC ISO 8601 retrieval time."})
    latency: float | None = field(default=None, metadata={"doc": "Download latency, seconds."})
    fetched_with: str = field(default="http", metadata={"doc": "'http' or 'browser'."})
    fetch_reason: str | None = field(default=None, metadata={"doc": "Why a browser was used."})
    http_cache: str | None = field(
        default=None,
        metadata={
            "doc": "HTTP cache outcome (incremental crawls): miss, hit, revalidated (304: the "
            "cached body was used), modified or stale; None when the cache is off."
        },
    )
    depth: int = field(default=0, metadata={"doc": "Link depth from the start URLs."})
    robots: list[str] = field(
        default_factory=list,
        metadata={
            "doc": "Robots directives of the page (meta robots, X-Robots-Tag): noindex, "
            "nofollow (its links were not followed), noarchive, nosnippet."
        },
    )
    body_ref: str | None = field(default=None, metadata={"doc": "sha256:<hex> of the body."})
    body_uri: str | None = field(default=None, metadata={"doc": "Where the raw body is kept."})
    server_body_ref: str | None = field(
        default=None,
        metadata={
            "doc": "Rendered pages: sha256:<hex> of the HTML as the server sent it (body_ref is "
            "the rendered DOM)."
        },
    )
    server_body_uri: str | None = field(
        default=None, metadata={"doc": "Where the server's HTML of a rendered page is kept."}
    )
    payload_kind: str | None = field(default=None, metadata={"doc": "html, json, pdf, ..."})
    fetch_error: dict[str, str] | None = field(
        default=None, metadata={"doc": "{'code', 'message'} when the fetch failed."}
    )
    records: list[dict[str, Any]] = field(
        default_factory=list, metadata={"doc": "Records and error records of this page."}
    )
    visible: Any = field(
        default=None,
        metadata={"doc": "Visible-page facts (title, h1, canonical, prices, times)."},
    )
    render: dict[str, Any] | None = field(
        default=None,
        metadata={"doc": "Rendering context when fetched with the browser (structcrawl.render)."},
    )
    typed_items: list[dict[str, Any]] | None = field(
        default=None,
        metadata={
            "doc": "The page's typed items, built while its parsed page is there "
            "(structcrawl.crawl.pipelines.typeditems); None when not built."
        },
    )
    network: list[dict[str, Any]] = field(
        default_factory=list,
        repr=False,
        metadata={"doc": "Transient JSON responses captured while rendering."},
    )
    body: bytes = field(default=b"", repr=False, metadata={"doc": "Transient raw body."})
    server_body: bytes = field(
        default=b"", repr=False, metadata={"doc": "Transient: the server's HTML (rendered pages)."}
    )
    document: Any = field(default=None, repr=False, metadata={"doc": "Transient parsed tree."})
    resolution: Any = field(
        default=None,
        repr=False,
        metadata={
            "doc": "Transient: the page's things resolved once, shared by the entity merge and "
            "the typed items (structcrawl.crawl.pipelines._resolution)."
        },
    )

    def page_info(self) -> dict[str, Any]:
        """The page's fetch facts, as attached to each exported record."""
        return {
            "url": self.url,
            "final_url": self.final_url,
            "status": self.status,
            "fetched_with": self.fetched_with,
            "fetch_reason": self.fetch_reason,
            "retrieved_at": self.retrieved_at,
            "body_ref": self.body_ref,
            "payload_kind": self.payload_kind,
        }


@dataclass(kw_only=True)
class EntityItem:
    """One entity after deduplication: every sighting across layers and pages merged.

    Emitted once per entity when the crawl has no more pages to fetch (see
    :class:`structcrawl.crawl.pipelines.entities.EntityPipeline`); the ``entities`` feeds write one
    line (or CSV row) per entity item.
    """

    key: str = field(metadata={"doc": "Stable key: canonical @id, else derived (type + ids)."})
    keys: list[str] = field(
        default_factory=list,
        metadata={
            "doc": "Every key the entity was stored under (its pages named it by different "
            "identifiers); an item's entityKey is one of them."
        },
    )
    id: str | None = field(
        default=None, metadata={"doc": "The entity's @id, if any source gave one."}
    )
    type: list[str] = field(default_factory=list, metadata={"doc": "Union of the sources' types."})
    properties: dict[str, Any] = field(
        default_factory=dict, metadata={"doc": "Merged values (highest-precedence layer wins)."}
    )
    sources: list[dict[str, Any]] = field(
        default_factory=list, metadata={"doc": "Every sighting: page url, format, element, time."}
    )
    conflicts: list[dict[str, Any]] = field(
        default_factory=list, metadata={"doc": "Fields where sources disagree, with each value."}
    )
    provenance: dict[str, list[dict[str, Any]]] = field(
        default_factory=dict, metadata={"doc": "Per field: url, format, path, raw and value."}
    )
    formats: list[str] = field(default_factory=list, metadata={"doc": "Layers it was seen in."})
    flags: list[dict[str, Any]] = field(
        default_factory=list, metadata={"doc": "Normalization flags of its sources."}
    )
    validation: dict[str, Any] | None = field(
        default=None, metadata={"doc": "{valid, errors, warnings} of the merged entity."}
    )
    source_validation: list[dict[str, Any]] = field(
        default_factory=list, metadata={"doc": "Validation results of the source records."}
    )
    sightings: int = field(default=0, metadata={"doc": "How many records were merged."})
    first_seen: str | None = field(default=None, metadata={"doc": "Earliest retrieval time."})
    last_seen: str | None = field(default=None, metadata={"doc": "Latest retrieval time."})
    change: dict[str, Any] | None = field(
        default=None,
        metadata={
            "doc": "Compared with the previous run: {status: new|changed|unchanged|gone, "
            "fields: changed dotted fields, previous_seen, fingerprint} (structcrawl.changes)."
        },
    )
