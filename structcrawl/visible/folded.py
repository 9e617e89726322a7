"""Case-insensitive wording searched in lowercased text (pure).

Python's case-insensitive matching (``re.I``) lowercases each character of the text as it
compares it with the pattern's: over a page's text, the phrase lists of
:mod:`structcrawl.visible.words` take about twice as long as the same pattern matched
case-sensitively in the text lowercased once by ``str.lower`` (in C). :class:`Folded` keeps
both: the lowercase pattern searched in :func:`fold`'s text where the two searches agree on
every character, the case-insensitive one on the text itself where they may not.

They agree where lowercasing keeps each character one character (``İ`` becomes two) and the
text holds none of the characters case-insensitive matching takes for another beside their
lowercase (``ı`` for ``i``, ``ſ`` for ``s``, the Greek symbol forms, final sigma:
``sre``'s equivalences). The text keeps its offsets, so a match's span is the same in both.

A wording of guarded phrases then CJK literals (:mod:`structcrawl.visible.words`) is searched
in the lowercased text as two patterns, their matches merged as one search would give them:
alone, the literals are found by their first characters, which ``sre`` does not do after the
phrases (~30% less time over a page's text).

>>> from structcrawl.visible.words import OUT_OF_STOCK
>>> sold = Folded(OUT_OF_STOCK)
>>> text = "Kettle — SOLD OUT"
>>> [text[m.start():m.end()] for m in sold.finditer(text)]
['SOLD OUT']
>>> fold("Grüße"), fold("İstanbul"), fold("σκεύη")
('grüße', None, None)
"""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = ["Folded", "alternatives", "fold"]

#: the characters case-insensitive matching takes for another beside their lowercase, but
#: ASCII's ``i`` and ``s`` (the others of their pairs, ``ı`` and ``ſ``, are here): ``sre``'s
#: equivalences (Lib/re/_compiler.py, ``_equivalences``)
_EQUIVALENT = "ıſµμͅιιΐΐΰΰβϐεϵθϑκϰπϖρϱςσφϕṡẛﬅﬆ"
_SPECIAL = re.compile(f"[{_EQUIVALENT}]")
#: a letter that is not lowercase, outside an escape (``\\B``, ``\\D``, ``\\S``, ``\\W``)
_NOT_LOWER = re.compile(r"(?<!\\)(?:\\\\)*[^\W\d_]")


def fold(text: str) -> str | None:
    """``text`` lowercased, character for character, where a case-insensitive search of
    ``text`` and a case-sensitive search of the lowercased text for lowercase wording find
    the same matches; None where they may not (see the module doc)."""
    lowered = text.lower()
    if len(lowered) != len(text):
        return None
    if not lowered.isascii() and _SPECIAL.search(lowered):
        return None
    return lowered


#: a character that makes an alternative more than a plain literal
_SYNTAX = re.compile(r"[\\()\[\]?*+{}|.^$]")


def alternatives(source: str) -> list[str]:
    """The top-level alternatives of a pattern's ``source`` (``a|(b|c)|d`` -> ``a``,
    ``(b|c)``, ``d``).

    >>> alternatives("a(?:b|c)|[|]|d|e")
    ['a(?:b|c)', '[|]', 'd', 'e']
    """
    out: list[str] = []
    depth, begin, at, in_class = 0, 0, 0, False
    while at < len(source):
        char = source[at]
        if char == "\\":
            at += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            if source[at + 1 : at + 2] == "]":
                at += 1  # "[]...]": the first "]" is a member
        elif char in "()":
            depth += 1 if char == "(" else -1
        elif char == "|" and depth == 0:
            out.append(source[begin:at])
            begin = at + 1
        at += 1
    out.append(source[begin:])
    return out


def _split(pattern: re.Pattern[str]) -> tuple[re.Pattern[str], re.Pattern[str]] | None:
    """``(words, literals)`` of a pattern that is one alternative then plain literals (the
    wording of :mod:`structcrawl.visible.words`: guarded phrases, then the CJK ones), each
    compiled alone; None for any other. Alone, the literals are found by their first
    characters (``sre``'s charset prefix), which it does not do for them after the guarded
    alternative: the two searches, merged (:func:`_merged`), take ~30% less time than one."""
    parts = alternatives(pattern.pattern)
    if len(parts) < 2 or not all(p and not _SYNTAX.search(p) for p in parts[1:]):
        return None
    if not _never_empty(parts[0], pattern.flags):
        return None  # an empty match would need finditer's rule for the next one
    return re.compile(parts[0], pattern.flags), re.compile("|".join(parts[1:]), pattern.flags)


def _never_empty(source: str, flags: int) -> bool:
    """Whether every match of ``source`` holds a character (its least width, as ``sre``'s
    parser tells it; False where that parser is not there to ask).

    >>> _never_empty("ab?", 0), _never_empty("a*", 0), _never_empty("(?=a)", 0)
    (True, False, False)
    """
    try:
        from re import _parser  # type: ignore[attr-defined]

        return bool(_parser.parse(source, flags).getwidth()[0] > 0)
    except (ImportError, AttributeError):
        return False


def _merged(first: re.Pattern[str], rest: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """The matches ``re.compile(f"{first}|{rest}").finditer(text)`` gives, from a search of
    each: the one that starts first, ``first``'s where both start at one place (it is tried
    first there), the search going on after it; a match of either that started inside it is
    looked for again from there. (Neither matches the empty text: :func:`_split`.)"""
    a, b = first.search(text), rest.search(text)
    while a is not None or b is not None:
        found = a if a is not None and (b is None or a.start() <= b.start()) else b
        assert found is not None
        yield found
        at = found.end()
        if a is not None and a.start() < at:
            a = first.search(text, at)
        if b is not None and b.start() < at:
            b = rest.search(text, at)


class Folded:
    """A case-insensitive pattern of lowercase wording (``ignoring``), searched in lowercased
    text where that finds the same matches (:func:`fold`), else as it is."""

    __slots__ = ("_parts", "ignoring", "lowered")

    def __init__(self, ignoring: re.Pattern[str]) -> None:
        source = ignoring.pattern
        if not ignoring.flags & re.I or any(
            m.group(0)[-1] != m.group(0)[-1].lower() for m in _NOT_LOWER.finditer(source)
        ):
            raise ValueError(f"not a case-insensitive pattern of lowercase wording: {source!r}")
        self.ignoring = ignoring
        self.lowered = re.compile(source, ignoring.flags & ~re.I)
        self._parts = _split(self.lowered)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        """The matches of the pattern in ``text``: their spans are ``text``'s, their groups
        may be lowercased (read the matched text from ``text`` by the spans)."""
        lowered = fold(text)
        if lowered is None:
            return self.ignoring.finditer(text)
        if self._parts is not None:
            return _merged(*self._parts, lowered)
        return self.lowered.finditer(lowered)
