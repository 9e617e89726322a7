"""The quality report as one self-contained HTML page (inline CSS and SVG charts, no scripts,
nothing fetched), from the report document of :mod:`structcrawl.report.aggregate`.

A table of contents leads to the sections: the run (finish reason, versions, settings), the
thresholds, the change since the previous run, the page ledger, pages, error codes with three
example URLs each, records, entities, typed items (per type, the fill rate of price, currency,
availability, authors and dates; invalid items and failed pages by name and URL), validation,
completeness (one collapsible section per type), conflicts (entities by name) and entity
changes. Bars are sorted, largest first; numbers are written as a reader writes them
(:mod:`structcrawl.report._markup`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from structcrawl.report._markup import bars, e, num, seconds, table, when

__all__ = ["render_html"]

_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1100px;color:#1f2a2e}
h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd}
.cards{display:flex;gap:12px;flex-wrap:wrap}.card{border:1px solid #ddd;border-radius:6px;
padding:10px 14px;min-width:130px}.card b{display:block;font-size:20px}
table{border-collapse:collapse;margin:8px 0}td,th{padding:3px 8px;border-bottom:1px solid #eee;
text-align:left;vertical-align:top}.ok{color:#1b7a3a}.bad{color:#b3261e;font-weight:600}
svg text{font:12px system-ui,sans-serif}code{font-size:12px}
nav ol{columns:2}details{margin:4px 0}summary{cursor:pointer}
"""

#: (anchor, title, body) of one section of the page
Section = tuple[str, str, list[str]]


def _ledger_section(ledger: Mapping[str, Any]) -> list[str]:
    """The page ledger: every requested URL and its one outcome (structcrawl.ledger.pages)."""
    rows = [
        [name, ledger.get(name, 0)]
        for name in ("requested", "accounted", "unfinished", "kept", "unaccounted", "duplicate")
    ]
    rows += [
        [f"{name} (from an earlier run of the job)", ledger[name]]
        for name in ("resumed", "redelivered")
        if ledger.get(name)
    ]
    rows += [[f"filtered ({k}, not requested)", v] for k, v in ledger.get("filtered", {}).items()]
    problems = sum(ledger.get(k, 0) for k in ("unaccounted", "kept", "duplicate", "unrequested"))
    verdict = (
        f'<p class="bad">{problems} URL outcome(s) do not match the requests: the crawl failed '
        "(see <code>structcrawl ledger</code>).</p>"
        if problems
        else '<p class="ok">Every requested URL has exactly one outcome.</p>'
    )
    return [
        verdict,
        table(rows, ["", "URLs"]),
        bars(ledger.get("by_outcome") or {}, color="#3d6f8e"),
    ]


def _cards(report: Mapping[str, Any]) -> list[tuple[str, Any]]:
    pages, entities = report["pages"], report["entities"]
    thresholds = report.get("thresholds") or []
    failed = [t for t in thresholds if not t["ok"]]
    lat = pages.get("latency_p50"), pages.get("latency_p95")
    cards: list[tuple[str, Any]] = [
        ("pages", pages["total"]),
        ("entities", entities["total"]),
        ("with conflicts", entities["with_conflicts"]),
        ("latency p50 / p95", " / ".join(seconds(v) for v in lat)),
        ("body bytes", num(pages["body_bytes"])),
        ("thresholds", f"{len(thresholds) - len(failed)}/{len(thresholds)} met"),
    ]
    items = report.get("items") or {}
    if items.get("total"):
        bad = (items.get("invalid") or {}).get("total", 0)
        cards.append(
            ("typed items", f"{num(items['total'])}" + (f", {num(bad)} invalid" if bad else ""))
        )
    changed = _entity_changes(report)
    if any(changed.values()):
        cards.append(
            (
                "since the previous run",
                "{new} new / {changed} changed / {gone} gone".format(**changed),
            )
        )
    ledger = report.get("ledger") or {}
    if ledger.get("requested"):
        lost = sum(ledger.get(k, 0) for k in ("unaccounted", "kept", "duplicate", "unrequested"))
        cards.append(
            (
                "page ledger",
                f"{ledger.get('accounted', 0)}/{ledger['requested']} accounted"
                + (f", {lost} MISMATCHED" if lost else ""),
            )
        )
    return cards


def _entity_changes(report: Mapping[str, Any]) -> dict[str, int]:
    changes = report.get("changes") or {}
    return {s: changes.get(s, 0) for s in ("new", "changed", "unchanged", "gone")}


def _run_section(report: Mapping[str, Any]) -> list[str]:
    run = report.get("run") or {}
    rows = [["finish reason", e(report.get("finish_reason"))]]
    for key in ("start_time", "finish_time"):
        if run.get(key) is not None:
            rows.append([key.replace("_", " "), e(when(run[key]))])
    if run.get("elapsed_seconds") is not None:
        rows.append(["elapsed", seconds(run["elapsed_seconds"])])
    rows += [[e(name), e(version)] for name, version in (run.get("versions") or {}).items()]
    spider = run.get("spider") or {}
    if spider.get("depth") is not None:  # the spider's own limit (DEPTH_LIMIT 0: none of Scrapy's)
        rows.append([f"spider {e(spider.get('name'))} depth", e(spider["depth"])])
    depth = spider.get("depth")
    rows += [
        [
            f"<code>{e(name)}</code>",
            f"<code>{e(value)}</code>"
            + (
                f" (no limit of Scrapy's: the spider's own depth limit is {e(depth)})"
                if name == "DEPTH_LIMIT" and not value and depth is not None
                else ""
            ),
        ]
        for name, value in (run.get("settings") or {}).items()
    ]
    return [table(rows, ["", ""])]


def _thresholds_section(thresholds: list[Mapping[str, Any]]) -> list[str]:
    rows = [
        [
            f"<code>{e(t['name'])}</code>",
            t["value"],
            t["limit"],
            '<span class="ok">met</span>' if t["ok"] else '<span class="bad">MISSED</span>',
        ]
        for t in thresholds
    ]
    return [table(rows, ["threshold", "value", "limit", ""])]


def _previous_run_section(change: Mapping[str, Any]) -> list[str]:
    out = []
    drops = change.get("drops") or []
    if drops:
        out.append('<p class="bad">Drops since the previous run:</p>')
        out.append(table([[e(d["what"]), d["delta"]] for d in drops], ["", "change"]))
    else:
        out.append('<p class="ok">No drop of more than five points since the previous run.</p>')
    rows = [[e(t), v["before"], v["now"], v["delta"]] for t, v in change["entities"].items()]
    out += ["<h3>Entities per type</h3>", table(rows, ["type", "before", "now", "change"])]
    rows = [[e(t), v["before"], v["now"], v["delta"]] for t, v in change["error_rate"].items()]
    out += ["<h3>Error rate per type</h3>", table(rows, ["type", "before", "now", "change"])]
    moved = sorted(
        ((f, v) for f, v in change["completeness"].items() if v["delta"]),
        key=lambda fv: fv[1]["delta"],
    )
    rows = [[f"<code>{e(f)}</code>", v["before"], v["now"], v["delta"]] for f, v in moved]
    out += ["<h3>Completeness that moved</h3>", table(rows, ["field", "before", "now", "change"])]
    return out


def _errors_section(errors: Mapping[str, Any]) -> list[str]:
    rows = [
        [
            f"<code>{e(code)}</code>",
            info["count"],
            "<br>".join(f"<code>{e(url)}</code>" for url in info["examples"]),
        ]
        for code, info in errors.items()
    ]
    return [table(rows, ["error code", "records", "example pages"])]


def _pages_section(pages: Mapping[str, Any]) -> list[str]:
    out = ["<h3>By outcome</h3>", bars(pages["by_outcome"])]
    out += ["<h3>By content type</h3>", bars(pages["by_content_type"], color="#3d6f8e")]
    out += ["<h3>By fetch</h3>", bars(pages["by_fetch"], color="#3d6f8e")]
    if pages.get("by_http_cache"):
        out += ["<h3>Pages by HTTP cache</h3>", bars(pages["by_http_cache"], color="#3d6f8e")]
    return out


def _render_section(render: Mapping[str, Any]) -> list[str]:
    """Pages rendered in the browser, by reason, and the render audit (docs/rendering.md)."""
    audit = render.get("audit") or {}
    rows = [
        ["pages audited (judged: no browser needed, rendered as a sample)", audit.get("pages", 0)],
        ["audited pages that gained typed records", audit.get("gained", 0)],
        ["audited pages without gain", audit.get("without_gain", 0)],
        ["URL templates learned from the audit", audit.get("learned_templates", 0)],
        ["sites learned whole from the audit (every page rendered)", audit.get("learned_sites", 0)],
        ["pages fetched again in the browser (learned)", audit.get("rerendered", 0)],
        ["sites no longer audited (no gain)", audit.get("sites_stopped", 0)],
        ["audits skipped: budget spent", audit.get("skipped_budget", 0)],
        ["audits skipped: no browser", audit.get("skipped_no_browser", 0)],
        ["audits skipped: no scripts", audit.get("skipped_no_scripts", 0)],
        ["audit samples skipped: the site's audits were rendering", audit.get("skipped_busy", 0)],
        ["audits failed", audit.get("failed", 0)],
        ["audit browser seconds", audit.get("browser_seconds", 0)],
        ["rendered snapshots reused from the cache", render.get("snapshot_cache_hits", 0)],
    ]
    return [
        f"<p>{e(render.get('pages', 0))} pages rendered in the browser.</p>",
        bars(render.get("by_reason") or {}, color="#3d6f8e"),
        "<h3>Render audit</h3>",
        table(rows, ["", "count"]),
    ]


def _validation_section(validation: Mapping[str, Any]) -> list[str]:
    by_type = validation["by_type"]
    return [
        bars({t: r["error_rate"] for t, r in by_type.items()}, as_percent=True, color="#b3261e"),
        "<p>Share of entities with validation errors, per type. Warnings:</p>",
        bars({t: r["warning_rate"] for t, r in by_type.items()}, as_percent=True, color="#c8853d"),
        "<h3>Most frequent error fields</h3>",
        bars(validation["top_error_fields"]),
    ]


def _completeness_section(report: Mapping[str, Any]) -> list[str]:
    by_type = report["entities"]["by_type"]
    out = []
    for etype, fields in sorted(
        report["completeness"].items(), key=lambda kv: -by_type.get(kv[0], 0)
    ):
        out += [
            f"<details><summary>{e(etype)} ({by_type.get(etype, 0)} entities, "
            f"{len(fields)} fields)</summary>",
            bars(fields, as_percent=True),
            "</details>",
        ]
    return out


def _conflicts_section(conflicts: Mapping[str, Any]) -> list[str]:
    """Fields in conflict, and the first entities with conflicts by name (the key on hover)."""
    out = [bars(conflicts["by_field"], color="#b3261e")]
    for example in conflicts["examples"][:10]:
        name = example.get("name") or "(no name)"
        fields = ", ".join(str(c.get("field")) for c in example["conflicts"])
        out.append(
            f'<details><summary>{e(example.get("type") or "")} <b title="{e(example["key"])}">'
            f"{e(name)}</b>: {e(fields)}</summary><p><code>{e(example['key'])}</code></p><pre>"
            f"{e(json.dumps(example['conflicts'], indent=1, ensure_ascii=False))}</pre></details>"
        )
    return out


def _items_section(items: Mapping[str, Any]) -> list[str]:
    """Typed items (structcrawl.report.items): per type, fill rates, invalid items, failed pages."""
    invalid, failed = items["invalid"], items["failed_pages"]
    rows = [
        [e(kind), n, invalid["by_type"].get(kind, 0), items["fallback_flagged"].get(kind, 0)]
        for kind, n in items["by_type"].items()
    ]
    out = [
        f"<p>{num(items['total'])} items on {num(items['pages_with_items'])} pages.</p>",
        table(rows, ["type", "items", "invalid", "fallback not shown on the page"]),
    ]
    for kind, fields in items["fill"].items():
        out += [f"<h3>{e(kind)}: fields filled</h3>", bars(fields, as_percent=True)]
    if invalid["examples"]:
        rows = [
            [
                e(i["type"]),
                e(i["name"] or "(no name)"),
                _link(i["url"]),
                "<br>".join(map(e, i["errors"])),
            ]
            for i in invalid["examples"]
        ]
        out += [
            f"<h3>Invalid items ({num(invalid['total'])})</h3>",
            table(rows, ["type", "name", "page", "schema errors"]),
        ]
    if failed["examples"]:
        rows = [
            [
                _link(p["url"]),
                e(p["name"] or ""),
                p["status"],
                f"<code>{e(p['code'])}</code>",
                e(p["message"] or ""),
            ]
            for p in failed["examples"]
        ]
        out += [
            f"<h3>Failed pages ({num(failed['total'])})</h3>",
            table(rows, ["page", "title", "status", "error", ""]),
        ]
    return out


def _link(url: str) -> str:
    """A page's URL, a link only when it is an http(s) one (never a ``javascript:`` link)."""
    shown = f"<code>{e(url)}</code>"
    return f'<a href="{e(url)}">{shown}</a>' if url.startswith(("http://", "https://")) else shown


def _sections(report: Mapping[str, Any]) -> list[Section]:
    thresholds = report.get("thresholds") or []
    ledger = report.get("ledger") or {}
    changed = _entity_changes(report)
    changes = report.get("changes") or {}
    items = report.get("items") or {}
    sections: list[Section | None] = [
        ("run", "Run", _run_section(report)),
        ("thresholds", "Thresholds", _thresholds_section(thresholds)) if thresholds else None,
        ("previous", "Since the previous run", _previous_run_section(report["since_previous_run"]))
        if report.get("since_previous_run")
        else None,
        ("ledger", "Page ledger", _ledger_section(ledger))
        if ledger.get("requested") or ledger.get("resumed") or ledger.get("redelivered")
        else None,
        ("pages", "Pages", _pages_section(report["pages"])),
        ("render", "Browser and render audit", _render_section(report["render"]))
        if report.get("render")
        else None,
        ("errors", "Error codes", _errors_section(report["errors"]))
        if report.get("errors")
        else None,
        ("records", "Records by layer", [bars(report["records_by_format"], color="#7a5c2e")]),
        (
            "warnings",
            f"Page warnings ({report['page_warnings']['total']})",
            [bars(report["page_warnings"]["by_code"], color="#c8853d")],
        )
        if report.get("page_warnings", {}).get("total")
        else None,
        ("entities", "Entities per type", [bars(report["entities"]["by_type"], color="#7a5c2e")]),
        ("items", "Typed items and failed pages", _items_section(items))
        if items.get("total") or items.get("failed_pages", {}).get("total")
        else None,
        ("validation", "Validation", _validation_section(report["validation"])),
        ("completeness", "Completeness per field", _completeness_section(report)),
        ("conflicts", "Conflicts", _conflicts_section(report["conflicts"])),
        (
            "changes",
            "Changes since the previous run",
            [
                bars(changed, color="#2f5d50"),
                "<h3>Most frequently changed fields</h3>",
                bars(changes.get("top_changed_fields") or {}),
            ],
        )
        if any(changed.values())
        else None,
    ]
    return [s for s in sections if s is not None]


def render_html(report: Mapping[str, Any], title: str = "structcrawl quality report") -> str:
    """The whole page: cards, a table of contents, then each section."""
    sections = _sections(report)
    out = [
        f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{e(title)}</title>"
        f"<style>{_CSS}</style></head><body><h1>{e(title)}</h1><div class=cards>",
        *(f"<div class=card>{e(k)}<b>{e(num(v))}</b></div>" for k, v in _cards(report)),
        "</div><nav><h2>Contents</h2><ol>",
        *(f'<li><a href="#{anchor}">{e(name)}</a></li>' for anchor, name, _ in sections),
        "</ol></nav>",
    ]
    for anchor, name, body in sections:
        out += [f'<h2 id="{anchor}">{e(name)}</h2>', *body]
    out.append("</body></html>")
    return "\n".join(out)
