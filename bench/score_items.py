"""Score typed items against hand-labelled pages: per-field precision, recall and F1.

    python bench/score_items.py [FOLDER]   (default: fixtures/items)

Each case is ``FOLDER/<case>/page.html`` + ``items.json`` (``url``, ``content_type``,
``items``: the true items, ``primary_type``). The page's items come from
:func:`structcrawl.typed.page_items`, as ``structcrawl extract --view items`` prints them. The
first true item is compared with the first predicted item of a Product-like type (for a
product page), or with the predicted item of the same type; a listing compares items in order.
Per field: a prediction is a true positive when it equals the truth (prices as decimals),
a false positive when it is wrong or the truth has no value, a false negative when the truth
has a value and the prediction is missing or wrong. Ends with one line
``price_f1=... sku_f1=... availability_f1=...``.
"""

from __future__ import annotations

import json
import sys
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from structcrawl.typed import page_items

FIELDS = ("price", "currency", "availability", "sku", "gtin", "name", "brand")
ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "items"


def norm(field: str, value: Any) -> Any:
    if value is None:
        return None
    if field == "price":
        try:
            return Decimal(str(value)).normalize()
        except InvalidOperation:
            return str(value)
    if field == "gtin":
        if isinstance(value, list):
            return {str(g.get("value") if isinstance(g, dict) else g).zfill(14) for g in value}
        return {str(value).zfill(14)}
    if field == "brand" and isinstance(value, dict):
        value = value.get("name")
    return " ".join(str(value).split()).casefold()


def matches(field: str, got: Any, want: Any) -> bool:
    g, w = norm(field, got), norm(field, want)
    if field == "gtin" and isinstance(g, set) and isinstance(w, set):
        return bool(g & w)
    return g == w


def pairs(
    truth: list[dict[str, Any]], predicted: list[dict[str, Any]]
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    out = []
    used: set[int] = set()
    for want in truth:
        kind = want.get("type")
        family = "Product" if kind in ("Product", "ProductGroup") else kind
        for i, got in enumerate(predicted):
            if i in used:
                continue
            if got.get("type") == family or kind in (got.get("schemaTypes") or []):
                used.add(i)
                out.append((want, got))
                break
        else:
            out.append((want, {}))
    return out


def score(folder: Path) -> dict[str, dict[str, int]]:
    counts = {f: {"tp": 0, "fp": 0, "fn": 0} for f in FIELDS}
    for meta_path in sorted(folder.glob("*/items.json")):
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        body = (meta_path.parent / "page.html").read_bytes()
        predicted = page_items(body, meta["url"], meta.get("content_type"))
        for want, got in pairs(meta.get("items") or [], predicted):
            for field in FIELDS:
                w, g = want.get(field), got.get(field)
                if w is None and field not in want:
                    continue  # the truth does not speak about this field
                c = counts[field]
                if g is not None and w is not None and matches(field, g, w):
                    c["tp"] += 1
                    continue
                if g is not None:
                    c["fp"] += 1
                if w is not None:
                    c["fn"] += 1
    return counts


def f1(c: dict[str, int]) -> tuple[float, float, float]:
    p = c["tp"] / (c["tp"] + c["fp"]) if c["tp"] + c["fp"] else 0.0
    r = c["tp"] / (c["tp"] + c["fn"]) if c["tp"] + c["fn"] else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def main(argv: list[str]) -> int:
    folder = Path(argv[1]) if len(argv) > 1 else ROOT
    counts = score(folder)
    print(f"{'field':14} {'tp':>4} {'fp':>4} {'fn':>4} {'precision':>9} {'recall':>7} {'f1':>6}")
    for field, c in counts.items():
        p, r, f = f1(c)
        print(f"{field:14} {c['tp']:4} {c['fp']:4} {c['fn']:4} {p:9.3f} {r:7.3f} {f:6.3f}")
    print(
        " ".join(
            f"{name}_f1={f1(counts[name])[2]:.3f}" for name in ("price", "sku", "availability")
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
