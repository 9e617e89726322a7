"""The page ledger: every requested URL ends in exactly one outcome (pure).

A URL is *requested* when the scheduler accepted an http(s) request for it (internal requests,
such as the entity pipeline's end-of-crawl one, are not pages): requests the duplicate
filter or the offsite filter discard when they are first scheduled are not requested (they
are counted apart); retries and redirect hops continue the request they came from. Each
requested URL then ends in one outcome:

* from its page item (written to the pages feed): ``records``, ``no-records``,
  ``skip:payload-<kind>`` (a non-extractable payload; the line keeps the content type) or
  ``error:<code>`` (``http-503``, ``fetch-TimeoutError``, ``too-large``, ``redirect-loop``,
  ``fetch-IgnoreRequest`` for robots.txt, ``browser-render-failed``, ...);
* or, when no page item can exist, in the ledger only: ``sitemap`` (a sitemap or robots.txt
  read for its URLs), ``dropped:item`` (a pipeline dropped
  the page item), ``error:item-failed`` (a pipeline raised), ``error:spider-error`` (the
  callback raised before yielding the page), ``dropped:redirect-duplicate`` (a redirect to a
  URL that was already requested: that URL has its own outcome), ``dropped:offsite``;
* or, fetched but not in the feeds, *kept* in a local file the line names (problem
  ``kept``, a failure, neither accounted nor lost): ``unwritten:feed`` (the feed could not be
  written: its lines are in the rescue file), ``unwritten:item-failed`` (a worker that lost
  Redis kept the page item in its outage file);
* at the end, a URL still without one is ``unaccounted`` (a failure), or
  ``unfinished:<finish_reason>`` when the crawl was stopped early (``closespider_*``).

:class:`Ledger` keeps the URLs still waiting for their outcome and an 8-byte digest of each
accounted one (to catch a second outcome). :mod:`structcrawl.ledger.check` is the
``structcrawl ledger`` check of a ledger file against the pages feed;
:mod:`structcrawl.ledger.extension` is the crawl-time extension that fills a :class:`Ledger`
from Scrapy's signals.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from structcrawl.core.records import page_outcome

__all__ = ["Ledger", "http_errors", "ledger_only_line", "page_line", "read_jsonl"]


def _digest(url: str) -> bytes:
    return hashlib.blake2b(url.encode("utf-8", "surrogatepass"), digest_size=8).digest()


def page_line(page: Mapping[str, Any]) -> dict[str, Any]:
    """The ledger line of a page item (a dict or ``ItemAdapter``).

    >>> line = page_line({"url": "http://a.example/x.png", "final_url": "http://a.example/x.png",
    ...     "status": 200, "content_type": "image/png", "payload_kind": "image", "records": [
    ...     {"kind": "skip", "format": "page", "error": {"code": "payload-image",
    ...      "message": "image payload (image/png)"}}]})
    >>> line["outcome"], line["content_type"], line["in_pages"]
    ('skip:payload-image', 'image/png', True)
    """
    outcome = page_outcome(page)
    message = None
    for record in page.get("records") or []:
        error = record.get("error")
        if error and outcome.endswith(":" + str(error.get("code"))):
            message = error.get("message")
            break
    return {
        "url": page.get("url"),
        "outcome": outcome,
        "in_pages": True,
        "final_url": page.get("final_url"),
        "status": page.get("status"),
        "content_type": page.get("content_type"),
        "payload_kind": page.get("payload_kind"),
        "message": message,
    }


def ledger_only_line(url: str, outcome: str, message: str | None = None) -> dict[str, Any]:
    """A ledger line for an outcome that has no page item (and no line in the pages feed)."""
    return {"url": url, "outcome": outcome, "in_pages": False, "message": message}


@dataclass
class Ledger:
    """Requested URLs and their outcomes, in bounded memory.

    >>> ledger = Ledger()
    >>> ledger.request("http://a.example/"); ledger.request("http://a.example/b")
    >>> ledger.account(ledger_only_line("http://a.example/", "dropped:item"))["problem"] is None
    True
    >>> [line["outcome"] for line in ledger.close("finished")]
    ['unaccounted']
    >>> ledger.summary()["unaccounted"], ledger.account(page_line({"url": "http://x/"}))["problem"]
    (1, 'unrequested')
    """

    pending: Counter[str] = field(default_factory=Counter)
    hints: dict[str, dict[str, Any]] = field(default_factory=dict)
    requested: int = 0
    accounted: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    problems: Counter[str] = field(default_factory=Counter)
    _done: set[bytes] = field(default_factory=set, repr=False)

    def request(self, url: str) -> None:
        """``url`` was requested (one more outcome is expected for it)."""
        self.pending[url] += 1
        self.requested += 1

    def withdraw(self, url: str) -> None:
        """Undo :meth:`request`: the request was filtered right after it was scheduled."""
        if self.pending[url] > 1:
            self.pending[url] -= 1
        else:
            self.pending.pop(url, None)
        self.requested -= 1

    def hint(self, line: dict[str, Any]) -> None:
        """The outcome to give ``line["url"]`` if nothing else arrives (a callback failed)."""
        if self.pending.get(line["url"]):
            self.hints.setdefault(line["url"], line)

    def account(self, line: dict[str, Any]) -> dict[str, Any]:
        """Record one outcome; returns the line with ``problem``: None, ``duplicate`` (the URL
        already had its outcomes) or ``unrequested`` (it was never requested)."""
        url = str(line["url"])
        problem = None
        if self.pending.get(url):
            self.pending[url] -= 1
            if not self.pending[url]:
                del self.pending[url]
                self.hints.pop(url, None)
            self._done.add(_digest(url))
            self.accounted += 1
            self.outcomes[line["outcome"]] += 1
        else:
            problem = "duplicate" if _digest(url) in self._done else "unrequested"
            self.problems[problem] += 1
        return {**line, "problem": problem}

    def unwritten(
        self, url: str, why: str, outcome: str = "unwritten:feed", kept: bool = True
    ) -> dict[str, Any]:
        """``url`` was fetched but is not in the feeds: it is kept in the local file ``why``
        names. It leaves the pending URLs as ``kept``: not accounted (the feeds do not hold
        it), not lost (``kept=False``: lost too, ``unaccounted``).

        >>> ledger = Ledger(); ledger.request("http://a.example/")
        >>> ledger.unwritten("http://a.example/", "kept in /tmp/f")["problem"]
        'kept'
        >>> s = ledger.summary(); s["accounted"], s["kept"], s["unaccounted"]
        (0, 1, 0)
        """
        problem = "kept" if kept else "unaccounted"
        if self.pending.get(url):
            self.pending[url] -= 1
            if not self.pending[url]:
                del self.pending[url]
                self.hints.pop(url, None)
            self._done.add(_digest(url))
        elif _digest(url) in self._done:
            problem = "duplicate"
        else:
            problem = "unrequested"
        self.problems[problem] += 1
        return {**ledger_only_line(url, outcome, why), "problem": problem}

    def unaccount(self, outcome: str) -> None:
        """An accounted ``outcome`` turned out not to be in the feeds (the remote feed that
        took its page's lines was not stored): it moves from accounted to ``kept``.

        >>> ledger = Ledger(); ledger.request("http://a.example/")
        >>> _ = ledger.account({"url": "http://a.example/", "outcome": "records"})
        >>> ledger.unaccount("records")
        >>> s = ledger.summary(); s["accounted"], s["kept"], s["by_outcome"]
        (0, 1, {})
        """
        if self.outcomes[outcome] <= 0:
            raise ValueError(f"no accounted outcome {outcome!r} to move to kept")
        self.accounted -= 1
        self.outcomes[outcome] -= 1
        if not self.outcomes[outcome]:
            del self.outcomes[outcome]
        self.problems["kept"] += 1

    def close(self, finish_reason: str) -> list[dict[str, Any]]:
        """Lines for the URLs still pending when the crawl ends: their hint, else
        ``unaccounted`` (a normal finish) or ``unfinished:<finish_reason>``."""
        lines = []
        for url, count in list(self.pending.items()):
            for _ in range(count):
                hint = self.hints.get(url)
                if hint is not None:
                    lines.append(self.account(hint))
                    continue
                if finish_reason == "finished":
                    line = ledger_only_line(url, "unaccounted", "no outcome was recorded")
                    self.problems["unaccounted"] += 1
                    lines.append({**line, "problem": "unaccounted"})
                else:
                    line = ledger_only_line(url, f"unfinished:{finish_reason}")
                    self.outcomes[line["outcome"]] += 1
                    lines.append({**line, "problem": None})
        self.pending.clear()
        self.hints.clear()
        return lines

    def summary(self) -> dict[str, Any]:
        return {
            "requested": self.requested,
            "accounted": self.accounted,
            "unaccounted": self.problems["unaccounted"],
            "kept": self.problems["kept"],
            "duplicate": self.problems["duplicate"],
            "unrequested": self.problems["unrequested"],
            "by_outcome": dict(self.outcomes.most_common()),
        }


def http_errors(outcomes: Mapping[str, int]) -> tuple[int, int]:
    """(pages that ended in an HTTP error, fetched pages) of a ledger's outcome counts: the
    outcomes of page items, which a sitemap, a dropped or an unfinished URL is not.

    >>> http_errors({"records": 2, "error:http-404": 5, "error:http-503": 1, "sitemap": 1,
    ...              "error:fetch-TimeoutError": 1, "dropped:offsite": 3})
    (6, 9)
    """
    errors = pages = 0
    for outcome, count in outcomes.items():
        if outcome == "sitemap" or outcome.startswith(("dropped:", "unfinished:", "unwritten:")):
            continue
        pages += count
        code = outcome.removeprefix("error:http-")
        if code != outcome and code.isdigit() and int(code) >= 400:
            errors += count
    return errors, pages


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSON-lines file (blank lines skipped). A torn last line (no
    newline at its end and not JSON: the writer was killed mid-line) is left out. Raises
    ``OSError``, or ``ValueError`` for any other line that is not JSON.

    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as fh:
    ...     _ = fh.write('{"url": "a"}\\n{"url": "b", "outc')
    >>> read_jsonl(fh.name)
    [{'url': 'a'}]
    >>> os.unlink(fh.name)
    """
    out = []
    with open(path, encoding="utf-8", errors="replace") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except ValueError as exc:
                if not line.endswith("\n"):  # only the last line can lack one
                    break  # torn last line
                raise ValueError(f"{path}:{number}: not JSON: {exc}") from exc
            if isinstance(value, dict):
                out.append(value)
    return out
