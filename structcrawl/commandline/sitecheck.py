"""``structcrawl check --sitemap URL``: a whole site at once, its problems summarized by page
template (URL pattern) and by problem code, with example pages.

:func:`check_sitemap` crawls the pages a sitemap lists (one crawl of the ``site`` spider,
``-a sitemap=URL -a depth=0``: the pages of the sitemap, not their links), checks each page as
``structcrawl check`` checks one (:func:`structcrawl.validate.problems.annotate`: problems with
their code, path, element and fix; rich-result eligibility), and :func:`summarize` folds the
pages into one summary:

* ``by_code``: per problem code, its severity, how many problems and pages, the templates it
  occurs on, three example pages and the fix;
* ``by_template``: per URL template (:func:`structcrawl.render.templates.url_template`:
  ``shop.example/products/{slug}.html``), its pages, the pages with errors, its codes with
  counts, three example pages;
* ``exit``: 1 when a page has an invalid record or names an error (as for one page), 2 when
  nothing was read.

:func:`render_text` is the terminal's summary, :func:`render_html` a self-contained HTML page
(:func:`html_section` its body, for the quality report). :func:`run_sitemap` is what the
``check`` command runs for ``--sitemap`` (the lead wires the option).
"""

from __future__ import annotations

import html
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from structcrawl.commandline._feeds import crawl_feeds
from structcrawl.render.templates import url_template
from structcrawl.validate.problems import annotate, fix_for

__all__ = ["check_sitemap", "html_section", "render_html", "render_text", "run_sitemap",
           "summarize"]  # fmt: skip

_EXAMPLES = 3


def _page_url(record: dict[str, Any]) -> str:
    fetch = (record.get("provenance") or {}).get("fetch") or {}
    return str(fetch.get("url") or record.get("source_url") or "")


def group_pages(pages: list[dict[str, Any]], records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One checked page per fetched page (its records from the records feed), annotated."""
    by_url: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        by_url[_page_url(record)].append(record)
    out = []
    for page in pages:
        url = str(page.get("url") or "")
        checked = {"url": url, "status": page.get("status"), "records": by_url.get(url, [])}
        annotate(checked)
        out.append(checked)
    return out


def _invalid(page: dict[str, Any]) -> bool:
    return any(
        (r.get("validation") or {}).get("valid") is False
        for r in page["records"]
        if r.get("kind") == "entity"
    )


def summarize(pages: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The site summary of checked pages (``{"url", "records", "problems"}`` each)."""
    pages = list(pages)
    codes: dict[str, dict[str, Any]] = {}
    templates: dict[str, dict[str, Any]] = {}
    for page in pages:
        template = url_template(page["url"])
        entry = templates.setdefault(
            template,
            {
                "template": template,
                "pages": 0,
                "pages_with_errors": 0,
                "codes": Counter(),
                "examples": [],
            },  # fmt: skip
        )
        entry["pages"] += 1
        errors = any(p["severity"] == "error" for p in page["problems"])
        entry["pages_with_errors"] += int(errors)
        if (errors or page["problems"]) and len(entry["examples"]) < _EXAMPLES:
            entry["examples"].append(page["url"])
        seen_here: set[str] = set()
        for problem in page["problems"]:
            code = problem["code"]
            entry["codes"][code] += 1
            found = codes.setdefault(
                code,
                {
                    "code": code,
                    "severity": problem["severity"],
                    "problems": 0,
                    "pages": 0,
                    "templates": Counter(),
                    "examples": [],
                    "fix": fix_for(code),
                },  # fmt: skip
            )
            if problem["severity"] == "error":
                found["severity"] = "error"
            found["problems"] += 1
            if code not in seen_here:
                seen_here.add(code)
                found["pages"] += 1
                found["templates"][template] += 1
                if len(found["examples"]) < _EXAMPLES:
                    found["examples"].append(page["url"])
    by_code = sorted(
        codes.values(), key=lambda c: (c["severity"] != "error", -c["pages"], c["code"])
    )
    for c in by_code:
        c["templates"] = dict(c["templates"].most_common())
    by_template = sorted(templates.values(), key=lambda t: (-t["pages_with_errors"], -t["pages"]))
    for t in by_template:
        t["codes"] = dict(t["codes"].most_common())
    invalid = sum(1 for p in pages if _invalid(p))
    with_errors = sum(1 for p in pages if any(x["severity"] == "error" for x in p["problems"]))
    return {
        "pages": len(pages),
        "pages_with_problems": sum(1 for p in pages if p["problems"]),
        "pages_with_invalid_records": invalid,
        "by_code": by_code,
        "by_template": by_template,
        "pages_with_errors": with_errors,
        "exit": 2 if not pages else (1 if invalid or with_errors else 0),
    }


def check_sitemap(sitemap: str, render: bool, overrides: list[str]) -> dict[str, Any]:
    """Crawl the pages of ``sitemap``, check each and summarize (``pages`` holds each page's
    url, status and problems)."""
    spider_args = ["-a", f"sitemap={sitemap}", "-a", "depth=0"]
    pages, records, _, _ = crawl_feeds(spider_args, render, overrides)
    checked = [p for p in group_pages(pages, records) if p["url"] != sitemap]
    summary = summarize(checked)
    summary["sitemap"] = sitemap
    summary["checked"] = [
        {"url": p["url"], "status": p["status"], "problems": p["problems"]} for p in checked
    ]
    return summary


def render_text(summary: dict[str, Any]) -> str:
    """The terminal's summary: codes first (what to fix), then templates (where)."""
    lines = [
        f"{summary.get('sitemap', 'site')}: {summary['pages']} page(s), "
        f"{summary['pages_with_problems']} with problems, "
        f"{summary['pages_with_invalid_records']} with invalid records"
    ]
    if summary["by_code"]:
        lines.append("by problem:")
    for c in summary["by_code"]:
        lines.append(
            f"  {c['severity']:<7} {c['code']}: {c['problems']} on {c['pages']} page(s), "
            f"{len(c['templates'])} template(s)"
        )
        lines.append(f"      fix: {c['fix']}")
        lines += [f"      e.g. {url}" for url in c["examples"]]
    lines.append("by template:")
    for t in summary["by_template"]:
        top = ", ".join(f"{k} {v}" for k, v in list(t["codes"].items())[:5]) or "no problems"
        lines.append(
            f"  {t['template']}: {t['pages']} page(s), {t['pages_with_errors']} with errors; {top}"
        )
        lines += [f"      e.g. {url}" for url in t["examples"][:1]]
    return "\n".join(lines) + "\n"


def _e(value: Any) -> str:
    return html.escape(str(value))


def _links(urls: list[str]) -> str:
    return "<br>".join(f'<a href="{_e(u)}">{_e(u)}</a>' for u in urls)


def html_section(summary: dict[str, Any]) -> list[str]:
    """The summary as HTML blocks (two tables), for a section of a report page."""
    rows = "".join(
        f"<tr><td><code>{_e(c['code'])}</code></td><td>{_e(c['severity'])}</td>"
        f"<td>{c['problems']}</td><td>{c['pages']}</td>"
        f"<td>{_e(', '.join(c['templates']))}</td><td>{_e(c['fix'])}</td>"
        f"<td>{_links(c['examples'])}</td></tr>"
        for c in summary["by_code"]
    )
    out = [
        "<h3>By problem</h3><table><tr><th>code</th><th>severity</th><th>problems</th>"
        f"<th>pages</th><th>templates</th><th>fix</th><th>example pages</th></tr>{rows}</table>"
    ]
    rows = "".join(
        f"<tr><td><code>{_e(t['template'])}</code></td><td>{t['pages']}</td>"
        f"<td>{t['pages_with_errors']}</td>"
        f"<td>{_e(', '.join(f'{k} {v}' for k, v in t['codes'].items()))}</td>"
        f"<td>{_links(t['examples'])}</td></tr>"
        for t in summary["by_template"]
    )
    out.append(
        "<h3>By template</h3><table><tr><th>template</th><th>pages</th><th>with errors</th>"
        f"<th>problems</th><th>example pages</th></tr>{rows}</table>"
    )
    return out


def render_html(summary: dict[str, Any], title: str = "structcrawl site check") -> str:
    """A self-contained HTML page of the summary (no scripts, nothing fetched)."""
    head = (
        f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{_e(title)}</title>"
        "<style>body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1200px}"
        "table{border-collapse:collapse}td,th{padding:3px 8px;border-bottom:1px solid #eee;"
        "text-align:left;vertical-align:top}</style></head><body>"
        f"<h1>{_e(title)}</h1><p>{_e(summary.get('sitemap', ''))}: {summary['pages']} pages, "
        f"{summary['pages_with_problems']} with problems, "
        f"{summary['pages_with_invalid_records']} with invalid records</p>"
    )
    return head + "\n".join(html_section(summary)) + "</body></html>"


def run_sitemap(
    sitemap: str,
    *,
    render: bool = True,
    overrides: list[str] | None = None,
    fmt: str = "text",
    report: str | None = None,
) -> int:
    """``structcrawl check --sitemap URL [--format json] [--report FILE.html]``: the exit
    status as for one page (1: an invalid record on some page; 2: nothing could be read)."""
    summary = check_sitemap(sitemap, render, overrides or [])
    if report:
        Path(report).write_text(render_html(summary), encoding="utf-8")
    if fmt == "json":
        json.dump(summary, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render_text(summary))
    if not summary["pages"]:
        print(f"structcrawl check: no page read from {sitemap}", file=sys.stderr)
    return int(summary["exit"])
