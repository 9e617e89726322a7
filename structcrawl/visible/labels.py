"""Labelled codes in the page's visible text (pure): the SKU, reference, model number or
GTIN nearest the main heading ("SKU: KT-1700", "EAN 4006381333931", "品番：XJ-300").

The visible text pieces (:mod:`structcrawl.visible.walk`) are joined once, ``" | "`` after
each, and each label pattern (:mod:`structcrawl.visible.words`) is searched in it. A label's
match ends in a code that holds a digit (or a dash or underscore between letters and
digits), in the label's own piece or in a later one with nothing but separators (``:``,
``#``, ``|``, spaces) between. So only the runs of pieces that can hold one are searched:
each piece holding a digit, a dash or an underscore, with the separator-only pieces before
it and the piece before those. Every match of the whole text lies inside one such run, so
the runs give the matches a search of the whole text gives, at a fraction of its cost (the
label searches were the evidence's costliest step: ~4 ms over a large page's text).

>>> from structcrawl.visible.walk import Piece
>>> from structcrawl.visible.words import SKU_LABEL
>>> texts = ["Kettle 1.7 l", "Our best kettle", "SKU", ":", "KT-1700", "Free returns"]
>>> text = LabelText([Piece(t, None, i, False) for i, t in enumerate(texts)])
>>> text.runs, text.nearest(SKU_LABEL, 0)
([(0, 12), (33, 50)], ('KT-1700', 'SKU | : | KT-1700'))
>>> text.nearest(Folded(SKU_LABEL), 0)  # searched in the text lowercased
('KT-1700', 'SKU | : | KT-1700')
"""

from __future__ import annotations

import re
from bisect import bisect_right

from structcrawl.visible.folded import Folded, fold
from structcrawl.visible.walk import Piece

__all__ = ["LabelText"]

#: what a code needs somewhere in its piece (a superset of what a label's code must hold)
_CODE_SIGN = re.compile(r"[\d_-]")
#: a piece of nothing but what may separate a label from its code (``[\s:：#|]*``)
_SEPARATORS = re.compile(r"[\s:：#|]*")


class LabelText:
    """The pieces' text joined once (``" | "`` after each), where each piece starts in it,
    and the runs of it that can hold a labelled code (see the module doc)."""

    __slots__ = ("_folded", "full", "runs", "starts")

    def __init__(self, pieces: list[Piece]) -> None:
        self.starts: list[int] = []
        at = 0
        for piece in pieces:
            self.starts.append(at)
            at += len(piece.text) + 3
        self.full = "".join(f"{piece.text} | " for piece in pieces)
        self.runs = self._runs(pieces)
        self._folded: str | None | bool = False  # the text lowercased (fold), read once

    def _runs(self, pieces: list[Piece]) -> list[tuple[int, int]]:
        """``(start, end)`` offsets in :attr:`full` of the runs of pieces that can hold a
        label and its code, in order, apart (runs that meet are one)."""
        runs: list[tuple[int, int]] = []
        for j, piece in enumerate(pieces):
            if not _CODE_SIGN.search(piece.text):
                continue
            k = j - 1  # the label's piece: before the separators before the code's
            while k >= 0 and _SEPARATORS.fullmatch(pieces[k].text):
                k -= 1
            start, end = self.starts[max(k, 0)], self.starts[j] + len(piece.text)
            if runs and start <= runs[-1][1] + 3:
                start = runs.pop()[0]
            runs.append((start, end))
        return runs

    def nearest(self, pattern: re.Pattern[str] | Folded, anchor: int) -> tuple[str, str] | None:
        """The labelled value nearest the piece ``anchor`` (the main heading; one after it at
        half the distance of one before it): ``(value, text)``, the first on a tie. A
        :class:`~structcrawl.visible.folded.Folded` pattern is searched in the text lowercased
        where that finds its matches (the values are read from the text as it is)."""
        text = self.full
        if isinstance(pattern, Folded):
            if self._folded is False:
                self._folded = fold(text)
            searched, pattern = (
                (self._folded, pattern.lowered)
                if isinstance(self._folded, str)
                else (text, pattern.ignoring)
            )
        else:
            searched = text
        starts = self.starts
        best: tuple[int, int, int, int, int] | None = None
        for start, end in self.runs:
            for m in pattern.finditer(searched, start, end):
                at = bisect_right(starts, m.start()) - 1
                distance = at - anchor if at >= anchor else 2 * (anchor - at)
                if best is None or distance < best[0]:
                    best = (distance, *m.span(1), *m.span())
        if best is None:
            return None
        _, a, b, c, d = best
        return text[a:b], text[c:d]
