"""The garbage collector's tuning, shared by a crawl and its worker processes (no Scrapy).

A process that reads pages allocates millions of short-lived objects (element proxies, text
pieces, records); with Python's defaults the collector runs every 700 net allocations and its
full collections walk every object built at start-up. :func:`tune` collects once, freezes
what exists (start-up objects are never walked again) and raises the young generation's
threshold to :data:`YOUNG_THRESHOLD`; :func:`restore` undoes it. The crawl tunes its own
process while the spider runs (:class:`structcrawl.crawl.gctune.GcTuning`); a worker process
(:mod:`structcrawl.workers.serve`) tunes itself when the crawl starts it with
:data:`GC_TUNING_ENV` set, and freezes again after importing a reader (docs/speed.md).

>>> saved = tune()
>>> gc.get_threshold()[0] == YOUNG_THRESHOLD
True
>>> restore(saved); gc.get_threshold() == saved
True
"""

from __future__ import annotations

import gc

__all__ = ["GC_TUNING_ENV", "YOUNG_THRESHOLD", "restore", "tune"]

#: Net allocations between two collections of the youngest generation (Python's default:
#: 700). A page's responses, trees and records are freed by their reference counts (few
#: cycles: jsonschema's errors, start-up's), so its collections find little to free: at 50,000
#: a crawl of the 645 large pages spent ~110 ms in them against ~450 at 5,000 (a worker's nearly
#: none), for a peak 2-8 MB higher (docs/speed.md). When the tuning was made, at 5,000, pages
#: lived in cycles that 50,000 kept ~150 MB longer; those cycles are gone.
YOUNG_THRESHOLD = 50_000
#: set (to ``1``) in a worker process's environment: it tunes its collector (:func:`tune`)
GC_TUNING_ENV = "STRUCTCRAWL_WORKER_GC_TUNING"


def tune() -> tuple[int, int, int]:
    """Collect, freeze what exists and raise the young generation's threshold; the thresholds
    it replaced (for :func:`restore`)."""
    gc.collect()
    gc.freeze()
    saved = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, *saved[1:])
    return saved  # type: ignore[return-value]


def restore(saved: tuple[int, ...]) -> None:
    """The thresholds ``saved`` again, and the frozen objects back in the collector's care."""
    gc.set_threshold(*saved)
    gc.unfreeze()
