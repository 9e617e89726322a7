"""The visible-page reading per page, in process: the entity merge's evidence and the checks'.

For the 70 large product pages (``shared/corpus/products/pages``) and the 109 shared pages
(:mod:`bench.realpages`), each page is parsed once, outside the timing; each round then
forgets what the last round read (``Document.memo``) and times, page by page:

* ``evidence``: :func:`structcrawl.visible.evidence.page_evidence` (the entity merge's reading);
* ``validate``: the visible facts' price search and the visible availability
  (``LazyVisibleFacts(doc)["prices"]``, :func:`structcrawl.visible.stock.visible_availability`),
  what the record checks read;
* ``both``: the two on one page, one after the other (what a page needing both costs);
* ``crawl``: the two in the crawl's order (the checks' reading in validation, then the
  evidence in the entity merge).

Those trees were all parsed before the timing, so each is read cold (out of the processor's
caches); a worker reads a page right after its parse. ``warm_<reader>`` times each page as a
page worker reads it (:func:`structcrawl.visible.wire.readings`, a product's readings and the
grid's): the page parsed, then each reader in turn, timed apart: the parse, the walk of the
visible tree, the stock reading, the facts, the old prices, the main heading, the evidence,
the grid (each after those before it, whose work it shares).

    python -m bench.bench_visible [--rounds 5] [--dump FILE] [--compare FILE]

``--dump`` writes every page's evidence, visible facts (all fields) and availability as JSON;
``--compare`` reads such a dump (of another version) and reports the pages that differ: the
identity check of a change meant to cost less and read the same.

Times are CPU time (``time.process_time``). Ends with one line: ``large_evidence_ms=N
large_validate_ms=N large_both_ms=N large_crawl_ms=N small_evidence_ms=N small_validate_ms=N
small_both_ms=N small_crawl_ms=N large_warm_parse_ms=N ... large_warm_grid_ms=N
small_warm_parse_ms=N ... pages=N differ=N`` (mean ms per page, median of the rounds;
``differ`` only with ``--compare``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.realpages import large_corpus_dir, load_pages
from structcrawl.core.collector import restore, tune
from structcrawl.core.document import Document, parse_html
from structcrawl.visible.evidence import page_evidence
from structcrawl.visible.facts import LazyVisibleFacts, read_facts, visible_facts
from structcrawl.visible.grid import grid_products
from structcrawl.visible.heading import heading_element
from structcrawl.visible.oldprices import old_prices
from structcrawl.visible.stock import visible_availability
from structcrawl.visible.walk import visible_walk


def _evidence(doc: Document) -> None:
    page_evidence(doc)


def _validate(doc: Document) -> None:
    LazyVisibleFacts(doc)["prices"]
    visible_availability(doc)


def _both(doc: Document) -> None:
    _evidence(doc)
    _validate(doc)


def _crawl(doc: Document) -> None:
    _validate(doc)
    _evidence(doc)


_STAGES: dict[str, Callable[[Document], None]] = {
    "evidence": _evidence,
    "validate": _validate,
    "both": _both,
    "crawl": _crawl,
}


def _time(docs: list[Document], stage: Callable[[Document], None]) -> float:
    """Mean CPU ms per page of one stage over the pages (each page's memo emptied first)."""
    total = 0.0
    for doc in docs:
        doc.memo.clear()
        start = time.process_time()
        stage(doc)
        total += time.process_time() - start
    return 1000 * total / len(docs)


def _grid(doc: Document) -> None:
    ev = page_evidence(doc)
    grid_products(doc, ev.cards, own_price=ev.price is not None)


#: a page worker's readers in its order (structcrawl.visible.wire.readings), the walk apart
_WARM: dict[str, Callable[[Document], Any]] = {
    "walk": visible_walk,
    "stock": visible_availability,
    "facts": read_facts,
    "old_prices": old_prices,
    "heading": heading_element,
    "evidence": page_evidence,
    "grid": _grid,
}


def _warm(pages: list[tuple[str, bytes]]) -> dict[str, float]:
    """Mean CPU ms per page of the parse and of each reader of :data:`_WARM`, each page read
    right after its own parse (see the module doc), the collector tuned as a worker's
    (:func:`structcrawl.core.collector.tune`: what exists frozen, the other pages' trees)."""
    totals = dict.fromkeys(["parse", *_WARM], 0.0)
    saved = tune()
    try:
        for url, body in pages:
            start = time.process_time()
            doc = parse_html(body, url)
            totals["parse"] += time.process_time() - start
            for name, reader in _WARM.items():
                start = time.process_time()
                reader(doc)
                totals[name] += time.process_time() - start
    finally:
        restore(saved)
    return {name: 1000 * total / len(pages) for name, total in totals.items()}


def _reading(doc: Document) -> dict[str, Any]:
    """The page's evidence, facts and availability: the availability read alone (a fresh
    memo) and after the evidence (``availability_shared``: from the evidence's walk)."""
    doc.memo.clear()
    alone = dataclasses.asdict(visible_availability(doc))
    doc.memo.clear()
    ev = page_evidence(doc)
    reading = {  # elements (the price's, the cards) are not compared: the paths name them
        "evidence": {f.name: getattr(ev, f.name) for f in dataclasses.fields(ev) if f.compare},
        "facts": dataclasses.asdict(visible_facts(doc)),
        "availability": alone,
        "availability_shared": dataclasses.asdict(visible_availability(doc)),
    }
    doc.memo.clear()
    return reading


def _differ(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The pages whose reading differs: every field of ``before`` (a dump without
    ``availability_shared`` has its availability compared with both of ``after``'s)."""
    out = []
    for name in sorted(set(before) | set(after)):
        old, new = before.get(name) or {}, after.get(name) or {}
        shared = old.get("availability_shared", old.get("availability"))
        if any(old.get(k) != new.get(k) for k in old) or new.get("availability_shared") != shared:
            out.append(name)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--dump", type=Path)
    parser.add_argument("--compare", type=Path)
    args = parser.parse_args()
    corpora = {"large": load_pages(large_corpus_dir()), "small": load_pages()}
    docs = {name: [parse_html(body, url) for url, body in pages] for name, pages in corpora.items()}
    readings = {
        f"{name}/{url}": _reading(doc)
        for name, pages in corpora.items()
        for (url, _), doc in zip(pages, docs[name], strict=True)
    }
    if args.dump:
        args.dump.write_text(json.dumps(readings, ensure_ascii=False, indent=1, sort_keys=True))
    differ = None
    if args.compare:
        before = json.loads(args.compare.read_text())
        differ = _differ(before, json.loads(json.dumps(readings)))
        for name in differ:
            print(f"differs: {name}")
    figures: dict[str, list[float]] = {}
    for _ in range(args.rounds):
        for corpus, pages in docs.items():  # the stages take turns, round by round
            for stage, run in _STAGES.items():
                figures.setdefault(f"{corpus}_{stage}_ms", []).append(_time(pages, run))
        for corpus, raw in corpora.items():
            for reader, ms in _warm(raw).items():
                figures.setdefault(f"{corpus}_warm_{reader}_ms", []).append(ms)
    line = " ".join(f"{k}={statistics.median(v):.2f}" for k, v in figures.items())
    line += f" pages={len(readings)}"
    if differ is not None:
        line += f" differ={len(differ)}"
    print(line)


if __name__ == "__main__":
    main()
