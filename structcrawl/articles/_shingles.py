"""Word 4-gram shingles, and how much of one text another covers (pure).

The measure of the article-extraction benchmarks: a text is cut into words (``\\w+`` runs), every
run of four consecutive words is a shingle, and two texts are compared as multisets of shingles
(precision: the share of the predicted shingles the true text holds; recall: the share of the
true shingles the prediction holds). The body extraction uses it to decide whether the markup's
``articleBody`` is the text the page shows; ``bench/bench_articles.py`` scores with it.

>>> scores("the cat sat on the mat", "the cat sat on the mat today")
(0.75, 1.0)
>>> scores("", ""), scores("a b c d", "")
((1.0, 1.0), (0.0, 0.0))
>>> f1(0.5, 1.0)
0.6666666666666666
"""

from __future__ import annotations

import re
from collections import Counter

__all__ = ["covered", "f1", "scores", "shingles"]

_WORD = re.compile(r"\w+")
N = 4


def shingles(text: str | None, n: int = N) -> Counter[tuple[str, ...]]:
    """The multiset of ``n``-word shingles of ``text`` (a text shorter than ``n`` words is one
    shingle; no words: none).

    >>> sorted(shingles("a b c d e").elements()), shingles("a b"), shingles(" ")
    ([('a', 'b', 'c', 'd'), ('b', 'c', 'd', 'e')], Counter({('a', 'b'): 1}), Counter())
    """
    words = _WORD.findall(text or "")
    if len(words) < n:
        return Counter((tuple(words),)) if words else Counter()
    # every run of n words: the list read from each of its first n places side by side, as
    # far as the last place reaches (a tuple built by zip, not a slice per shingle)
    return Counter(zip(*(words[k:] for k in range(n)), strict=False))


def scores(true: str | None, pred: str | None) -> tuple[float, float]:
    """``(precision, recall)`` of ``pred`` against ``true`` over shingles; two empty texts agree
    fully, an empty prediction of a non-empty text scores 0."""
    a, b = shingles(true), shingles(pred)
    tp = sum((a & b).values())
    fp = sum((b - a).values())
    fn = sum((a - b).values())
    if fp == fn == 0:
        return 1.0, 1.0
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    return precision, recall


def f1(precision: float, recall: float) -> float:
    """The harmonic mean (0 when both are 0)."""
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def covered(part: Counter[tuple[str, ...]], whole: Counter[tuple[str, ...]]) -> float:
    """The share of ``part``'s shingles that ``whole`` holds (1.0 for an empty ``part``)."""
    total = sum(part.values())
    return sum((part & whole).values()) / total if total else 1.0
