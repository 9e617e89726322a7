"""Comparing entities with the previous run: ``new``, ``changed``, ``unchanged``, ``gone`` (pure).

>>> from structcrawl.changes.fingerprint import fingerprint
>>> before = fingerprint({"key": "k", "type": ["Product"], "last_seen": "2026-01-01T00:00:00Z",
...                       "properties": {"name": "X", "offers": {"price": "9.99"}}})
>>> after = fingerprint({"key": "k", "type": ["Product"],
...                      "properties": {"name": "X", "offers": {"price": "8.99"}}})
>>> compare(after, before).to_dict()["status"], compare(after, before).fields
('changed', ('offers.price',))
>>> compare(before, before).status, compare(after, None).status, gone(before).status
('unchanged', 'new', 'gone')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from structcrawl.changes.fingerprint import EntityFingerprint, is_ignored

__all__ = ["STATUSES", "Change", "changed_fields", "compare", "diff_runs", "gone"]

#: Every status an entity can have compared with the previous run.
STATUSES = ("new", "changed", "unchanged", "gone")


@dataclass(frozen=True, slots=True)
class Change:
    """An entity's change: ``status``, the dotted ``fields`` that changed (``changed`` only),
    when the previous run last saw it, and its fingerprint (the previous one when gone)."""

    status: str
    fields: tuple[str, ...] = ()
    previous_seen: str | None = None
    fingerprint: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The ``change`` field of an entity item."""
        return {
            "status": self.status,
            "fields": list(self.fields),
            "previous_seen": self.previous_seen,
            "fingerprint": self.fingerprint,
        }


def changed_fields(
    current: Mapping[str, str], previous: Mapping[str, str], ignore: Sequence[str] = ()
) -> list[str]:
    """Fields added, removed or with another value hash, sorted; ``ignore`` patterns apply to
    both sides (a field ignored since the previous run is no change).

    >>> changed_fields({"a": "1", "b": "2"}, {"a": "1", "b": "3", "c": "4"})
    ['b', 'c']
    >>> changed_fields({"a": "1"}, {"a": "1", "x.y": "2"}, ignore=["x.*"])
    []
    """
    names = set(current) | set(previous)
    return sorted(
        n
        for n in names
        if current.get(n) != previous.get(n) and not (ignore and is_ignored(n, ignore))
    )


def compare(
    current: EntityFingerprint, previous: EntityFingerprint | None, ignore: Sequence[str] = ()
) -> Change:
    """How ``current`` differs from the previous run's fingerprint of the same key."""
    if previous is None:
        return Change("new", fingerprint=current.digest)
    if previous.digest == current.digest:
        return Change("unchanged", previous_seen=previous.seen, fingerprint=current.digest)
    fields = changed_fields(current.fields, previous.fields, ignore)
    status = "changed" if fields else "unchanged"  # e.g. only an ignored field differed
    return Change(status, tuple(fields), previous.seen, current.digest)


def gone(previous: EntityFingerprint) -> Change:
    """The change of an entity the previous run saw and this (finished) run did not."""
    return Change("gone", previous_seen=previous.seen, fingerprint=previous.digest)


def diff_runs(
    current: Iterable[EntityFingerprint],
    previous: Iterable[EntityFingerprint],
    ignore: Sequence[str] = (),
) -> dict[str, Change]:
    """Every key of both runs with its change (a whole run at once, in memory).

    >>> from structcrawl.changes.fingerprint import fingerprint
    >>> a1, b1 = (fingerprint({"key": k, "properties": {"v": 1}}) for k in "ab")
    >>> a2, c2 = (fingerprint({"key": k, "properties": {"v": 2}}) for k in "ac")
    >>> {k: c.status for k, c in diff_runs([a2, c2], [a1, b1]).items()}
    {'a': 'changed', 'c': 'new', 'b': 'gone'}
    """
    before = {fp.key: fp for fp in previous}
    out: dict[str, Change] = {}
    for fp in current:
        out[fp.key] = compare(fp, before.get(fp.key), ignore)
    for key, fp in before.items():
        if key not in out:
            out[key] = gone(fp)
    return out
