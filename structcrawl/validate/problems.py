"""Every markup problem of a checked page, named: code, severity, path, element, fix.

:func:`page_problems` reads a page's records after validation (``record["validation"]``,
``record["conflicts"]``) and its error and warning records, and lists each problem once:

``{"code", "severity", "format", "item", "path", "element", "message", "fix"}``

* ``severity``: ``error`` (validation errors, error records: the item is not valid, or data
  was lost) or ``warning`` (everything else: recommended properties, vocabulary, values
  Google warns about, disagreements with the page or between syntaxes, markup a layer had to
  ignore);
* ``item``: the label of the record it belongs to (``Product "Kettle K1"``), or ``None`` for
  page-level problems;
* ``path``: a dotted path into the item (``offers[1].price``), ``""`` for the item itself;
* ``element``: where in the page: the XPath of the element (and ``#`` a JSON path for JSON-LD)
  of the nested record or property the path names;
* ``fix``: what to do, in words, from ``structcrawl/schemas/problems.toml`` (one entry per
  stable code).

:func:`annotate` adds ``problems`` to a checked page and ``eligibility`` to each of its
top-level entity records (:mod:`structcrawl.validate.eligibility`); :func:`record_lines` and
:func:`problem_lines` are the text the ``check`` command prints for them.

>>> records = [{"kind": "warning", "format": "rdfa", "source_element": "/html/body/span",
...             "error": {"code": "rdfa-undefined-prefix", "message": "x"}}]
>>> [(p["code"], p["severity"], p["element"]) for p in page_problems(records)]
[('rdfa-undefined-prefix', 'warning', '/html/body/span')]
"""

from __future__ import annotations

import re
import tomllib
from functools import lru_cache
from importlib import resources
from typing import Any

from structcrawl.validate.eligibility import eligibility

__all__ = ["annotate", "fix_for", "fixes", "page_problems", "problem_lines", "record_lines"]

_SEGMENT = re.compile(r"([^.\[\]|]+)(?:\[(\d+)\])?")
_NOT_PROBLEMS = frozenset({"no-records", "json-ld-empty", "json-ld-null"})


@lru_cache(maxsize=1)
def fixes() -> dict[str, str]:
    """Code -> the fix in words (the packaged ``problems.toml``)."""
    blob = resources.files("structcrawl").joinpath("schemas", "problems.toml")
    return dict(tomllib.loads(blob.read_text(encoding="utf-8"))["codes"])


def fix_for(code: str, path: str = "") -> str:
    """The fix for ``code`` at ``path`` (a generic sentence for a code without one).

    >>> fix_for("missing-required", "offers[0].price")
    "Add price: Google requires it for this type's rich result."
    """
    text = fixes().get(code)
    if text is None:
        return "See the message."
    last = [m[1] for m in _SEGMENT.finditer(path.split("|")[0])]
    return text.replace("{property}", last[-1] if last else "it").replace("{path}", path or "-")


def label(record: dict[str, Any]) -> str:
    """``Product "Kettle K1"``: a record's types and name, for people."""
    types = "/".join(t for t in record.get("type") or [] if isinstance(t, str)) or "(untyped)"
    props = record.get("properties") or {}
    name = props.get("name") or props.get("headline") or props.get("title")
    if isinstance(name, list):
        name = name[0] if name else None
    if isinstance(name, dict):
        name = name.get("@value")
    return f'{types} "{str(name)[:60]}"' if isinstance(name, str | int | float) and name else types


def element_of(record: dict[str, Any], path: str) -> str:
    """The element a path into ``record`` names: the deepest nested record on the path, or
    the sighting of its property when the layer recorded one."""
    node, element = record, str(record.get("source_element") or "")
    for match in _SEGMENT.finditer(path.split("|")[0]):
        props = node.get("properties") if isinstance(node, dict) else None
        if not isinstance(props, dict):
            break
        fields = (node.get("provenance") or {}).get("fields") or {}
        sightings = fields.get(match[1]) if isinstance(fields, dict) else None
        index = int(match[2]) if match[2] is not None else 0
        if isinstance(sightings, list) and sightings:
            sighting = sightings[min(index, len(sightings) - 1)]
            if isinstance(sighting, dict) and sighting.get("path"):
                element = str(sighting["path"])
        value = props.get(match[1])
        if isinstance(value, list):
            value = value[index] if index < len(value) else None
        if not (isinstance(value, dict) and "properties" in value):
            break
        node = value
        element = str(value.get("source_element") or element)
    return element


def _problem(code: str, severity: str, record: dict[str, Any], item: str | None, path: str,
             message: str, element: str | None = None) -> dict[str, Any]:  # fmt: skip
    return {
        "code": code,
        "severity": severity,
        "format": record.get("format"),
        "item": item,
        "path": path,
        "element": element if element is not None else element_of(record, path),
        "message": message,
        "fix": fix_for(code, path),
    }


def _entity_problems(record: dict[str, Any]) -> list[dict[str, Any]]:
    item = label(record)
    validation = record.get("validation") or {}
    out = []
    for severity, key in (("error", "errors"), ("warning", "warnings")):
        for issue in validation.get(key) or []:
            path = str(issue.get("path") or "")
            out.append(_problem(str(issue.get("code")), severity, record, item, path,
                                str(issue.get("message") or "")))  # fmt: skip
    for conflict in record.get("conflicts") or []:
        path = str(conflict.get("field") or "")
        message = conflict.get("message") or (
            f"{path}: the markup says {conflict.get('record_value')!r}, the page shows "
            f"{conflict.get('visible_value')!r}"
        )
        out.append(_problem(str(conflict.get("code")), "warning", record, item, path, message))
    return out


def page_problems(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The problems of a page's records (errors first, then warnings, each in page order)."""
    out = []
    for record in records:
        if not isinstance(record, dict):
            continue
        kind = record.get("kind")
        if kind == "entity":
            out.extend(_entity_problems(record))
        elif kind in ("error", "warning"):
            error = record.get("error") or {}
            code = str(error.get("code") or "")
            if code in _NOT_PROBLEMS:
                continue
            element = str(record.get("source_element") or "")
            out.append(_problem(code, kind, record, None, "", str(error.get("message") or ""),
                                element))  # fmt: skip
    return sorted(out, key=lambda p: p["severity"] != "error")


def annotate(page: dict[str, Any]) -> None:
    """Add ``problems`` to a checked page and ``eligibility`` to its entity records."""
    for record in page.get("records") or []:
        if isinstance(record, dict) and record.get("kind") == "entity":
            record["eligibility"] = eligibility(record)
    page["problems"] = page_problems(page.get("records") or [])


def record_lines(record: dict[str, Any]) -> list[str]:
    """The eligibility of one record, for people (``rich result  Product snippet: ...``)."""
    lines = []
    for verdict in record.get("eligibility") or []:
        text = f"      rich result  {verdict['name']}: {verdict['verdict']}"
        if verdict["status"] == "eligible with warnings" and verdict["recommended_missing"]:
            text += f" (recommended: {', '.join(verdict['recommended_missing'])})"
        lines.append(text)
    return lines


def problem_lines(page: dict[str, Any]) -> list[str]:
    """The page's problems to fix, for people: each with its code, item, path, element and
    fix (``missing-recommended`` is left to the lines under each record)."""
    shown = [p for p in page.get("problems") or [] if p["code"] != "missing-recommended"]
    if not shown:
        return []
    lines = [f"{len(shown)} problem(s) to fix:"]
    for problem in shown:
        where = " ".join(
            part
            for part in (problem["item"] or "(page)", problem["path"], f"at {problem['element']}")
            if part and part != "at "
        )
        lines.append(f"  {problem['severity']:<7} {problem['code']}  [{problem['format']}] {where}")
        lines.append(f"      {problem['message']}")
        lines.append(f"      fix: {problem['fix']}")
    return lines
