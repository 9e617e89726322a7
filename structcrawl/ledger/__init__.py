"""The page ledger: every requested URL ends in exactly one outcome.

:mod:`.pages` is the ledger itself and its check (pure); :mod:`.journal` the crash-safe job
journal of a resumable crawl (pure); :mod:`.resume` replays it; :mod:`.extension` follows a
crawl through Scrapy's signals (:class:`~structcrawl.ledger.extension.PageLedger`).
"""

from __future__ import annotations

from structcrawl.ledger.pages import (
    Ledger,
    LedgerCheck,
    add_arguments,
    check_ledger,
    ledger_only_line,
    page_line,
    read_jsonl,
    run,
)

__all__ = [
    "Ledger",
    "LedgerCheck",
    "add_arguments",
    "check_ledger",
    "ledger_only_line",
    "page_line",
    "read_jsonl",
    "run",
]
