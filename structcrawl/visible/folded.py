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

__all__ = ["Folded", "fold"]

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


class Folded:
    """A case-insensitive pattern of lowercase wording (``ignoring``), searched in lowercased
    text where that finds the same matches (:func:`fold`), else as it is."""

    __slots__ = ("ignoring", "lowered")

    def __init__(self, ignoring: re.Pattern[str]) -> None:
        source = ignoring.pattern
        if not ignoring.flags & re.I or any(
            m.group(0)[-1] != m.group(0)[-1].lower() for m in _NOT_LOWER.finditer(source)
        ):
            raise ValueError(f"not a case-insensitive pattern of lowercase wording: {source!r}")
        self.ignoring = ignoring
        self.lowered = re.compile(source, ignoring.flags & ~re.I)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        """The matches of the pattern in ``text``: their spans are ``text``'s, their groups
        may be lowercased (read the matched text from ``text`` by the spans)."""
        lowered = fold(text)
        if lowered is None:
            return self.ignoring.finditer(text)
        return self.lowered.finditer(lowered)
