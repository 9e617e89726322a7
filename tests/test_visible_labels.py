"""The labelled codes are read from the runs of text that can hold one: the same matches a
search of the page's whole visible text finds."""

from __future__ import annotations

import re
from bisect import bisect_right
from pathlib import Path

import pytest

from structcrawl.core.document import parse_html
from structcrawl.visible.folded import Folded
from structcrawl.visible.labels import LabelText
from structcrawl.visible.walk import Piece, visible_walk
from structcrawl.visible.words import GTIN_LABEL, MODEL_LABEL, REF_LABEL, SKU_LABEL

PATTERNS = (SKU_LABEL, REF_LABEL, MODEL_LABEL, GTIN_LABEL)
TEXTS = [
    ["Kettle", "SKU", ":", "#", "AB-12", "Free returns"],
    ["Item number", "eBay:", "123"],
    ["品番：XJ-300", "型番", "K-100"],
    ["Art.-Nr.", "|", "12345", "EAN", "4006381 333931"],
    ["Model", "no.", "5K_2", "Ref", "ABC-DEF"],
    ["x-y", "SKU:", "Q_Z", "MPN#12-34 and more", "GTIN: 0012345678905"],
    ["SKU", "no code here", "42"],
    # characters re.I takes for others, or that lowercase to two: searched as they are
    ["\u017fKU: AB-12", "ARTİKELNR. X-1", "Κωδικός: 123-A", "K\u212aU-Nr: 9_9"],
]


def _whole_text(text: LabelText, pattern: re.Pattern[str], anchor: int) -> tuple | None:
    best = None
    for m in pattern.finditer(text.full):
        at = bisect_right(text.starts, m.start()) - 1
        distance = at - anchor if at >= anchor else 2 * (anchor - at)
        if best is None or distance < best[0]:
            best = (distance, m.group(1), m.group(0))
    return (best[1], best[2]) if best else None


def _pages() -> list[LabelText]:
    out = [LabelText([Piece(t, None, i, False) for i, t in enumerate(ts)]) for ts in TEXTS]  # type: ignore[arg-type]
    for path in sorted(Path(__file__).parent.parent.glob("fixtures/items*/*/*.html")):
        out.append(
            LabelText(visible_walk(parse_html(path.read_bytes(), "https://s.example/")).pieces)
        )
    return out


@pytest.mark.parametrize("pattern", PATTERNS, ids=["sku", "ref", "model", "gtin"])
def test_the_runs_hold_every_match_of_the_whole_text(pattern: re.Pattern[str]) -> None:
    pages = _pages()
    assert len(pages) > len(TEXTS)
    found = 0
    for text in pages:
        whole = [(m.span(), m.groups()) for m in pattern.finditer(text.full)]
        runs = [
            (m.span(), m.groups()) for a, b in text.runs for m in pattern.finditer(text.full, a, b)
        ]
        assert runs == whole
        found += len(whole)
        for anchor in (0, 3, len(text.starts) // 2):
            expected = _whole_text(text, pattern, anchor)
            assert text.nearest(pattern, anchor) == expected
            # searched in the text lowercased, the values read from the text as it is
            assert text.nearest(Folded(pattern), anchor) == expected
    assert found


def test_the_runs_leave_out_text_without_a_code() -> None:
    text = LabelText([Piece(t, None, i, False) for i, t in enumerate(TEXTS[0])])  # type: ignore[arg-type]
    assert text.runs == [(text.starts[1], text.starts[4] + len("AB-12"))]
    assert text.nearest(SKU_LABEL, 0) == ("AB-12", "SKU | : | # | AB-12")
