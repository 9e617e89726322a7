"""The end of ``structcrawl crawl`` on the terminal: what the crawl did, and why it failed, in
words (the headline figures of the quality report, the thresholds missed with their value and
limit, the first URLs that failed, the page ledger of every run of the job)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from structcrawl.commandline.report import summary_lines
from structcrawl.ledger.check import check_ledger, combine_runs
from structcrawl.ledger.pages import read_jsonl

__all__ = ["FIRST_FAILURES", "failing_urls", "ledger_runs", "summary"]

#: How many failing URLs the summary names.
FIRST_FAILURES = 5


def ledger_runs(report_dir: Path) -> list[Path]:
    """The ledger files of the runs of the job in ``report_dir``, oldest first: the earlier
    runs' ``ledger.run-N.jsonl`` (kept by ``--resume``), then ``ledger.jsonl``."""
    earlier = sorted(
        report_dir.glob("ledger.run-*.jsonl"), key=lambda p: int(p.stem.rpartition("-")[2])
    )
    last = report_dir / "ledger.jsonl"
    return [*earlier, *([last] if last.exists() else [])]


def failing_urls(lines: list[dict[str, Any]]) -> Iterator[str]:
    """``outcome  URL`` of the ledger lines that ended in an error or a problem."""
    for line in lines:
        outcome = str(line.get("outcome") or "")
        if line.get("problem") or outcome.startswith(("error:", "dropped:", "unaccounted")):
            yield f"{line.get('problem') or outcome}  {line.get('url')}"


def _report(report_dir: Path) -> dict[str, Any] | None:
    try:
        report = json.loads((report_dir / "report.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return report if isinstance(report, dict) else None


def summary(out: Path) -> list[str]:
    """The lines printed at the end of a crawl into ``out``."""
    report_dir = out / "report"
    report = _report(report_dir)
    lines = summary_lines(report) if report is not None else ["no quality report was written"]
    runs = ledger_runs(report_dir)
    try:
        ledger = combine_runs([read_jsonl(path) for path in runs])
        pages = read_jsonl(out / "pages.jsonl") if (out / "pages.jsonl").exists() else None
    except (OSError, ValueError) as exc:
        return [*lines, f"page ledger: cannot read it ({exc})"]
    if runs:
        failing = list(failing_urls(ledger))
        if failing:
            lines.append(f"failed URLs: {len(failing):,} (the first {FIRST_FAILURES}):")
            lines += [f"  {line}" for line in failing[:FIRST_FAILURES]]
        check = check_ledger(ledger, pages)
        of_runs = f" of {len(runs)} runs" if len(runs) > 1 else ""
        state = "every URL once" if check.ok else f"{len(check.problems)} problem(s)"
        unfinished = sum(n for o, n in check.by_outcome.items() if o.startswith("unfinished:"))
        left = f" ({unfinished:,} left for --resume)" if unfinished else ""
        lines.append(
            f"page ledger{of_runs}: {check.requested:,} requested, "
            f"{check.accounted:,} accounted{left}, {state}"
        )
        lines += [f"  {problem}" for problem in check.problems[:FIRST_FAILURES]]
    return lines
