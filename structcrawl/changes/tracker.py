"""One run's change detection over a :class:`~structcrawl.changes.store.ChangeStore` (pure).

The run's entities are observed in batches (fingerprinted, compared with the previous run's
fingerprints, staged); then the previous run's entities this run did not see are listed as
``gone``, except

* when the run is not known to be complete (``report=False``: it failed or is stopping):
  they are *withheld* and stay in the store;
* when a page the entity was last seen on failed this run (a fetch error, a 5xx, 403, 408 or
  429, an extractor bug): the entity is *deferred*, its previous fingerprint carried over
  unchanged, since nobody knows whether it is still there.

>>> from structcrawl.changes.store import SqliteChangeStore
>>> store = SqliteChangeStore(":memory:")
>>> run1 = ChangeTracker(store)
>>> [c.status for c in run1.observe([{"key": "a", "properties": {"v": 1}},
...                                  {"key": "b", "properties": {"v": 1}}])]
['new', 'new']
>>> list(run1.gone(report=True)), run1.commit()
([], None)
>>> run2 = ChangeTracker(store)
>>> [(c.status, c.fields) for c in run2.observe([{"key": "a", "properties": {"v": 2}}])]
[('changed', ('v',))]
>>> [(fp.key, c.status) for fp, c in run2.gone(report=True)]
[('b', 'gone')]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from structcrawl.changes.compare import Change, compare, gone
from structcrawl.changes.fingerprint import EntityFingerprint, fingerprint
from structcrawl.changes.store import ChangeStore

__all__ = ["TRANSIENT_STATUSES", "ChangeTracker", "page_failed"]

#: HTTP statuses that say nothing about whether a page's entities still exist.
TRANSIENT_STATUSES = frozenset({403, 408, 429})
#: Failed pages remembered per run; beyond this the run withholds every ``gone``.
MAX_FAILED_PAGES = 100_000


def page_failed(page: Mapping[str, Any]) -> bool:
    """Whether a page item (as a mapping) failed in a way that hides its entities.

    >>> page_failed({"status": 503}), page_failed({"fetch_error": {"code": "fetch-Timeout"}})
    (True, True)
    >>> page_failed({"status": 404}), page_failed({"status": 200, "records": []})
    (False, False)
    >>> page_failed({"status": 200, "records": [{"error": {"code": "extractor-failed"}}]})
    True
    """
    if page.get("fetch_error"):
        return True
    status = page.get("status")
    if isinstance(status, int) and (status >= 500 or status in TRANSIENT_STATUSES):
        return True
    for record in page.get("records") or []:
        error = record.get("error") if isinstance(record, Mapping) else None
        if isinstance(error, Mapping) and error.get("code") == "extractor-failed":
            return True
    return False


def _pages(entity: Mapping[str, Any]) -> list[str]:
    return [
        str(s["url"])
        for s in entity.get("sources") or []
        if isinstance(s, Mapping) and s.get("url")
    ]


class ChangeTracker:
    """Observe a run's entities, list what vanished, commit. ``counts`` holds the statuses
    given plus ``deferred`` and ``withheld``."""

    def __init__(self, store: ChangeStore, *, ignore: Sequence[str] = ()):
        self.store = store
        self.ignore = tuple(ignore)
        self.failed_pages: set[str] = set()
        self.too_many_failures = False
        self.counts: Counter[str] = Counter()
        self.observed = False
        self.gone_reported = False
        store.begin()

    def page_failed(self, urls: Iterable[str]) -> None:
        """Remember the URLs of a page that failed this run."""
        if self.too_many_failures:
            return
        self.failed_pages.update(u for u in urls if u)
        if len(self.failed_pages) > MAX_FAILED_PAGES:
            self.too_many_failures = True
            self.failed_pages.clear()

    def observe(self, entities: Sequence[Mapping[str, Any]]) -> list[Change]:
        """Compare a batch of merged entities (``key``, ``id``, ``type``, ``properties``,
        ``conflicts``, ``first_seen``, ``last_seen``, ``sources``) with the previous run;
        stage them."""
        self.observed = True
        current = [fingerprint(e, ignore=self.ignore, pages=_pages(e)) for e in entities]
        previous = self.store.load(fp.key for fp in current)
        changes: list[Change] = []
        staged: list[EntityFingerprint] = []
        for entity, fp in zip(entities, current, strict=True):
            before = previous.get(fp.key)
            change = compare(fp, before, self.ignore)
            first = before.first_seen if before is not None else None
            first = first or entity.get("first_seen") or fp.seen
            staged.append(replace(fp, first_seen=first if isinstance(first, str) else None))
            self.counts[change.status] += 1
            changes.append(change)
        self.store.save(staged)
        return changes

    def gone(self, *, report: bool) -> Iterator[tuple[EntityFingerprint, Change]]:
        """The previous run's entities not observed in this run, as ``gone`` changes; call
        once, after the last :meth:`observe`, and consume it whole."""
        self.observed = True
        report = report and not self.too_many_failures
        carried: list[EntityFingerprint] = []
        for before in self.store.unseen():
            if not report:
                self.counts["withheld"] += 1
            elif self.failed_pages and not self.failed_pages.isdisjoint(before.pages):
                self.counts["deferred"] += 1
                carried.append(before)
            else:
                self.counts["gone"] += 1
                yield before, gone(before)
        self.store.save(carried)
        self.gone_reported = report

    def commit(self) -> None:
        """This run becomes the previous run. Entities reported gone are dropped only when
        :meth:`gone` reported them; otherwise unseen entities stay for the next run."""
        self.store.commit(drop_unseen=self.gone_reported)

    def close(self) -> None:
        self.store.close()
