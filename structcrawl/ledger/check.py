"""``structcrawl ledger``: the check of a crawl's ledger file(s) against its pages feed (pure),
and the ledger of a job from the ledgers of its runs (:func:`combine_runs`)."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from structcrawl.ledger.pages import read_jsonl

__all__ = ["LedgerCheck", "add_arguments", "check_ledger", "combine_runs", "run"]


@dataclass
class LedgerCheck:
    requested: int = 0
    accounted: int = 0
    pages: int | None = None
    by_outcome: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _pages_multiset(lines: Iterable[Mapping[str, Any]]) -> Counter[str]:
    return Counter(str(line.get("url")) for line in lines)


def check_ledger(
    ledger: list[dict[str, Any]] | None, pages: list[dict[str, Any]] | None
) -> LedgerCheck:
    """Compare a ledger file's lines with the pages feed's (either may be None).

    Problems: a requested URL without an outcome (``unaccounted``), one kept in a local file
    instead of the feeds (``kept``), a second outcome for a URL
    (``duplicate``) or one that was never requested (``unrequested``), a page outcome missing
    from the pages feed, a pages-feed line the ledger does not know, a page without outcomes.

    >>> ok = check_ledger([{"url": "u", "outcome": "records", "in_pages": True}],
    ...                   [{"url": "u", "outcomes": ["entity:json-ld"]}])
    >>> ok.ok, ok.requested, ok.accounted
    (True, 1, 1)
    >>> bad = check_ledger([{"url": "u", "outcome": "unaccounted", "problem": "unaccounted"},
    ...                     {"url": "v", "outcome": "records", "in_pages": True}], [])
    >>> bad.problems
    ['unaccounted: u (no outcome)', 'not in the pages feed: v (records)']
    """
    check = LedgerCheck()
    if ledger is not None:
        for line in ledger:
            problem = line.get("problem")
            if problem == "unaccounted":
                check.requested += 1
                check.problems.append(f"unaccounted: {line.get('url')} (no outcome)")
            elif problem == "kept":
                check.requested += 1
                check.problems.append(
                    f"not in the feeds, kept in a local file: {line.get('url')} "
                    f"({line.get('outcome')}: {line.get('message')})"
                )
            elif problem in ("duplicate", "unrequested"):
                check.problems.append(
                    f"{problem}: {line.get('url')} (another outcome: {line.get('outcome')})"
                )
            else:
                check.requested += 1
                check.accounted += 1
                check.by_outcome[str(line.get("outcome"))] += 1
    if pages is not None:
        check.pages = len(pages)
        for page in pages:
            if not page.get("outcomes"):
                check.problems.append(f"page without outcomes: {page.get('url')}")
        if ledger is not None:
            expected = _pages_multiset(line for line in ledger if line.get("in_pages"))
            found = _pages_multiset(pages)
            outcome_of = {str(line.get("url")): line.get("outcome") for line in ledger}
            for url, n in sorted((expected - found).items()):
                check.problems += [f"not in the pages feed: {url} ({outcome_of.get(url)})"] * n
            for url, n in sorted((found - expected).items()):
                check.problems += [f"in the pages feed but not in the ledger: {url}"] * n
    return check


def combine_runs(runs: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """The ledger of a job from the ledgers of its runs, oldest first: a run stopped early
    (Ctrl-C) ends its pending URLs as ``unfinished:<reason>``, and the next run of the job
    takes them over (``resumed``) and gives them their outcome, so only the last run's
    ``unfinished`` lines stay. A page a run kept because its remote feed was not stored
    (``unwritten:upload``) and a later run re-delivered (its line there says ``redelivered``,
    or ``redelivery_failed`` when that run kept it again) has the later line only.

    >>> first = [{"url": "a", "outcome": "records"}, {"url": "b", "outcome": "unfinished:shutdown"}]
    >>> [line["url"] for line in combine_runs([first, [{"url": "b", "outcome": "records"}]])]
    ['a', 'b']
    >>> kept = [{"url": "a", "outcome": "unwritten:upload", "problem": "kept"}]
    >>> again = [{"url": "a", "outcome": "records", "redelivered": ["/k"], "problem": None}]
    >>> [(line["outcome"], line["problem"]) for line in combine_runs([kept, again])]
    [('records', None)]
    >>> failed = [{**kept[0], "redelivery_failed": ["/k"]}]
    >>> [line.get("redelivery_failed") for line in combine_runs([kept, failed, again])]
    [None]
    >>> [line.get("redelivery_failed") for line in combine_runs([kept, failed])]
    [['/k']]
    """
    redelivered: list[set[str]] = [
        {
            str(line.get("url"))
            for line in lines
            if line.get("redelivered") or line.get("redelivery_failed")
        }
        for lines in runs
    ]
    combined: list[dict[str, Any]] = []
    for number, lines in enumerate(runs, 1):
        last = number == len(runs)
        later = set().union(*redelivered[number:])
        combined += [
            line
            for line in lines
            if (last or not str(line.get("outcome") or "").startswith("unfinished:"))
            and not (line.get("outcome") == "unwritten:upload" and str(line.get("url")) in later)
        ]
    return combined


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "ledger",
        nargs="*",
        help="the ledger file a crawl wrote (default: none, pages only); the files of several "
        "runs of one job (oldest first) are checked together",
    )
    parser.add_argument("--pages", help="the pages feed (JSON lines) to compare with")
    parser.add_argument("--max-problems", type=int, default=50, help="problems to print")


def run(args: argparse.Namespace) -> int:
    """``structcrawl ledger``: 0 when every requested URL has exactly one outcome (and the
    pages feed agrees), 1 with the mismatches printed, 2 when a file cannot be read."""
    if not args.ledger and not args.pages:
        print("structcrawl ledger: give a ledger file and/or --pages", file=sys.stderr)
        return 2
    try:
        ledger = combine_runs([read_jsonl(p) for p in args.ledger]) if args.ledger else None
        pages = read_jsonl(args.pages) if args.pages else None
    except (OSError, ValueError) as exc:
        print(f"structcrawl ledger: {exc}", file=sys.stderr)
        return 2
    check = check_ledger(ledger, pages)
    if ledger is not None:
        outcomes = ", ".join(f"{k} {v}" for k, v in check.by_outcome.most_common())
        print(f"requested {check.requested}, accounted {check.accounted} ({outcomes or 'none'})")
    if check.pages is not None:
        print(f"pages feed: {check.pages} lines")
    for problem in check.problems[: args.max_problems]:
        print(f"  {problem}")
    if len(check.problems) > args.max_problems:
        print(f"  ... and {len(check.problems) - args.max_problems} more")
    if check.ok:
        print("ledger: every requested URL has exactly one outcome")
        return 0
    print(f"ledger: {len(check.problems)} problem(s)", file=sys.stderr)
    return 1
