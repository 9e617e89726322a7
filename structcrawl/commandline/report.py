"""``structcrawl report DIR|report.json``: a crawl's quality report, summarized in the
terminal (``--html`` rewrites ``report.html`` from ``report.json``)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["add_arguments", "number", "run", "summary_lines"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "source", type=Path, help="a report.json, or a crawl's output folder (DIR/report/)"
    )
    parser.add_argument(
        "--html", action="store_true", help="rewrite report.html beside report.json"
    )
    parser.add_argument("--json", action="store_true", help="print report.json as it is")


def _find(source: Path) -> Path:
    for candidate in (source, source / "report.json", source / "report" / "report.json"):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"no report.json at {source}")


def number(value: float) -> str:
    """A figure for people: integers with thousands separators, other numbers rounded.

    >>> number(6309556), number(0.00177706299973579), number(12.3456), number(0.5)
    ('6,309,556', '0.00178', '12.3', '0.5')
    """
    if isinstance(value, int) or float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.3g}" if abs(value) < 1000 else f"{value:,.0f}"


def summary_lines(report: dict[str, Any]) -> list[str]:
    """The headline figures of a report, for people."""
    pages = report.get("pages") or {}
    lines = [f"finish reason: {report.get('finish_reason')}"]
    if isinstance(pages, dict):
        figures = ", ".join(
            f"{k} {number(v)}{'s' if k.startswith('latency') else ''}"
            for k, v in pages.items()
            if isinstance(v, int | float) and not isinstance(v, bool)
        )
        lines.append(f"pages: {figures}")
        outcomes = pages.get("by_outcome")
        if isinstance(outcomes, dict) and outcomes:
            lines.append(
                "page outcomes: " + ", ".join(f"{k} {number(v)}" for k, v in outcomes.items())
            )
    entities = report.get("entities") or {}
    if isinstance(entities, dict):
        counts = ", ".join(
            f"{k} {number(v)}"
            for k, v in sorted(entities.items())
            if isinstance(v, int | float) and not isinstance(v, bool)
        )
        lines.append(f"entities: {counts}")
    items = report.get("items") or {}
    if isinstance(items, dict) and items.get("total"):
        kinds = list((items.get("by_type") or {}).items())
        shown = ", ".join(f"{k} {number(v)}" for k, v in kinds[:5])
        shown += ", ..." if len(kinds) > 5 else ""
        invalid = (items.get("invalid") or {}).get("total", 0)
        lines.append(f"typed items: {number(items['total'])} ({shown}), {number(invalid)} invalid")
    missed = [t for t in report.get("thresholds") or [] if not t.get("ok", True)]
    lines.append(f"thresholds missed: {len(missed)}")
    lines.extend(
        f"  {t.get('name')}: {number(t.get('value') or 0)} (limit {number(t.get('limit') or 0)})"
        for t in missed
    )
    return lines


def run(args: argparse.Namespace) -> int:
    try:
        path = _find(args.source)
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"structcrawl report: {exc}", file=sys.stderr)
        return 2
    if args.json:
        json.dump(report, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        print("\n".join(summary_lines(report)))
    if args.html:
        from structcrawl.report import render_html

        html_path = path.with_name("report.html")
        html_path.write_text(render_html(report), encoding="utf-8")
        print(f"wrote {html_path}")
    return 0
