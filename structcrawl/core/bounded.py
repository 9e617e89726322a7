"""Bounded by construction: what a page chooses (property names, types, hosts, header values)
never grows the crawl's state without a cap.

* :class:`CappedNames` admits the first ``limit`` distinct names it is asked about and
  answers :data:`OTHER` for the rest: the one way a stats key, a counter or a report table
  keyed by page-chosen names is built (``structcrawl/validate/warning/<kind>/<field>``, the
  report's completeness and field tables, ...).
* :func:`apply_budget` holds one page's records to a per-page budget
  (:class:`PageBudget`: records, properties per record, warnings) and says what it cut in an
  error record (``page-budget``), so a page with 20,000 property names costs what a page
  with 1,000 does and the cut is never silent.

Pure module: no Scrapy imports.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from structcrawl.core.records import Record, error_record

__all__ = [
    "OTHER",
    "REPORT_NAMES",
    "STATS_NAMES",
    "CappedNames",
    "PageBudget",
    "apply_budget",
    "remember",
]

#: What every name past a cap is counted as.
OTHER = "(other)"
#: Distinct page-chosen names one stats key family may hold (``<type>/<field>``, hosts...).
STATS_NAMES = 1_000
#: Distinct page-chosen names one report table may hold (types, fields per type, ...).
REPORT_NAMES = 500


@dataclass
class CappedNames:
    """The first ``limit`` distinct names, then :data:`OTHER`.

    >>> names = CappedNames(2)
    >>> [names("a"), names("b"), names("c"), names("a")], names.overflow
    (['a', 'b', '(other)', 'a'], 1)
    """

    limit: int
    seen: set[str] = field(default_factory=set)
    overflow: int = 0

    def __call__(self, name: str) -> str:
        if name in self.seen:
            return name
        if len(self.seen) < self.limit:
            self.seen.add(name)
            return name
        self.overflow += 1
        return OTHER


#: Entries a table of recent verdicts keeps (refusals, cut responses).
RECENT = 256


def remember(table: OrderedDict[Any, Any], key: Any, value: Any, limit: int = RECENT) -> None:
    """Keep the latest ``value`` for ``key`` in ``table`` (the most recent ``limit`` keys);
    ``None`` forgets ``key``.

    >>> t = OrderedDict(); remember(t, "a", 1, 2); remember(t, "b", 2, 2); remember(t, "c", 3, 2)
    >>> list(t), remember(t, "b", None, 2), list(t)
    (['b', 'c'], None, ['c'])
    """
    if value is None:
        table.pop(key, None)
        return
    table[key] = value
    table.move_to_end(key)
    while len(table) > limit:
        table.popitem(last=False)


@dataclass(frozen=True, slots=True)
class PageBudget:
    """What one page may add to the output: records (entities, errors and skips), properties
    per record (top level; a nested record counts its own), warning records."""

    max_records: int = 5_000
    max_properties: int = 1_000
    max_warnings: int = 200


def _cut_properties(record: Record, limit: int) -> int:
    """Drop the properties of ``record`` (and of records nested in it) past ``limit``;
    how many were dropped."""
    cut = 0
    props = record.properties
    if len(props) > limit:
        for name in list(props)[limit:]:
            del props[name]
            cut += 1
    for value in props.values():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, Record):
                cut += _cut_properties(item, limit)
    return cut


def apply_budget(
    records: list[Record], budget: PageBudget, *, source_url: str, parser: str
) -> list[Record]:
    """``records`` within ``budget``, plus one ``page-budget`` error record saying what was
    cut when anything was.

    >>> from structcrawl.core.records import Provenance
    >>> recs = [Record(source_url="u", format="json-ld", kind="entity", source_element="$",
    ...                provenance=Provenance(parser="t"),
    ...                properties={f"p{i}": 1 for i in range(5)}) for _ in range(3)]
    >>> out = apply_budget(recs, PageBudget(max_records=2, max_properties=2), source_url="u",
    ...                    parser="t")
    >>> len(out), [len(r.properties) for r in out[:2]], out[-1].error.code
    (3, [2, 2], 'page-budget')
    >>> out[-1].error.message
    'the page went past its budget: 1 record(s) over 2, 6 propert(ies) over 2 per record'
    """
    kept: list[Record] = []
    over_records = over_warnings = over_properties = 0
    warnings = 0
    for record in records:
        if record.kind == "warning":
            warnings += 1
            if warnings > budget.max_warnings:
                over_warnings += 1
                continue
        elif len(kept) - min(warnings, budget.max_warnings) >= budget.max_records:
            over_records += 1
            continue
        over_properties += _cut_properties(record, budget.max_properties)
        kept.append(record)
    if not (over_records or over_warnings or over_properties):
        return records
    parts = []
    if over_records:
        parts.append(f"{over_records} record(s) over {budget.max_records}")
    if over_properties:
        parts.append(f"{over_properties} propert(ies) over {budget.max_properties} per record")
    if over_warnings:
        parts.append(f"{over_warnings} warning(s) over {budget.max_warnings}")
    kept.append(
        error_record(
            source_url=source_url,
            format="page",
            code="page-budget",
            message="the page went past its budget: " + ", ".join(parts),
            parser=parser,
        )
    )
    return kept
