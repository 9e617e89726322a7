"""Crawl quality figures, aggregated item by item with bounded memory (pure).

:class:`QualityAggregator` sees every page item and every entity item (as dicts) and keeps
counts only, plus a bounded reservoir of latencies; :meth:`QualityAggregator.report` turns
them and the crawl's stats into the report document, and :func:`check_thresholds` compares it
with the configured minimums and maximums.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Mapping
from typing import Any

from structcrawl.changes.compare import STATUSES
from structcrawl.core.bounded import REPORT_NAMES, CappedNames
from structcrawl.core.records import page_outcome
from structcrawl.report.items import ItemFigures, item_name

__all__ = [
    "QualityAggregator",
    "check_thresholds",
    "field_paths",
    "ledger_figures",
    "page_outcome",
]

_RESERVOIR = 10_000


def field_paths(properties: Mapping[str, Any], prefix: str = "", depth: int = 0) -> list[str]:
    """Present (non-empty) fields of merged entity properties, nested ones dotted."""
    out: list[str] = []
    for key, value in properties.items():
        if key.startswith("@") or value in (None, "", [], {}):
            continue
        out.append(prefix + key)
        if isinstance(value, dict) and depth < 2:
            out.extend(field_paths(value, f"{prefix}{key}.", depth + 1))
        elif isinstance(value, list) and value and isinstance(value[0], dict) and depth < 2:
            out.extend(field_paths(value[0], f"{prefix}{key}.", depth + 1))
    return out


_LEDGER = "structcrawl/ledger/"


def ledger_figures(stats: Mapping[str, Any]) -> dict[str, Any]:
    """The page ledger's figures (:mod:`structcrawl.ledger.extension`) from the crawl's stats.

    >>> ledger_figures({"structcrawl/ledger/requested": 3, "structcrawl/ledger/accounted": 2,
    ...     "structcrawl/ledger/unaccounted": 1, "structcrawl/ledger/outcome/records": 2})
    ... # doctest: +NORMALIZE_WHITESPACE
    {'requested': 3, 'accounted': 2, 'unaccounted': 1, 'unfinished': 0, 'kept': 0,
     'duplicate': 0, 'unrequested': 0, 'resumed': 0, 'redelivered': 0, 'filtered': {},
     'by_outcome': {'records': 2}}

    ``resumed``: URLs an earlier run of the job requested that this one accounts for;
    ``redelivered``: pages an earlier run kept (their remote feed was not stored) whose lines
    this run re-delivered and stored (accounted here, not fetched again).
    """
    names = ["requested", "accounted", "unaccounted", "unfinished", "kept", "duplicate"]
    names += ["unrequested", "resumed", "redelivered"]
    figures: dict[str, Any] = {name: int(stats.get(_LEDGER + name, 0) or 0) for name in names}
    for group in ("filtered", "outcome"):
        prefix = f"{_LEDGER}{group}/"
        values = {k[len(prefix) :]: v for k, v in stats.items() if k.startswith(prefix) and v}
        key = "by_outcome" if group == "outcome" else group
        figures[key] = dict(sorted(values.items(), key=lambda kv: (-kv[1], kv[0])))
    return figures


_AUDIT = "structcrawl/render/audit/"


def render_figures(stats: Mapping[str, Any], by_reason: Mapping[str, int]) -> dict[str, Any]:
    """The browser's figures: pages rendered by reason (``fetch_reason``) and the render
    audit's (:mod:`structcrawl.render.audit`) from the crawl's stats.

    >>> figures = render_figures({"structcrawl/render/audit/pages": 4,
    ...     "structcrawl/render/audit/gained": 1, "structcrawl/render/audit/browser_ms": 3460,
    ...     "structcrawl/render/pages": 9}, {"learned": 5, "audit": 4})
    >>> figures["pages"], figures["audit"]["gained"], figures["audit"]["browser_seconds"]
    (9, 1, 3.5)
    """

    def get(name: str) -> int:
        return int(stats.get(_AUDIT + name, 0) or 0)

    audit: dict[str, float] = {
        name.replace("/", "_"): get(name)
        for name in (
            "pages",
            "gained",
            "without_gain",
            "learned_templates",
            "learned_sites",
            "rerendered",
            "sites_stopped",
            "failed",
            "skipped/budget",
            "skipped/no_browser",
            "skipped/no_scripts",
            "skipped/busy",
        )
    }
    audit["browser_seconds"] = round(get("browser_ms") / 1000, 1)
    return {
        "pages": int(stats.get("structcrawl/render/pages", 0) or 0),
        "by_reason": dict(sorted(by_reason.items(), key=lambda kv: (-kv[1], kv[0]))),
        "snapshot_cache_hits": int(stats.get("structcrawl/render/cache/hit", 0) or 0),
        "audit": audit,
    }


def _percentile(sorted_values: list[float], q: float) -> float | None:
    """Linear interpolation between closest ranks (numpy's default)."""
    if not sorted_values:
        return None
    pos = q * (len(sorted_values) - 1)
    low = int(pos)
    high = min(low + 1, len(sorted_values) - 1)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (pos - low)


#: Example pages kept per error code.
_EXAMPLES = 3
_FIELDS_PER_TYPE = 200  # completeness fields kept per entity type (at most REPORT_NAMES types)


class QualityAggregator:
    def __init__(self, seed: int = 0):
        self.pages = 0
        self.outcomes: Counter[str] = Counter()
        self.content_types: Counter[str] = Counter()
        self.fetched_with: Counter[str] = Counter()
        self.fetch_reasons: Counter[str] = Counter()  # why pages went to the browser
        self.bytes = 0
        self.latencies: list[float] = []
        self._seen_latencies = 0
        self._rng = random.Random(seed)
        self.records_by_format: Counter[str] = Counter()
        self.page_warnings: Counter[str] = Counter()  # warning records, by code
        self.entities_by_type: Counter[str] = Counter()
        self.field_presence: dict[str, Counter[str]] = defaultdict(Counter)
        self.with_errors: Counter[str] = Counter()
        self.with_warnings: Counter[str] = Counter()
        self.error_fields: Counter[str] = Counter()
        self.warning_fields: Counter[str] = Counter()
        self.conflict_fields: Counter[str] = Counter()
        self.entities_with_conflicts = 0
        self.conflict_examples: list[dict[str, Any]] = []
        # incremental crawls (structcrawl.changes): entity changes, HTTP cache outcomes
        self.changes: Counter[str] = Counter()
        self.changed_fields: Counter[str] = Counter()
        self.http_cache: Counter[str] = Counter()
        # error codes of records and fetches, with a few example pages each
        self.error_codes: Counter[str] = Counter()
        self.error_examples: dict[str, list[str]] = defaultdict(list)
        # every table keyed by what pages chose (types, fields, content types, codes) is
        # capped: past REPORT_NAMES distinct names, the rest count as "(other)"
        self._names: dict[str, CappedNames] = defaultdict(lambda: CappedNames(REPORT_NAMES))
        self._type_fields: dict[str, CappedNames] = {}
        self.items = ItemFigures()  # the pages' typed items (structcrawl.report.items)

    def add_page(self, page: Mapping[str, Any]) -> None:
        self.pages += 1
        outcome = page_outcome(page)
        self.outcomes[outcome] += 1
        self.items.add_page(page, outcome)
        self.content_types[self._names["content_type"](page.get("content_type") or "none")] += 1
        self.fetched_with[page.get("fetched_with") or "http"] += 1
        if page.get("fetch_reason"):
            self.fetch_reasons[str(page["fetch_reason"])] += 1
        self.bytes += int(page.get("body_size") or 0)
        if page.get("http_cache"):
            self.http_cache[str(page["http_cache"])] += 1
        latency = page.get("latency")
        if latency is not None:
            self._seen_latencies += 1
            if len(self.latencies) < _RESERVOIR:
                self.latencies.append(float(latency))
            else:  # reservoir sampling keeps a uniform sample in bounded memory
                slot = self._rng.randrange(self._seen_latencies)
                if slot < _RESERVOIR:
                    self.latencies[slot] = float(latency)
        url = str(page.get("final_url") or page.get("url") or "")
        for record in page.get("records") or []:
            if record.get("kind") == "entity":
                self.records_by_format[record.get("format") or "?"] += 1
            elif record.get("kind") == "warning":
                error = record.get("error") or {}
                self.page_warnings[self._names["warning"](str(error.get("code") or "?"))] += 1
            elif record.get("kind") == "error":
                self._error((record.get("error") or {}).get("code") or "?", url)

    def _error(self, code: str, url: str) -> None:
        code = self._names["error"](code)
        self.error_codes[code] += 1
        examples = self.error_examples[code]
        if url and len(examples) < _EXAMPLES and url not in examples:
            examples.append(url)

    def add_entity(self, entity: Mapping[str, Any]) -> None:
        etype = self._names["type"]((entity.get("type") or ["(untyped)"])[0])
        fields = self._names["field"]  # "<type>.<field>" keys of the field tables
        change = entity.get("change")
        change = change if isinstance(change, Mapping) else {}
        status = change.get("status")
        if status:
            self.changes[str(status)] += 1
            if status == "changed":
                changed = change.get("fields") or []
                self.changed_fields.update(fields(f"{etype}.{f}") for f in changed)
            if status == "gone":
                return  # not in this crawl: counted as a change only
        self.entities_by_type[etype] += 1
        present = self._type_fields.setdefault(etype, CappedNames(_FIELDS_PER_TYPE))
        self.field_presence[etype].update(
            {present(f) for f in field_paths(entity.get("properties") or {})}
        )
        validation = entity.get("validation") or {}
        if validation.get("errors"):
            self.with_errors[etype] += 1
            self.error_fields.update(
                fields(f"{etype}.{e.get('path') or '?'}") for e in validation["errors"]
            )
        if validation.get("warnings"):
            self.with_warnings[etype] += 1
            self.warning_fields.update(
                fields(f"{etype}.{w.get('path') or '?'}") for w in validation["warnings"]
            )
        conflicts = entity.get("conflicts") or []
        if conflicts:
            self.entities_with_conflicts += 1
            self.conflict_fields.update(fields(f"{etype}.{c['field']}") for c in conflicts)
            if len(self.conflict_examples) < 25:
                self.conflict_examples.append(
                    {
                        "key": entity.get("key"),
                        "type": etype,
                        "name": item_name(entity.get("properties") or {}),
                        "conflicts": conflicts,
                    }
                )

    def report(self, stats: Mapping[str, Any]) -> dict[str, Any]:
        latencies = sorted(self.latencies)
        completeness = {
            etype: {
                f: round(n / self.entities_by_type[etype], 4)
                for f, n in sorted(self.field_presence[etype].items())
            }
            for etype in self.entities_by_type
        }
        rates = {
            etype: {
                "entities": total,
                "error_rate": round(self.with_errors[etype] / total, 4),
                "warning_rate": round(self.with_warnings[etype] / total, 4),
            }
            for etype, total in self.entities_by_type.items()
        }
        return {
            "pages": {
                "total": self.pages,
                "by_outcome": dict(self.outcomes.most_common()),
                "by_content_type": dict(self.content_types.most_common()),
                "by_fetch": dict(self.fetched_with.most_common()),
                "body_bytes": self.bytes,
                "response_bytes": stats.get("downloader/response_bytes", 0),
                "latency_p50": _percentile(latencies, 0.50),
                "latency_p95": _percentile(latencies, 0.95),
                "by_http_cache": dict(self.http_cache.most_common()),
            },
            "records_by_format": dict(self.records_by_format.most_common()),
            "page_warnings": {
                "total": sum(self.page_warnings.values()),
                "by_code": dict(self.page_warnings.most_common()),
            },
            "entities": {
                "total": sum(self.entities_by_type.values()),
                "by_type": dict(self.entities_by_type.most_common()),
                "with_conflicts": self.entities_with_conflicts,
            },
            "completeness": completeness,
            "validation": {
                "by_type": rates,
                "top_error_fields": dict(self.error_fields.most_common(20)),
                "top_warning_fields": dict(self.warning_fields.most_common(20)),
            },
            "conflicts": {
                "by_field": dict(self.conflict_fields.most_common(20)),
                "examples": self.conflict_examples,
            },
            "changes": {
                **{status: self.changes[status] for status in STATUSES},
                "top_changed_fields": dict(self.changed_fields.most_common(20)),
            },
            "errors": {
                code: {"count": n, "examples": list(self.error_examples[code])}
                for code, n in self.error_codes.most_common()
            },
            "items": self.items.report(),
            "ledger": ledger_figures(stats),
            "render": render_figures(stats, self.fetch_reasons),
            "stats": {k: v for k, v in stats.items() if isinstance(v, (int, float, str))},
        }


def check_thresholds(report: Mapping[str, Any], thresholds: Mapping[str, float]) -> list[dict]:
    """Compare the report with thresholds; each result says name, value, limit and ok.

    Names: ``completeness:<Type>.<field>`` (minimum share of entities of that type with the
    field), ``min_entities:<Type>``, ``max_error_rate:<Type>``, ``max_warning_rate:<Type>``,
    ``max_conflict_rate`` (entities with conflicts / entities), ``max_page_error_rate``
    (pages ending in an ``error:`` outcome / pages), ``max_drop`` / ``max_drop:<Type>`` (the
    largest completeness drop or error-rate rise since the previous run, as a share: 0.1 = ten
    points; 0 on a first run).
    """
    results = []
    for name, limit in thresholds.items():
        kind, _, target = name.partition(":")
        value: float
        if kind == "completeness":
            etype, _, fieldname = target.partition(".")
            value = report["completeness"].get(etype, {}).get(fieldname, 0.0)
            ok = value >= limit
        elif kind == "min_entities":
            value = report["entities"]["by_type"].get(target, 0)
            ok = value >= limit
        elif kind in ("max_error_rate", "max_warning_rate"):
            rate = "error_rate" if kind == "max_error_rate" else "warning_rate"
            value = report["validation"]["by_type"].get(target, {}).get(rate, 0.0)
            ok = value <= limit
        elif kind == "max_conflict_rate":
            total = report["entities"]["total"]
            value = report["entities"]["with_conflicts"] / total if total else 0.0
            ok = value <= limit
        elif kind == "max_drop":
            value = _largest_drop(report.get("since_previous_run"), target)
            ok = value <= limit
        elif kind == "max_page_error_rate":
            pages = report["pages"]["total"]
            errors = sum(
                n for o, n in report["pages"]["by_outcome"].items() if o.startswith("error:")
            )
            value = errors / pages if pages else 0.0
            ok = value <= limit
        else:
            raise ValueError(f"unknown quality threshold {name!r}")
        results.append({"name": name, "value": round(value, 4), "limit": limit, "ok": ok})
    return results


def _largest_drop(change: Mapping[str, Any] | None, etype: str = "") -> float:
    """The largest completeness drop or error-rate rise in ``change`` (of one type, if given).

    >>> change = {"completeness": {"Product.gtin": {"delta": -0.4}, "Event.name": {"delta": -0.9}},
    ...           "error_rate": {"Product": {"delta": 0.1}}}
    >>> _largest_drop(change, "Product"), _largest_drop(change), _largest_drop(None)
    (0.4, 0.9, 0.0)
    """
    if not change:
        return 0.0
    drops = [
        -(v.get("delta") or 0.0)
        for field, v in change.get("completeness", {}).items()
        if not etype or field.partition(".")[0] == etype
    ]
    drops += [
        v.get("delta") or 0.0
        for t, v in change.get("error_rate", {}).items()
        if not etype or t == etype
    ]
    return max([0.0, *drops])
