"""Pages of remote feeds that were not stored (pure): the ledger's correction once the uploads
have ended.

A page line of the ledger names the remote page feeds (S3) that took its lines (``upload``,
:func:`structcrawl.crawl.uploads.uploads_taking`); the page was accounted when it reached
them, before their upload, which runs as the spider closes. When an upload failed, the page
is not in the feeds: its lines are in that feed's spool file, kept and named in the error.
:func:`unstored` turns such a line into a ``kept`` one (outcome ``unwritten:upload``, the
error in its message), and :func:`rewrite_ledger` does it for a ledger file, streaming it.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from structcrawl.ledger.pages import Ledger

__all__ = ["UNSTORED", "rewrite_ledger", "unstored"]

#: The outcome of a page whose lines went to a remote feed whose upload failed.
UNSTORED = "unwritten:upload"


def unstored(
    ledger: Ledger, line: Mapping[str, Any], failed: Mapping[str, str]
) -> dict[str, Any] | None:
    """The ``kept`` line replacing ``line`` when a remote feed that took the page's lines was
    not stored (``failed``: URI -> error), the ledger's figures moved from accounted to kept;
    None when the line stands.

    >>> ledger = Ledger(); ledger.request("http://a.example/")
    >>> line = ledger.account({"url": "http://a.example/", "outcome": "records",
    ...     "in_pages": True, "upload": ["s3://b/pages.jsonl"]})
    >>> kept = unstored(ledger, line, {"s3://b/pages.jsonl": "not stored; kept in /tmp/s"})
    >>> kept["outcome"], kept["problem"], kept["message"], kept["in_pages"]
    ('unwritten:upload', 'kept', 'not stored; kept in /tmp/s', True)
    >>> s = ledger.summary(); s["accounted"], s["kept"], s["by_outcome"]
    (0, 1, {})
    >>> unstored(ledger, {**line, "upload": ["s3://b/other.jsonl"]}, {"s3://b/x": "e"}) is None
    True
    """
    if line.get("problem") is not None:
        return None
    missing = [uri for uri in line.get("upload") or () if uri in failed]
    if not missing:
        return None
    outcome = str(line.get("outcome"))
    ledger.accounted -= 1
    ledger.outcomes[outcome] -= 1
    if ledger.outcomes[outcome] <= 0:
        del ledger.outcomes[outcome]
    ledger.problems["kept"] += 1
    message = "; ".join(failed[uri] for uri in missing)
    # ``in_pages`` stays: the page's line is in the pages feed's kept file, or another one
    return {**line, "outcome": UNSTORED, "message": message, "problem": "kept"}


def rewrite_ledger(path: Path, ledger: Ledger, failed: Mapping[str, str]) -> Counter[str]:
    """Rewrite the ledger file ``path`` with :func:`unstored`'s lines (a line at a time, the
    file replaced whole); returns the outcomes moved to ``kept``, by outcome."""
    moved: Counter[str] = Counter()
    partial = path.with_name(path.name + ".partial")
    with path.open(encoding="utf-8") as old, partial.open("w", encoding="utf-8") as new:
        for text in old:
            try:
                line = json.loads(text)
            except ValueError:
                new.write(text)
                continue
            kept = unstored(ledger, line, failed) if isinstance(line, dict) else None
            if kept is None:
                new.write(text)
                continue
            moved[str(line.get("outcome"))] += 1
            new.write(json.dumps(kept, ensure_ascii=False) + "\n")
    partial.replace(path)
    return moved
