"""Request meta keys that the crawl's components share (the entity pipeline, the page ledger,
the distributed scheduler), kept apart from any one of them.
"""

from __future__ import annotations

__all__ = ["INTERNAL_META"]

#: Set on the crawl's own requests (the entity emission's ``data:`` request): not a page of the
#: site, so the ledger, the distributed scheduler and the claims leave it alone.
INTERNAL_META = "structcrawl_internal"
