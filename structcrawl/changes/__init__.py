"""Change detection across runs (pure): entity fingerprints, comparison with the previous
run (``new``, ``changed``, ``unchanged``, ``gone``) and the store that keeps fingerprints
between runs.

The Scrapy side lives in :mod:`structcrawl.crawl.pipelines._changes` (used by the entity pipeline)
and :mod:`structcrawl.changes.httpcache` (HTTP revalidation for incremental crawls); importing
this package imports neither.
"""

from structcrawl.changes.compare import STATUSES, Change, changed_fields, compare, diff_runs, gone
from structcrawl.changes.fingerprint import (
    EntityFingerprint,
    canonical,
    field_values,
    fingerprint,
    is_ignored,
    value_hash,
)
from structcrawl.changes.store import ChangeStore, SqliteChangeStore, open_change_store
from structcrawl.changes.tracker import ChangeTracker, page_failed

__all__ = [
    "STATUSES",
    "Change",
    "ChangeStore",
    "ChangeTracker",
    "EntityFingerprint",
    "SqliteChangeStore",
    "canonical",
    "changed_fields",
    "compare",
    "diff_runs",
    "field_values",
    "fingerprint",
    "gone",
    "is_ignored",
    "open_change_store",
    "page_failed",
    "value_hash",
]
