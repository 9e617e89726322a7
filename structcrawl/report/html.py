"""The quality report as one self-contained HTML page (inline CSS and SVG charts, no scripts,
nothing fetched), from the report document of :mod:`structcrawl.report.aggregate`."""

from __future__ import annotations

import html
import json
from collections.abc import Mapping
from typing import Any

__all__ = ["render_html"]

_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1100px;color:#1f2a2e}
h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd}
.cards{display:flex;gap:12px;flex-wrap:wrap}.card{border:1px solid #ddd;border-radius:6px;
padding:10px 14px;min-width:130px}.card b{display:block;font-size:20px}
table{border-collapse:collapse;margin:8px 0}td,th{padding:3px 8px;border-bottom:1px solid #eee;
text-align:left;vertical-align:top}.ok{color:#1b7a3a}.bad{color:#b3261e;font-weight:600}
svg text{font:12px system-ui,sans-serif}code{font-size:12px}
"""


def _e(value: Any) -> str:
    return html.escape(str(value))


def _bars(data: Mapping[str, float], *, percent: bool = False, color: str = "#2f5d50") -> str:
    """A horizontal bar chart as inline SVG."""
    if not data:
        return "<p><em>none</em></p>"
    items = list(data.items())[:30]
    top = max((v for _, v in items), default=0) or 1
    scale = 1.0 if percent else top
    row, label_w, bar_w = 20, 280, 520
    parts = [f'<svg width="{label_w + bar_w + 90}" height="{row * len(items) + 6}" role="img">']
    for i, (label, value) in enumerate(items):
        y = i * row + 4
        width = max(1.0, bar_w * value / scale) if value else 0
        shown = f"{100 * value:.1f}%" if percent else f"{value:g}"
        parts.append(
            f'<text x="{label_w - 6}" y="{y + 13}" text-anchor="end">{_e(label)[:44]}</text>'
            f'<rect x="{label_w}" y="{y}" width="{width:.1f}" height="{row - 6}" fill="{color}">'
            f"<title>{_e(label)}: {shown}</title></rect>"
            f'<text x="{label_w + width + 6:.1f}" y="{y + 13}">{shown}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _table(rows: list[list[Any]], head: list[str]) -> str:
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    return "<table><tr>" + "".join(f"<th>{_e(h)}</th>" for h in head) + f"</tr>{body}</table>"


def _ledger_section(ledger: Mapping[str, Any]) -> list[str]:
    """The page ledger: every requested URL and its one outcome (structcrawl.ledger.pages)."""
    if not ledger.get("requested"):
        return []
    rows = [
        [name, ledger.get(name, 0)]
        for name in ("requested", "accounted", "unfinished", "unaccounted", "duplicate")
    ]
    rows += [[f"filtered ({k}, not requested)", v] for k, v in ledger.get("filtered", {}).items()]
    problems = sum(ledger.get(k, 0) for k in ("unaccounted", "duplicate", "unrequested"))
    verdict = (
        f'<p class="bad">{problems} URL outcome(s) do not match the requests: the crawl failed '
        "(see <code>structcrawl ledger</code>).</p>"
        if problems
        else '<p class="ok">Every requested URL has exactly one outcome.</p>'
    )
    return [
        "<h2>Page ledger</h2>",
        verdict,
        _table(rows, ["", "URLs"]),
        _bars(ledger.get("by_outcome") or {}, color="#3d6f8e"),
    ]


def render_html(report: Mapping[str, Any], title: str = "structcrawl quality report") -> str:
    pages, entities = report["pages"], report["entities"]
    thresholds = report.get("thresholds") or []
    failed = [t for t in thresholds if not t["ok"]]
    lat = pages.get("latency_p50"), pages.get("latency_p95")
    cards = [
        ("pages", pages["total"]),
        ("entities", entities["total"]),
        ("with conflicts", entities["with_conflicts"]),
        ("latency p50 / p95", " / ".join("–" if v is None else f"{v:.3f}s" for v in lat)),
        ("body bytes", f"{pages['body_bytes']:,}"),
        ("thresholds", f"{len(thresholds) - len(failed)}/{len(thresholds)} met"),
    ]
    changes = report.get("changes") or {}
    changed = {s: changes.get(s, 0) for s in ("new", "changed", "unchanged", "gone")}
    if any(changed.values()):
        cards.append(
            (
                "since the previous run",
                "{new} new / {changed} changed / {gone} gone".format(**changed),
            )
        )
    ledger = report.get("ledger") or {}
    if ledger.get("requested"):
        lost = ledger.get("unaccounted", 0) + ledger.get("duplicate", 0)
        lost += ledger.get("unrequested", 0)
        cards.append(
            (
                "page ledger",
                f"{ledger.get('accounted', 0)}/{ledger['requested']} accounted"
                + (f", {lost} MISMATCHED" if lost else ""),
            )
        )
    out = [
        f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{_e(title)}</title>"
        f"<style>{_CSS}</style></head><body><h1>{_e(title)}</h1><div class=cards>",
        *(f"<div class=card>{_e(k)}<b>{_e(v)}</b></div>" for k, v in cards),
        "</div>",
    ]
    if thresholds:
        rows = [
            [
                f"<code>{_e(t['name'])}</code>",
                t["value"],
                t["limit"],
                '<span class="ok">met</span>' if t["ok"] else '<span class="bad">MISSED</span>',
            ]
            for t in thresholds
        ]
        out += ["<h2>Thresholds</h2>", _table(rows, ["threshold", "value", "limit", ""])]
    out += _ledger_section(ledger)
    out += [
        "<h2>Pages by outcome</h2>",
        _bars(pages["by_outcome"]),
        "<h2>Pages by content type</h2>",
        _bars(pages["by_content_type"], color="#3d6f8e"),
        "<h2>Pages by fetch</h2>",
        _bars(pages["by_fetch"], color="#3d6f8e"),
        *(
            ["<h2>Pages by HTTP cache</h2>", _bars(pages["by_http_cache"], color="#3d6f8e")]
            if pages.get("by_http_cache")
            else []
        ),
        "<h2>Records by layer</h2>",
        _bars(report["records_by_format"], color="#7a5c2e"),
        *(
            [
                f"<h2>Page warnings ({report['page_warnings']['total']})</h2>",
                _bars(report["page_warnings"]["by_code"], color="#c8853d"),
            ]
            if report.get("page_warnings", {}).get("total")
            else []
        ),
        "<h2>Entities per type</h2>",
        _bars(entities["by_type"], color="#7a5c2e"),
        "<h2>Validation</h2>",
        _bars(
            {t: r["error_rate"] for t, r in report["validation"]["by_type"].items()},
            percent=True,
            color="#b3261e",
        ),
        "<p>Share of entities with validation errors, per type. Warnings:</p>",
        _bars(
            {t: r["warning_rate"] for t, r in report["validation"]["by_type"].items()},
            percent=True,
            color="#c8853d",
        ),
        "<h3>Most frequent error fields</h3>",
        _bars(report["validation"]["top_error_fields"]),
        "<h2>Completeness per field</h2>",
    ]
    for etype, fields in report["completeness"].items():
        out += [
            f"<h3>{_e(etype)} ({entities['by_type'].get(etype, 0)})</h3>",
            _bars(dict(sorted(fields.items(), key=lambda kv: -kv[1])), percent=True),
        ]
    out += ["<h2>Conflicts</h2>", _bars(report["conflicts"]["by_field"], color="#b3261e")]
    for example in report["conflicts"]["examples"][:10]:
        out.append(
            f"<details><summary><code>{_e(example['key'])}</code></summary><pre>"
            f"{_e(json.dumps(example['conflicts'], indent=1, ensure_ascii=False))}</pre></details>"
        )
    if any(changed.values()):
        out += [
            "<h2>Changes since the previous run</h2>",
            _bars(changed, color="#2f5d50"),
            "<h3>Most frequently changed fields</h3>",
            _bars(changes.get("top_changed_fields") or {}),
        ]
    out.append("</body></html>")
    return "\n".join(out)
