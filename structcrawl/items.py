"""Typed items. Pipelines touch them through ``ItemAdapter``.

A :class:`PageItem` is one fetched URL: what was asked for, what came back, how it was
fetched, where its raw bytes are kept, and (after the extraction pipeline) its records.
``body`` and ``document`` are transient: they are never exported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["TRANSIENT_FIELDS", "PageItem"]

#: Fields that carry in-process data (bytes, the parsed tree) and are never exported.
TRANSIENT_FIELDS = frozenset({"body", "document"})


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
    depth: int = field(default=0, metadata={"doc": "Link depth from the start URLs."})
    body_ref: str | None = field(default=None, metadata={"doc": "sha256:<hex> of the body."})
    body_uri: str | None = field(default=None, metadata={"doc": "Where the raw body is kept."})
    payload_kind: str | None = field(default=None, metadata={"doc": "html, json, pdf, ..."})
    fetch_error: dict[str, str] | None = field(
        default=None, metadata={"doc": "{'code', 'message'} when the fetch failed."}
    )
    records: list[dict[str, Any]] = field(
        default_factory=list, metadata={"doc": "Records and error records of this page."}
    )
    body: bytes = field(default=b"", repr=False, metadata={"doc": "Transient raw body."})
    document: Any = field(default=None, repr=False, metadata={"doc": "Transient parsed tree."})

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
