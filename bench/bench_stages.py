"""Normalization and validation per page, in process, the way the crawl runs them.

For every real page of the shared corpus (:mod:`bench.realpages`) a page item is built the way
the ``site`` spider builds it (:func:`structcrawl.page_item` of an ``HtmlResponse``), then
extraction and the site rules / visible-facts stage run once, outside the timing. Each round
then gives every page a fresh copy of its records (and fresh, not yet read, visible facts) and
times :class:`~structcrawl.crawl.pipelines.normalization.NormalizationPipeline` and
:class:`~structcrawl.crawl.pipelines.validation.ValidationPipeline` (project defaults, a
crawler from ``get_crawler()``), page by page.

    python -m bench.bench_stages [--rounds 5] [--warm] [--dump records.json] [--fixtures DIR]

``--dump`` writes the records after normalization and validation, for the real pages and the
fixture pages (``fixtures/<source>/<case>/`` and the demo site), as JSON: the input of a
differential check between two versions (the same bytes, or a change of output).

Times are CPU time of the process (``time.process_time``: on a shared machine wall time
counts other processes' turns). Ends with one line: ``normalize_ms=N validate_ms=N pages=N``
(mean milliseconds per page of each stage, median of the rounds).
"""

from __future__ import annotations

import argparse
import copy
import importlib
import json
import statistics
import time
from pathlib import Path
from typing import Any

from scrapy.http import HtmlResponse, Request, TextResponse
from scrapy.utils.test import get_crawler

from bench.realpages import load_pages
from structcrawl.crawl.pageitem import page_item
from structcrawl.crawl.pipelines.extraction import ExtractionPipeline
from structcrawl.crawl.pipelines.normalization import NormalizationPipeline
from structcrawl.crawl.pipelines.selectors import SelectorPipeline
from structcrawl.crawl.pipelines.validation import ValidationPipeline
from structcrawl.visible.facts import LazyVisibleFacts

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
_FIXED_TIME = "2026-01-01T00:00:00.000Z"  # retrieved_at, so that dumps compare byte for byte


class Stages:
    """The four pipelines of one crawler, built from the project defaults."""

    def __init__(self) -> None:
        crawler = get_crawler(settings_dict={})
        self.extraction = ExtractionPipeline.from_crawler(crawler)
        self.selectors = SelectorPipeline.from_crawler(crawler)
        self.normalization = NormalizationPipeline.from_crawler(crawler)
        self.validation = ValidationPipeline.from_crawler(crawler)

    def prepare(self, url: str, body: bytes, content_type: str | None) -> Any:
        """The page item after extraction and site rules (what normalization receives)."""
        headers = {"Content-Type": content_type} if content_type else {}
        cls = HtmlResponse if content_type is None or "html" in content_type else TextResponse
        response = cls(url, body=body, headers=headers, request=Request(url))
        item = page_item(response)
        item.retrieved_at = _FIXED_TIME
        item = self.extraction.process_item(item)
        return self.selectors.process_item(item)


def _fresh(item: Any, records: list[Any]) -> None:
    item.records = copy.deepcopy(records)
    if item.document is not None and hasattr(item.document, "root"):
        item.visible = LazyVisibleFacts(item.document)  # nothing read yet, as in a crawl


#: Caches of pure functions keyed by values read from pages (URLs, hosts): emptied before each
#: round, so that a round sees each page's values for the first time, as a crawl of distinct
#: pages would (the corpus is timed several times over). Caches keyed by what a crawl has few
#: of (locales, time zones, currencies, schemas) stay warm, as they are after a crawl's first
#: pages.
VALUE_CACHES = (
    "urllib.parse:urlsplit",
    "structcrawl.core.hosts:normal_host",
    "structcrawl.normalize.urls:_normalize",  # its name before _normalize_text
    "structcrawl.normalize.urls:_normalize_text",
    "structcrawl.normalize.urls:_safe",
    "structcrawl.normalize.urls:canonical_url",
)


def clear_value_caches() -> None:
    """Empty :data:`VALUE_CACHES` (those the running version has: the list names the caches
    of the versions compared side by side)."""
    for name in VALUE_CACHES:
        module, _, attr = name.partition(":")
        function = getattr(importlib.import_module(module), attr, None)
        if hasattr(function, "cache_clear"):
            function.cache_clear()


def time_round(
    stages: Stages, items: list[tuple[Any, list[Any]]], warm: bool = False
) -> tuple[float, float]:
    """Total seconds of normalization and of validation over all pages, one round (value
    caches emptied first, unless ``warm``)."""
    if not warm:
        clear_value_caches()
    norm = valid = 0.0
    clock = time.process_time  # CPU time: on a shared machine wall time counts others' turns
    for item, records in items:
        _fresh(item, records)
        t0 = clock()
        stages.normalization.process_item(item)
        t1 = clock()
        stages.validation.process_item(item)
        t2 = clock()
        norm += t1 - t0
        valid += t2 - t1
    return norm, valid


def fixture_pages(root: Path) -> list[tuple[str, str, bytes, str | None]]:
    """``(name, url, body, content type)`` of every fixture page and demo-site page."""
    out = []
    for meta_path in sorted(root.glob("*/*/meta.json")):
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        pages = sorted(meta_path.parent.glob("page.*"))
        if len(pages) == 1:
            name = f"{meta_path.parent.parent.name}/{meta_path.parent.name}"
            out.append((name, meta["url"], pages[0].read_bytes(), meta.get("content_type")))
    site = root / "site"
    for page in sorted(site.rglob("*.html")):
        url = f"https://northwind.example/{page.relative_to(site)}"
        out.append((f"site/{page.relative_to(site)}", url, page.read_bytes(), "text/html"))
    return out


def dump(stages: Stages, real: list[tuple[str, bytes]], fixtures: Path, path: Path) -> int:
    """Write the records after normalization and validation of every page; return the count."""
    named = [(url, url, body, "text/html") for url, body in real]
    named += fixture_pages(fixtures)
    out: dict[str, Any] = {}
    for name, url, body, content_type in named:
        item = stages.prepare(url, body, content_type)
        item = stages.normalization.process_item(item)
        item = stages.validation.process_item(item)
        out[name] = item.records
    path.write_text(json.dumps(out, ensure_ascii=False, sort_keys=False, default=repr) + "\n")
    return len(named)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--dump", type=Path, default=None)
    parser.add_argument("--fixtures", type=Path, default=FIXTURES)
    parser.add_argument(
        "--warm",
        action="store_true",
        help="keep the value caches between rounds (each page's values seen before, as when "
        "a crawl revisits a site's values)",
    )
    args = parser.parse_args(argv)
    stages = Stages()
    real = load_pages()
    if args.dump is not None:
        count = dump(stages, real, args.fixtures, args.dump)
        print(f"dumped={count} path={args.dump}")
        return 0
    items = []
    for url, body in real:
        item = stages.prepare(url, body, "text/html")
        items.append((item, copy.deepcopy(item.records)))
    time_round(stages, items)  # warm-up: caches and lazy loads of the first page
    norm_r, valid_r = [], []
    for _ in range(args.rounds):
        norm, valid = time_round(stages, items, warm=args.warm)
        norm_r.append(norm * 1000 / len(items))
        valid_r.append(valid * 1000 / len(items))
    records = sum(len(r) for _, r in items)
    print(
        f"rounds: normalize {[round(x, 3) for x in norm_r]} validate {[round(x, 3) for x in valid_r]}"
    )
    print(f"records per page: {records / len(items):.1f}")
    print(
        f"normalize_ms={statistics.median(norm_r):.3f} "
        f"validate_ms={statistics.median(valid_r):.3f} pages={len(items)}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
