"""Pages of remote feeds that were not stored (pure): the ledger's correction once the uploads
have ended, and what a resumed job re-delivers.

A page line of the ledger names the remote page feeds (S3) that took its lines (``upload``,
:func:`structcrawl.crawl.uploads.uploads_taking`); the page was accounted when it reached
them, before their upload, which runs as the spider closes. When an upload failed, the page
is not in the feeds: its lines are in that feed's spool file, kept and named in the error.
:func:`unstored` turns such a line into a ``kept`` one (outcome ``unwritten:upload``, the
error in its message), and :func:`rewrite_ledger` does it for a ledger file, streaming it.

With ``JOBDIR`` the run also writes what it could not deliver to
``<JOBDIR>/structcrawl-undelivered.jsonl`` (:data:`UNDELIVERED_FILE`), one JSON object a
line: ``{"feed": URI, "format": ..., "spool": KEPT FILE, "error": ...}`` per failed page feed
and ``{"page": LINE}`` per page kept (its ledger line as it was accounted). The resumed run
re-delivers the kept files (:mod:`structcrawl.ledger.redelivery`) and accounts for those
pages again (:func:`redelivered_line`), without fetching them again.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from structcrawl.ledger.pages import Ledger

__all__ = [
    "UNDELIVERED_FILE",
    "UNSTORED",
    "read_undelivered",
    "redelivered_line",
    "rewrite_ledger",
    "undelivered_pages",
    "unstored",
]

#: The outcome of a page whose lines went to a remote feed whose upload failed.
UNSTORED = "unwritten:upload"

#: What a run of a job (``JOBDIR``) could not deliver, for the next run (in ``JOBDIR``).
UNDELIVERED_FILE = "structcrawl-undelivered.jsonl"


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

    A page an earlier run kept whose re-delivery failed again is not ``redelivered``: its line
    says which kept files it came from (``redelivery_failed``).

    >>> ledger.request("http://b.example/")
    >>> again = ledger.account({**line, "url": "http://b.example/", "redelivered": ["/k/p"]})
    >>> kept = unstored(ledger, again, {"s3://b/pages.jsonl": "not stored; kept in /tmp/t"})
    >>> "redelivered" in kept, kept["redelivery_failed"], kept["problem"]
    (False, ['/k/p'], 'kept')
    """
    if line.get("problem") is not None:
        return None
    missing = [uri for uri in line.get("upload") or () if uri in failed]
    if not missing:
        return None
    ledger.unaccount(str(line.get("outcome")))
    message = "; ".join(failed[uri] for uri in missing)
    # ``in_pages`` stays: the page's line is in the pages feed's kept file, or another one
    kept = {k: v for k, v in line.items() if k != "redelivered"}
    if line.get("redelivered"):  # an earlier run's kept lines, not re-delivered this time either
        kept["redelivery_failed"] = line["redelivered"]
    return {**kept, "outcome": UNSTORED, "message": message, "problem": "kept"}


def rewrite_ledger(
    path: Path, ledger: Ledger, failed: Mapping[str, str], keep: IO[str] | None = None
) -> Counter[str]:
    """Rewrite the ledger file ``path`` with :func:`unstored`'s lines (a line at a time, the
    file replaced whole); returns the outcomes moved to ``kept``, by outcome. ``keep`` (the
    undelivered file being written) gets ``{"page": LINE}`` for each, the line as it was."""
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
            if keep is not None:
                keep.write(json.dumps({"page": line}, ensure_ascii=False) + "\n")
    partial.replace(path)
    return moved


def _objects(path: Path) -> Iterator[dict[str, Any]]:
    try:
        with path.open(encoding="utf-8") as fh:
            for text in fh:
                try:
                    value = json.loads(text)
                except ValueError:  # a torn last line: a run killed while writing it
                    continue
                if isinstance(value, dict):
                    yield value
    except FileNotFoundError:
        return


def read_undelivered(path: Path) -> dict[str, dict[str, Any]]:
    """The failed page feeds of an undelivered file: URI -> ``{"format", "spool", "error"}``
    (an absent file: none)."""
    return {
        str(obj["feed"]): {k: obj.get(k) for k in ("format", "spool", "error")}
        for obj in _objects(path)
        if "feed" in obj
    }


def undelivered_pages(path: Path) -> Iterator[dict[str, Any]]:
    """The ledger lines of the pages an undelivered file keeps, streamed."""
    for obj in _objects(path):
        if isinstance(obj.get("page"), dict) and obj["page"].get("url"):
            yield obj["page"]


def redelivered_line(
    line: Mapping[str, Any], feeds: Mapping[str, Mapping[str, Any]], present: set[str]
) -> tuple[dict[str, Any], list[str]]:
    """The line a resumed run accounts for a page an earlier run kept (``line`` as it was
    accounted): its lines are re-delivered to the feeds that did not store them, which its
    ``upload`` names; and the kept files among them that are gone (``present``: those that
    exist), with which the page is lost.

    >>> feeds = {"s3://b/p.jsonl": {"format": "pages", "spool": "/k/p"}}
    >>> line = {"url": "u", "outcome": "records", "upload": ["s3://b/p.jsonl", "s3://b/r"],
    ...         "problem": None}
    >>> again, gone = redelivered_line(line, feeds, {"/k/p"})
    >>> again["upload"], again["redelivered"], "problem" in again, gone
    (['s3://b/p.jsonl'], ['/k/p'], False, [])
    >>> redelivered_line(line, feeds, set())[1]
    ['/k/p']
    """
    uris = [uri for uri in line.get("upload") or () if uri in feeds]
    spools = [str(feeds[uri].get("spool")) for uri in uris]
    again = {k: v for k, v in line.items() if k != "problem"}
    again.update(upload=uris, redelivered=spools)
    return again, [spool for spool in spools if spool not in present]
