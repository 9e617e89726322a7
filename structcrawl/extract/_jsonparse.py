"""Strict JSON parsing with labelled, opt-in repairs of common publisher mistakes.

:func:`parse_json` first parses the text as strict JSON (no ``NaN``, no raw control
characters, one value). Only when that fails does it try repairs, one at a time and
cumulatively, in a fixed order; each repair that changed the text is named in the result,
so a record can say exactly what was done to its source. Nothing is ever evaluated.

Bounds: text nested deeper than ``max_depth`` arrays/objects is refused (``too_deep``; the C
parser's own recursion bound counts too), and text longer than ``max_repair_chars`` is not
repaired (the repairs are character scans in Python). Every regular expression here runs in
linear time, whatever the text.

Valid JSON that Python would turn into values no JSON writer accepts is made safe and named in
``notes`` (callers label their records with them and keep the original text): an object
repeating a key keeps the last value, as JavaScript does (``duplicate-keys-last-wins``); a
number too large for a double (``1e999``) becomes null (``non-finite-number-to-null``); a lone
UTF-16 surrogate escape (``"\\ud800"``) becomes U+FFFD (``replace-lone-surrogates``).

>>> parse_json('{"a": 1,}').repairs
['remove-trailing-commas']
>>> parse_json('{"a": 1}{"b": 2}').values
[{'a': 1}, {'b': 2}]
>>> parse_json('{"a": ').error.startswith('Expecting value')
True
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from structcrawl.core.limits import json_depth_exceeds

__all__ = ["MEANING_CHANGING", "JsonParse", "parse_json", "REPAIRS"]


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-standard JSON constant {name}")


DUPLICATE_KEYS = "duplicate-keys-last-wins"
NON_FINITE = "non-finite-number-to-null"
LONE_SURROGATES = "replace-lone-surrogates"
# A number that may overflow a double: an exponent, or a very long run of digits. A JSON
# number is ASCII, so the test runs on the UTF-8 bytes: the exponent pattern, then a run of
# 300 digits found as 300 zeros once every digit is made '0' and every other byte '.'.
_EXPONENT = re.compile(rb"[0-9][eE]\+?[0-9]")
_DIGITS_AS_ZEROS = bytes(0x30 if 0x30 <= b <= 0x39 else 0x2E for b in range(256))
_LONG_RUN = b"0" * 300
_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _may_overflow(text: str) -> bool:
    """Whether ``text`` may hold a number too large for a double (then floats are checked).

    >>> [_may_overflow(t) for t in ("[1e999]", f"[{'9' * 400}.0]", "[2e-400]", "[1, " * 400)]
    [True, True, False, False]
    """
    data = text.encode("utf-8", "surrogatepass")
    if _EXPONENT.search(data):
        return True
    return len(data) >= 300 and _LONG_RUN in data.translate(_DIGITS_AS_ZEROS)


@dataclass(slots=True)
class _Seen:
    duplicates: list[str] = field(default_factory=list)
    overflow: bool = False


def _decoder(seen: _Seen, floats: bool) -> json.JSONDecoder:
    """A strict decoder noting repeated keys (the first few) and, when ``floats``, numbers
    that overflow (read as None)."""

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(items)
        if len(obj) < len(items) and len(seen.duplicates) < 10:
            keys: set[str] = set()
            for key, _ in items:
                if key in keys and key not in seen.duplicates:
                    seen.duplicates.append(key)
                keys.add(key)
        return obj

    def parse_float(literal: str) -> float | None:
        value = float(literal)
        if value in (_INF, -_INF):
            seen.overflow = True
            return None
        return value

    return json.JSONDecoder(
        parse_constant=_reject_constant,
        strict=True,
        object_pairs_hook=pairs,
        parse_float=parse_float if floats else None,
    )


_INF = float("inf")


def _fix_surrogates(values: list[Any]) -> bool:
    """Replace lone surrogates in every string (keys too) by U+FFFD, in place (iterative)."""

    def fix(text: str) -> str:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")

    changed = False
    stack: list[Any] = [values]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            for i, v in enumerate(node):
                if isinstance(v, str) and _SURROGATE.search(v):
                    node[i], changed = fix(v), True
                elif isinstance(v, dict | list):
                    stack.append(v)
        elif isinstance(node, dict):
            if any(_SURROGATE.search(k) for k in node):
                items = [(fix(k), v) for k, v in node.items()]
                node.clear()
                node.update(items)
                changed = True
            for k, v in node.items():
                if isinstance(v, str) and _SURROGATE.search(v):
                    node[k], changed = fix(v), True
                elif isinstance(v, dict | list):
                    stack.append(v)
    return changed


@dataclass(slots=True)
class JsonParse:
    """The outcome: parsed values (usually one) and the repairs applied, or an error."""

    values: list[Any] = field(default_factory=list)
    repairs: list[str] = field(default_factory=list)
    error: str | None = None
    too_deep: bool = False
    duplicates: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error is None


def _decode_all(text: str, decoder: json.JSONDecoder) -> list[Any]:
    """Decode every JSON value in ``text`` (several only when concatenated)."""
    values: list[Any] = []
    idx, end = 0, len(text)
    ws = re.compile(r"\s*")
    idx = ws.match(text, idx).end()  # type: ignore[union-attr]
    while idx < end:
        value, idx = decoder.raw_decode(text, idx)
        values.append(value)
        idx = ws.match(text, idx).end()  # type: ignore[union-attr]
    return values


def _strict_one(text: str, decoder: json.JSONDecoder) -> list[Any]:
    return [decoder.decode(text)]


# --- repairs: each takes text and returns (possibly) changed text --------------------------

_COMMENT_WRAP = re.compile(r"^\s*<!--(.*?)-->\s*$", re.S)
# One comment ends at its first "-->" (as in HTML): a run of comments splits one way only, so
# these never backtrack exponentially (``<!--.*?-->`` repeated did, on ~25 empty comments).
_COMMENT = r"<!--(?:[^-]|-(?!->))*-->"
_LEADING_COMMENTS = re.compile(rf"^\s*(?:{_COMMENT}\s*)+(?=[\[{{])", re.S)
_TRAILING_COMMENTS = re.compile(rf"(?<=[\]}}])\s*(?:{_COMMENT}\s*)+$", re.S)
_CDATA_WRAP = re.compile(
    r"^\s*(?://|/\*)?\s*<!\[CDATA\[(.*?)(?://|/\*)?\s*\]\]>\s*(?:\*/)?\s*$", re.S
)
_NON_FINITE = re.compile(r"(?<![\w\"])(-?Infinity|NaN)(?![\w\"])")


def _strip_html_comment(text: str) -> str:
    """Drop HTML comments around the JSON: whole comments before or after the value
    (``<!-- note -->{...}``), or a comment wrapping the whole block (``<!-- {...} -->``)."""
    stripped = _TRAILING_COMMENTS.sub("", _LEADING_COMMENTS.sub("", text))
    if stripped != text:
        return stripped
    m = _COMMENT_WRAP.match(text)
    return m.group(1) if m else text


def _strip_cdata(text: str) -> str:
    m = _CDATA_WRAP.match(text)
    return m.group(1) if m else text


def _scan(text: str, *, comments: bool, commas: bool, controls: bool, non_finite: bool) -> str:
    """One string-aware pass: drop JS comments, trailing commas, escape raw controls."""
    out: list[str] = []
    i, n = 0, len(text)
    in_str = False
    while i < n:
        ch = text[i]
        if in_str:
            if ch == "\\" and i + 1 < n:
                out.append(text[i : i + 2])
                i += 2
                continue
            if ch == '"':
                in_str = False
            elif controls and ch < " ":
                ch = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(ch, f"\\u{ord(ch):04x}")
            out.append(ch)
            i += 1
            continue
        if ch == '"':
            in_str = True
        elif comments and ch == "/" and i + 1 < n and text[i + 1] in "/*":
            if text[i + 1] == "/":
                j = text.find("\n", i)
                i = n if j < 0 else j
            else:
                j = text.find("*/", i + 2)
                i = n if j < 0 else j + 2
            continue
        elif commas and ch == ",":
            j = i + 1
            while j < n and text[j] in " \t\r\n":
                j += 1
            if j < n and text[j] in "}]":
                i += 1
                continue
        elif non_finite and ch in "NI-":
            m = _NON_FINITE.match(text, i)
            if m:
                out.append("null")
                i = m.end()
                continue
        out.append(ch)
        i += 1
    return "".join(out)


def _strip_js_comments(text: str) -> str:
    return _scan(text, comments=True, commas=False, controls=False, non_finite=False)


def _remove_trailing_commas(text: str) -> str:
    return _scan(text, comments=False, commas=True, controls=False, non_finite=False)


def _escape_controls(text: str) -> str:
    return _scan(text, comments=False, commas=False, controls=True, non_finite=False)


def _non_finite_to_null(text: str) -> str:
    return _scan(text, comments=False, commas=False, controls=False, non_finite=True)


def _unescape_entities(text: str) -> str:
    return html.unescape(text) if "&" in text else text


#: Repairs in the order they are tried; the label is what records report.
def _strip_bom(text: str) -> str:
    """Drop byte order marks before the value (a BOM'd template included mid-page)."""
    stripped = text.lstrip()
    return stripped.lstrip("\ufeff") if stripped.startswith("\ufeff") else text


REPAIRS: tuple[tuple[str, Callable[[str], str]], ...] = (
    ("strip-byte-order-mark", _strip_bom),
    ("strip-html-comment", _strip_html_comment),
    ("strip-cdata", _strip_cdata),
    ("unescape-html-entities", _unescape_entities),
    ("strip-js-comments", _strip_js_comments),
    ("remove-trailing-commas", _remove_trailing_commas),
    ("escape-control-characters", _escape_controls),
    ("non-finite-number-to-null", _non_finite_to_null),
)


def _message(exc: Exception) -> str:
    if isinstance(exc, RecursionError):
        return "JSON nested too deeply to parse"
    return str(exc)


def _too_deep(text: str, values: list[Any], max_depth: int | None) -> bool:
    if max_depth is None or text.count("[") + text.count("{") <= max_depth:
        return False  # cheap: fewer brackets than the bound cannot nest past it
    return any(json_depth_exceeds(v, max_depth) for v in values)


def _bounded(parsed: JsonParse, text: str, max_depth: int | None) -> JsonParse:
    if parsed.ok and _too_deep(text, parsed.values, max_depth):
        return JsonParse(
            error=f"JSON nested deeper than {max_depth} arrays/objects (max_json_depth)",
            too_deep=True,
        )
    return parsed


#: Repairs that may change what the text means (two objects a template pasted together, text
#: that an HTML escaper touched): applied only when every repair is asked for (``"all"``).
MEANING_CHANGING = frozenset({"unescape-html-entities", "split-concatenated-values"})


def parse_json(
    text: str,
    *,
    repair: bool | str = True,
    max_depth: int | None = None,
    max_repair_chars: int | None = None,
) -> JsonParse:
    """Parse ``text`` strictly; if that fails and ``repair`` is on, try labelled repairs.

    ``repair`` is ``True`` or ``"all"`` (every repair), ``"safe"`` (none of
    :data:`MEANING_CHANGING`), ``False`` or ``"none"`` (strict JSON only).

    Concatenated values (``{..}{..}``) are split as the last repair. The error message is the
    strict parser's message on the original text, which is what a person needs to fix it.
    ``max_depth`` refuses values nested deeper (``too_deep``); text longer than
    ``max_repair_chars`` is not repaired.

    >>> parse_json('{"a": 1}{"b": 2}', repair="safe").ok, parse_json('{"a": 1,}', repair="safe").ok
    (False, True)
    >>> parse_json("[[[1]]]", max_depth=2).too_deep
    True
    >>> parse_json("[" * 100_000).too_deep
    True
    >>> parse_json('{"a": 1, "a": 2}').notes
    ['duplicate-keys-last-wins']
    >>> parse_json('[1e999, "\\udc00"]').values, parse_json('[1e999]').notes
    ([[None, '\ufffd']], ['non-finite-number-to-null'])
    """
    seen = _Seen()
    decoder = _decoder(seen, _may_overflow(text))
    parsed = _bounded(_parse(text, repair, max_repair_chars, decoder), text, max_depth)
    if parsed.ok:
        parsed.duplicates = seen.duplicates
        if seen.duplicates:
            parsed.notes.append(DUPLICATE_KEYS)
        if seen.overflow and NON_FINITE not in parsed.repairs:
            parsed.notes.append(NON_FINITE)
        if (_SURROGATE.search(text) or _SURROGATE_ESCAPE.search(text)) and _fix_surrogates(
            parsed.values
        ):
            parsed.notes.append(LONE_SURROGATES)
    return parsed


def _parse(
    text: str, repair: bool | str, max_repair_chars: int | None, decoder: json.JSONDecoder
) -> JsonParse:
    try:
        return JsonParse(values=_strict_one(text, decoder))
    except RecursionError as exc:  # no repair makes text shallower
        return JsonParse(error=_message(exc), too_deep=True)
    except ValueError as exc:
        first_error = _message(exc)
    if repair in (False, "none"):
        return JsonParse(error=first_error)
    every = repair in (True, "all")
    if max_repair_chars is not None and len(text) > max_repair_chars:
        return JsonParse(
            error=f"{first_error} (not repaired: {len(text):,} characters, more than "
            f"{max_repair_chars:,} (max_repair_chars))"
        )
    applied: list[str] = []
    current = text
    for label, fn in REPAIRS:
        if not every and label in MEANING_CHANGING:
            continue
        try:
            changed = fn(current)
        except RecursionError:
            break
        if changed == current:
            continue
        current = changed
        applied.append(label)
        try:
            return JsonParse(values=_strict_one(current, decoder), repairs=list(applied))
        except (ValueError, RecursionError):
            continue
    if not every:
        return JsonParse(error=first_error)
    try:
        values = _decode_all(current, decoder)
    except RecursionError:
        return JsonParse(error=first_error, too_deep=True)
    except ValueError:
        return JsonParse(error=first_error)
    if len(values) > 1:
        return JsonParse(values=values, repairs=[*applied, "split-concatenated-values"])
    return JsonParse(error=first_error)  # pragma: no cover - strict parse would have succeeded
