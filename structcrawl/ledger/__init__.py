"""The page ledger: every requested URL ends in exactly one outcome.

:mod:`.pages` is the ledger itself (pure), :mod:`.check` its check against the feeds and the
ledger of a job's runs (pure); :mod:`.journal` the crash-safe job journal of a resumable crawl
(pure); :mod:`.resume` replays it; :mod:`.uploads` the pages of remote feeds that were not
stored and their re-delivery by the resumed run; :mod:`.extension` follows a crawl through
Scrapy's signals (:class:`~structcrawl.ledger.extension.PageLedger`).
"""

from __future__ import annotations

from structcrawl.ledger.check import LedgerCheck, add_arguments, check_ledger, run
from structcrawl.ledger.pages import Ledger, ledger_only_line, page_line, read_jsonl

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
