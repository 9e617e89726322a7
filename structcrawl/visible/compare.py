"""Comparing a value with what the page shows (pure): the one set of rules the record checks
(:mod:`structcrawl.validate.visible`) and the item checks (:mod:`structcrawl.validate.fallbacks`)
share.

* names and headlines agree word for word: after Unicode NFKC, case folding and runs of
  punctuation and spaces read as one space, one contains the other (a title carries a
  " | Shop" suffix);
* a price is shown when its amount equals the amount of a visible price text
  (:func:`structcrawl.visible.prices.amount`);
* a code (SKU, MPN) is shown when it appears in the visible text, case folded.

>>> agrees("Trail Runner X", "Trail Runner X | Northwind"), agrees("Runner", "Trail Runner X")
(True, True)
>>> agrees("Trail", "Trailhead pack"), amount_shown("12.00", ["$12", "€ 3,50"])
(False, True)
>>> code_shown("vd-ks110", "Art.-Nr. VD-KS110")
True
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Any

from structcrawl.visible.prices import amount

__all__ = ["agrees", "amount_shown", "code_shown", "words"]

_NON_WORD = re.compile(r"[\W_]+")


def words(text: str) -> str:
    """``text`` as lower-case words separated by single spaces."""
    return _NON_WORD.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def agrees(a: str, b: str) -> bool:
    """Word for word, one contains the other."""
    na, nb = words(a), words(b)
    return bool(na and nb) and (f" {na} " in f" {nb} " or f" {nb} " in f" {na} ")


def amount_shown(value: Any, shown: Iterable[str]) -> bool:
    """Whether the amount of ``value`` is the amount of one of the ``shown`` price texts."""
    wanted = amount(value)
    return wanted is not None and any(amount(text) == wanted for text in shown)


def code_shown(value: Any, text: str) -> bool:
    """Whether ``value`` (a SKU, an MPN) appears in ``text``, case folded."""
    code = str(value).strip().casefold()
    return bool(code) and code in text.casefold()
