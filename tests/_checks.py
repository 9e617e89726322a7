"""Executable fixture checks: a tiny selector language over a case's records, and assertions.

A fixture's ``meta.json`` lists ``checks``; each is ``{"description": prose, "facts": [...]}``
and each fact is ``{"path": selector, <assertion>: value}`` (fixtures/README.md documents
both). The selector walks the list of records (``Record.to_dict()``) that extraction returns:

* ``records`` is that list;
* ``.name`` or ``["name"]`` takes a key of a dict (quote keys holding ``.``, ``[``, ``/``...);
* ``[3]`` takes an item of a list (``[-1]`` the last);
* ``[key=value,key2=value2]`` keeps the items of a list (dicts) whose ``key`` equals ``value``,
  compared as text, or, when the item's field is a list (``type``), contains it; a dotted
  ``key`` reads a nested field (``[error.code=payload-pdf]``); ``key!=value`` keeps the
  others; quote values holding ``,``, ``]`` or ``=`` (``[id="https://x.example/#a"]``).

>>> recs = [{"format": "json-ld", "type": ["Product"], "properties": {"og:x": [1, 2]}}]
>>> select(recs, 'records[format=json-ld,type=Product][0].properties["og:x"][-1]')
2
>>> select(recs, "records[format=rdfa]")
[]
>>> select(recs, "records[0].properties.missing") is MISSING
True

Assertions (exactly one per fact):

``equals``         the selected value equals this JSON value (``"1"`` is not ``1``)
``count``          ``len()`` of the selected list, dict or string
``contains``       a list holds this item, a dict this key, a string this substring
``excludes``       the opposite of ``contains`` (true of a missing value too)
``text_contains``  the selected value's JSON text holds this substring
``text_excludes``  the selected value's JSON text does not hold this substring
``matches``        the selected string matches this regular expression (``re.search``)
``absent``         ``true``: the path selects nothing (a missing key or index)

A fact may also say ``"known_bug": "why"``: the extractor is known not to satisfy it yet, so
the fact must *fail* (a strict expected failure); once the bug is fixed the fact holds and the
test asks for the marker to be removed.

>>> check_fact(recs, {"path": "records[0].type", "equals": ["Product"]})
>>> check_fact(recs, {"path": "records", "count": 2})
Traceback (most recent call last):
...
AssertionError: records: count 1, expected 2
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["ASSERTIONS", "MISSING", "case_failures", "check_fact", "checked_by_failures", "select"]

ASSERTIONS = (
    "equals",
    "count",
    "contains",
    "excludes",
    "text_contains",
    "text_excludes",
    "matches",
    "absent",
)


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
_TOKEN = re.compile(
    r"""\.(?P<key>[^.\[\]"]+)"""
    r"""|\[(?P<index>-?\d+)\]"""
    r"""|\["(?P<quoted>(?:[^"\\]|\\.)*)"\]"""
    r"""|\[(?P<filter>(?:[^\]"]|"(?:[^"\\]|\\.)*")+)\]"""
)
_CONDITION = re.compile(
    r"""\s*(?P<field>[^=!,\s]+)\s*(?P<op>!=|=)\s*"""
    r"""(?:"(?P<quoted>(?:[^"\\]|\\.)*)"|(?P<bare>[^,]*?))\s*(?:,|$)"""
)


def _unquote(text: str) -> str:
    return json.loads(f'"{text}"')


def _conditions(text: str) -> list[tuple[str, str, str]]:
    found, pos = [], 0
    while pos < len(text):
        match = _CONDITION.match(text, pos)
        if match is None or match.end() == pos:
            raise ValueError(f"bad filter [{text}]")
        value = _unquote(match["quoted"]) if match["quoted"] is not None else match["bare"]
        found.append((match["field"], match["op"], value))
        pos = match.end()
    return found


def _field(item: Any, dotted: str) -> Any:
    for key in dotted.split("."):
        if not isinstance(item, dict) or key not in item:
            return MISSING
        item = item[key]
    return item


def _text(value: Any) -> str:
    if value is MISSING:
        return "MISSING"
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _keeps(item: Any, conditions: list[tuple[str, str, str]]) -> bool:
    for field, op, wanted in conditions:
        value = _field(item, field)
        if isinstance(value, list):
            hit = any(_text(v) == wanted for v in value)
        else:
            hit = value is not MISSING and _text(value) == wanted
        if hit != (op == "="):
            return False
    return True


def select(records: list[dict[str, Any]], path: str) -> Any:
    """The value ``path`` selects in ``records``, or :data:`MISSING`."""
    if not path.startswith("records"):
        raise ValueError(f"a path starts with 'records': {path!r}")
    value: Any = records
    pos = len("records")
    while pos < len(path):
        match = _TOKEN.match(path, pos)
        if match is None:
            raise ValueError(f"bad path {path!r} at {path[pos:]!r}")
        pos = match.end()
        if value is MISSING:
            continue
        if match["key"] is not None or match["quoted"] is not None:
            key = match["key"] if match["key"] is not None else _unquote(match["quoted"])
            value = value.get(key, MISSING) if isinstance(value, dict) else MISSING
        elif match["index"] is not None:
            index = int(match["index"])
            ok = isinstance(value, list) and -len(value) <= index < len(value)
            value = value[index] if ok else MISSING
        else:
            conditions = _conditions(match["filter"])
            value = [v for v in value if _keeps(v, conditions)] if isinstance(value, list) else []
    return value


def _require(ok: Any, message: str) -> None:
    if not ok:
        raise AssertionError(message)


def check_fact(records: list[dict[str, Any]], fact: dict[str, Any]) -> None:
    """Raise ``AssertionError`` saying what differs when ``fact`` does not hold."""
    (op,) = [k for k in fact if k != "path"] or ["?"]
    if op not in ASSERTIONS or len(fact) != 2:
        raise ValueError(f"a fact is a path and one of {ASSERTIONS}: {fact}")
    path, want = fact["path"], fact[op]
    got = select(records, path)
    shown = f"{_text(got)[:300]}"
    if op == "absent":
        _require((got is MISSING) == bool(want), f"{path}: {shown} (absent: {want})")
        return
    if op == "excludes":
        _require(got is MISSING or want not in got, f"{path}: {shown} holds {want!r}")
        return
    _require(got is not MISSING, f"{path}: selects nothing ({op} {want!r})")
    if op == "equals":
        _require(got == want, f"{path}: {shown}, expected {_text(want)[:300]}")
    elif op == "count":
        _require(len(got) == want, f"{path}: count {len(got)}, expected {want}")
    elif op == "contains":
        _require(want in got, f"{path}: {shown} does not hold {want!r}")
    elif op == "text_contains":
        _require(want in _text(got), f"{path}: {shown} does not hold {want!r}")
    elif op == "text_excludes":
        _require(want not in _text(got), f"{path}: holds {want!r}")
    else:  # matches
        _require(isinstance(got, str) and re.search(want, got), f"{path}: {shown} !~ {want!r}")


def case_failures(
    records: list[dict[str, Any]], checks: list[Any], on: str = "committed"
) -> list[str]:
    """Every failing fact of the ``checks`` about ``on`` (``"committed"``: the committed page,
    the default; ``"generated"``: the full-size body an adversarial case's ``generate`` recipe
    builds, checked by tests/test_adversarial.py) as ``check N fact M (description): message``.
    A check that is still prose (a string) or has no facts is itself a failure; a check whose
    fact is a time bound says ``checked_by`` (the ``meta.json`` field that
    tests/test_adversarial.py enforces, see :func:`checked_by_failures`) instead."""
    failures = []
    for n, check in enumerate(checks):
        if isinstance(check, dict) and "checked_by" in check and "facts" not in check:
            continue  # a time bound: checked_by names the meta.json field the test enforces
        if not isinstance(check, dict) or not check.get("facts"):
            failures.append(f"check {n} has no executable facts: {check!r:.120}")
            continue
        if check.get("on", "committed") != on:
            continue
        for m, fact in enumerate(check["facts"]):
            where = f"check {n} fact {m} ({check.get('description', '')[:80]})"
            bug = fact.get("known_bug")
            try:
                check_fact(records, {k: v for k, v in fact.items() if k != "known_bug"})
            except AssertionError as exc:
                if bug is None:
                    failures.append(f"{where}: {exc}")
                continue
            except ValueError as exc:
                failures.append(f"{where}: {exc}")
                continue
            if bug is not None:
                failures.append(f"{where}: holds now; remove its known_bug ({bug[:80]})")
    return failures


def checked_by_failures(meta: dict[str, Any]) -> list[str]:
    """The ``checked_by`` checks of a case whose named ``meta.json`` field (a dotted path such
    as ``expect.max_seconds``) is missing: the bound they rely on would not be enforced."""
    failures = []
    for n, check in enumerate(meta.get("checks", [])):
        if isinstance(check, dict) and "checked_by" in check:
            if _field(meta, check["checked_by"]) is MISSING:
                failures.append(f"check {n}: meta.json has no {check['checked_by']}")
    return failures
