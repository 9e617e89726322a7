"""Extraction speed in process over the real pages: lxml's bare parse, extruct (all default
syntaxes) and structcrawl (all layers, records with provenance), side by side in one run.

    python -m bench.bench_extract [--rounds 5] [--extruct-rounds 1] [--generated N]

The pages are the 109 of ``../shared/corpus/pages`` (bench/realpages.py; ``--generated N``
uses N pages of the seeded generator of bench/corpus.py instead). Prints per-round figures and
the per-stage time split of structcrawl, and ends with one line (each round runs the
contenders page by page in turn; ``of_lxml`` is the median of the rounds' ratios):
``lxml_pps=N extruct_pps=N structcrawl_pps=N of_lxml=N ratio_extruct=N pages=N``
(``of_lxml`` = structcrawl pages/s divided by lxml's; higher is better). Medians over rounds;
the machine is shared and noisy, so compare the figures of one run.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from collections.abc import Callable

import lxml.html

from bench.corpus import generate_pages
from bench.realpages import load_pages
from structcrawl.core.document import parse_html
from structcrawl.extract import SYNTAXES, extract_payload

CONTENT_TYPE = "text/html"  # the pages declare their own charsets, as served


def _lxml(url: str, body: bytes) -> None:
    lxml.html.document_fromstring(body)


def _structcrawl(url: str, body: bytes) -> None:
    for rec in extract_payload(body, url, CONTENT_TYPE).records:
        rec.to_dict()


def _extruct(url: str, body: bytes) -> None:
    import extruct

    extruct.extract(body, base_url=url, errors="ignore")


def rates(
    fns: dict[str, Callable[[str, bytes], None]], pages: list[tuple[str, bytes]]
) -> dict[str, float]:
    """Pages/s of each function, run one after the other on each page in turn (so that a
    change of load on the shared machine falls on all of them alike)."""
    spent = dict.fromkeys(fns, 0.0)
    for url, body in pages:
        for name, fn in fns.items():
            start = time.perf_counter()
            fn(url, body)
            spent[name] += time.perf_counter() - start
    return {name: len(pages) / seconds for name, seconds in spent.items()}


def layer_split(pages: list[tuple[str, bytes]]) -> dict[str, float]:
    """Seconds per page spent in parsing and in each layer."""
    totals = dict.fromkeys(["parse", *SYNTAXES], 0.0)
    for url, body in pages:
        t0 = time.perf_counter()
        doc = parse_html(body, url, content_type=CONTENT_TYPE)
        totals["parse"] += time.perf_counter() - t0
        for name, fn in SYNTAXES.items():
            t0 = time.perf_counter()
            for rec in fn(doc):
                rec.to_dict()
            totals[name] += time.perf_counter() - t0
    return {k: v / len(pages) for k, v in totals.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--extruct-rounds", type=int, default=1, help="extruct is slow")
    parser.add_argument("--generated", type=int, default=0, help="N generated pages instead")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    pages = generate_pages(args.generated) if args.generated else load_pages()
    size = sum(len(b) for _, b in pages) / len(pages) / 1024
    kind = "generated" if args.generated else "real"
    print(f"corpus: {len(pages)} {kind} pages, mean {size:.0f} KB")
    results: dict[str, list[float]] = {"lxml": [], "structcrawl": [], "extruct": []}
    _structcrawl(*pages[0])  # warm imports
    if args.extruct_rounds:
        _extruct(*pages[0])
    for r in range(args.rounds):
        fns = {"lxml": _lxml, "structcrawl": _structcrawl}
        if r < args.extruct_rounds:
            fns["extruct"] = _extruct
        for name, value in rates(fns, pages).items():
            results[name].append(value)
        print(
            f"round {r + 1}: " + "  ".join(f"{k}={v[-1]:.1f} p/s" for k, v in results.items() if v),
            flush=True,
        )
    med = {k: statistics.median(v) if v else float("nan") for k, v in results.items()}
    # the ratio of each round (both measured page by page together), then their median
    of_lxml = statistics.median(
        s / x for s, x in zip(results["structcrawl"], results["lxml"], strict=True)
    )
    split = layer_split(pages)
    total = sum(split.values())
    print("structcrawl time per page by stage (ms, share):")
    for name, sec in sorted(split.items(), key=lambda kv: -kv[1]):
        print(f"  {name:14s} {sec * 1000:7.2f} ms  {100 * sec / total:5.1f}%")
    print(
        f"lxml_pps={med['lxml']:.1f} extruct_pps={med['extruct']:.1f} "
        f"structcrawl_pps={med['structcrawl']:.1f} "
        f"of_lxml={of_lxml:.2f} "
        f"ratio_extruct={med['structcrawl'] / med['extruct']:.1f} pages={len(pages)}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
