"""The job journal: what a resumable crawl (``JOBDIR``) requested and accounted for, written so
that a crawl killed at any instant (``SIGKILL``, the OOM killer, a power cut of the container)
resumes without losing a page or writing one twice (pure: no Scrapy).

Scrapy's own job state does not survive a kill: the disk queue's index (``active.json``) is
written only on a clean stop, and fingerprints reach ``requests.seen`` through a buffer. The
journal, ``<JOBDIR>/structcrawl-journal.jsonl``, is written through (one ``write()`` per line,
no user-space buffer), one JSON object per line::

    {"run": 2, "feeds": {"/out/pages.jsonl": 8812}}     a run starts: local feed sizes before it
    {"req": URL, "fp": "3fa4...", "cb": "parse", "eb": "failed", "depth": 1, "prio": 0}
    {"drop": URL}                                        that request was refused at once
    {"acc": URL, "feeds": {"/out/pages.jsonl": 9127}}    its outcome reached every feed (commit)
    {"closed": "finished"}                               the run stopped cleanly

An ``acc`` line is the commit of a page: it is written after the page's lines were flushed to
every local feed, with the feeds' sizes at that moment, and after the requests for the links
the page found were written (the spider yields them before the page item). Replaying the
journal (:func:`read_journal`) gives the URLs requested and still without an outcome, and, when
the last run did not close, the size of each feed at its last commit: the resumed run cuts the
feeds back to those sizes (:func:`cut_feeds`; a torn last line goes with them) and requests the
pending URLs again. Fingerprints of every URL requested (``known``) let the resumed run refuse
new requests for them, as Scrapy's duplicate filter would had it kept them all.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "journal.jsonl")
>>> journal = Journal(path)
>>> journal.write({"run": 1, "feeds": {}})
>>> journal.write({"req": "http://a/1", "fp": "00aa", "cb": "parse", "depth": 0})
>>> journal.write({"req": "http://a/2", "fp": "00bb", "cb": "parse", "depth": 1})
>>> journal.write({"acc": "http://a/1", "feeds": {"/out/pages.jsonl": 120}})
>>> journal.close()
>>> state = read_journal(path)
>>> state.crashed, sorted(state.pending), state.feeds, state.knows("00bb")
(True, ['http://a/2'], {'/out/pages.jsonl': 120}, True)
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "JOURNAL_FILE",
    "Journal",
    "JournalState",
    "cut_feeds",
    "cut_torn_tail",
    "read_journal",
    "read_jsonl_lenient",
]

#: The journal's file name inside ``JOBDIR``.
JOURNAL_FILE = "structcrawl-journal.jsonl"

_TAIL_CHUNK = 65536


def _fp_key(fp: str) -> bytes:
    """The first 8 bytes of a hex fingerprint (what :attr:`JournalState.known` holds)."""
    try:
        return bytes.fromhex(fp[:16])
    except ValueError:
        return fp[:16].encode("utf-8", "replace")


@dataclass
class JournalState:
    """A journal replayed: ``runs`` started, whether the last one ``crashed`` (never wrote
    ``closed``), the ``pending`` requests (URL -> the specs of its ``req`` lines without an
    outcome), the fingerprints of every URL requested so far, each local feed's size at the
    last commit (``feeds``), how many outcomes were committed and how many lines were not
    JSON (``torn``: at most the last one, cut by a kill). ``feeds`` are those of the last
    run: the local feeds it started with, and the files (an S3 feed's spool) its commits
    recorded; a spool an earlier run kept is not cut by a later run's recovery."""

    runs: int = 0
    crashed: bool = False
    pending: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    known: set[bytes] = field(default_factory=set, repr=False)
    feeds: dict[str, int] = field(default_factory=dict)
    accounted: int = 0
    torn: int = 0

    def knows(self, fp: str) -> bool:
        """Whether a request with this fingerprint (hex) was requested in a run so far."""
        return _fp_key(fp) in self.known

    def pending_count(self) -> int:
        return sum(len(specs) for specs in self.pending.values())

    def _settle(self, url: str) -> None:
        specs = self.pending.get(url)
        if specs:
            specs.pop(0)
            if not specs:
                del self.pending[url]

    def apply(self, line: Mapping[str, Any]) -> None:
        """Replay one journal line."""
        if "run" in line:  # the feeds this run writes: an earlier run's spools are not cut
            self.runs += 1
            self.crashed = True
            self.feeds = _sizes(line.get("feeds"))
        elif "req" in line:
            url = str(line["req"])
            self.pending.setdefault(url, []).append(dict(line))
            if line.get("fp"):
                self.known.add(_fp_key(str(line["fp"])))
        elif "drop" in line:
            self._settle(str(line["drop"]))
        elif "acc" in line:
            self._settle(str(line["acc"]))
            self.accounted += 1
            self.feeds.update(_sizes(line.get("feeds")))
        elif "closed" in line:
            self.crashed = False


def _sizes(value: Any) -> dict[str, int]:
    if not isinstance(value, Mapping):
        return {}
    return {str(k): int(v) for k, v in value.items() if isinstance(v, int) and v >= 0}


def _lines(path: Path) -> Iterator[dict[str, Any] | None]:
    """The JSON objects of a JSON-lines file; ``None`` for a line that is not one."""
    with path.open("rb") as fh:
        for raw in fh:
            if not raw.strip():
                continue
            try:
                value = json.loads(raw)
            except ValueError:
                yield None
                continue
            yield value if isinstance(value, dict) else None


def read_journal(path: str | os.PathLike[str]) -> JournalState:
    """Replay the journal at ``path`` (an absent file is an empty journal)."""
    state = JournalState()
    path = Path(path)
    if not path.exists():
        return state
    for line in _lines(path):
        if line is None:
            state.torn += 1
        else:
            state.apply(line)
    return state


def read_jsonl_lenient(path: str | os.PathLike[str]) -> tuple[list[dict[str, Any]], int]:
    """The objects of a JSON-lines feed and the number of lines dropped because they are not
    JSON: a feed of a crawl that was killed and not resumed may end with a torn line.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "pages.jsonl")
    >>> _ = open(path, "w").write('{"url": "a"}\\n{"url": "b"}\\n{"url": "c", "st')
    >>> read_jsonl_lenient(path)
    ([{'url': 'a'}, {'url': 'b'}], 1)
    """
    good: list[dict[str, Any]] = []
    bad = 0
    for line in _lines(Path(path)):
        if line is None:
            bad += 1
        else:
            good.append(line)
    return good, bad


def cut_torn_tail(path: str | os.PathLike[str]) -> int:
    """Cut a last line without its newline off ``path``; returns the bytes removed.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "j.jsonl")
    >>> _ = open(path, "wb").write(b'{"a": 1}\\n{"a": 2')
    >>> cut_torn_tail(path), open(path, "rb").read()
    (7, b'{"a": 1}\\n')
    """
    path = Path(path)
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return 0
    if size == 0:
        return 0
    with path.open("r+b") as fh:
        end = size
        while end > 0:
            start = max(end - _TAIL_CHUNK, 0)
            fh.seek(start)
            chunk = fh.read(end - start)
            if end == size and chunk.endswith(b"\n"):
                return 0
            newline = chunk.rfind(b"\n")
            if newline >= 0:
                keep = start + newline + 1
                break
            end = start
        else:
            keep = 0
        fh.truncate(keep)
    return size - keep


def cut_feeds(sizes: Mapping[str, int]) -> dict[str, int]:
    """Truncate each feed file to its committed size; returns ``{path: bytes removed}`` for
    the files that were longer (what an interrupted run wrote after its last commit). Files
    that are absent or not longer are left alone.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "pages.jsonl")
    >>> _ = open(path, "wb").write(b'{"url": "a"}\\n{"url": "b", "tor')
    >>> list(cut_feeds({path: 13}).values()), open(path, "rb").read()
    ([17], b'{"url": "a"}\\n')
    """
    cut: dict[str, int] = {}
    for name, size in sizes.items():
        try:
            current = os.stat(name).st_size
        except OSError:
            continue
        if current > size:
            os.truncate(name, size)
            cut[name] = current - size
    return cut


class Journal:
    """The journal file, opened for appending after cutting a torn last line; every
    :meth:`write` is one unbuffered ``write()`` of one line."""

    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        cut_torn_tail(self.path)
        self._fd: int | None = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def write(self, line: Mapping[str, Any]) -> None:
        if self._fd is None:
            return
        data = (json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        while data:
            written = os.write(self._fd, data)
            data = data[written:]

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
