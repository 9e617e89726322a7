"""Where the full crawl's time goes: the pipeline crawl of ``make bench-crawl`` under py-spy
(a sampling profiler: it slows Python code by a few percent, where cProfile doubles it), its
main-thread samples split by stage.

    python -m bench.profile_crawl [--corpus small|large] [--crawl pipeline|cli] [--pages N]
        [--rate 200] [--keep DIR] [-s NAME=VALUE ...]

The same corpora, server and commands as bench/bench_crawl.py: ``--corpus large`` the 70 large
product pages (to 644 URLs), else the shared pages (to 654); ``--crawl pipeline`` is ``scrapy
crawl site -a sitemap=URL -a depth=1`` with the records and entities feeds, the body, entity
and change stores and the report, ``--crawl cli`` is ``structcrawl crawl --sitemap URL -o DIR
--depth 1`` (py-spy follows the crawl's children: that ``scrapy crawl`` child, whose parent
only waits, and the page worker). ``-s`` adds a
setting to the crawl (``-s STRUCTCRAWL_RENDER_AUDIT=False``, say, to see it without). The
article bodies (trafilatura) and the reading of the visible page (``structcrawl/visible/``)
are stages of their own, taken from the stages that call them (validation, the entity
merge's resolution, the typed items). Each sample of the crawl's main thread is given to the first stage, in the order of
:data:`STAGES`, one of whose functions is on its stack; start-up (imports, building the
components) is left out; of the other threads, the body store's compression (in a thread
pool, beside the main thread) is counted apart, as is the page worker process
(``structcrawl.workers.serve``, a child of the crawl: its work, of which the main texts).
Prints a table of milliseconds per page and shares, and ends with one line: ``pages=
elapsed_s= pps= <stage>_ms= ... compression_ms= page_worker_ms= main_text_worker_ms=``. Needs py-spy
(``pip install py-spy``, in the ``bench`` extra) and the right to trace a child process.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from bench.bench_crawl import _ELAPSED, _RESPONSES, _command, _server
from bench.realpages import large_corpus_dir

#: (stage, pattern of a function on the stack); the first that matches takes the sample.
STAGES: tuple[tuple[str, str], ...] = (
    ("startup", r"_find_and_load|from_crawler \(|build_from_crawler|_apply_settings"),
    ("parse", r"parse_html \("),
    ("render_judgement", r"judge_html \("),
    ("challenge", r"detect_challenge \("),
    ("extraction", r"extract_payload \(|ExtractionPipeline\.process_item"),
    ("site_rules", r"SelectorPipeline\.process_item"),
    ("normalization", r"NormalizationPipeline\.process_item"),
    # the main thread's part of the page worker: the page sent, the answer read and put on
    # the page (a page read whole: structcrawl.crawl.pageworkers.WholeReads)
    (
        "page_work",
        r"PageWorkPipeline\.process_item|WholeReads\.read|reading_document \("
        r"|adopt \(structcrawl/visible/wire",
    ),
    # an article's main text (trafilatura), where the resolution reads it in process
    ("article_body", r"main_text \(structcrawl/articles/"),
    # what the page shows a reader (structcrawl/visible/: facts, evidence, stock), for the
    # record checks and the resolution alike
    ("visible_page", r"\(structcrawl/visible/"),
    ("validation", r"ValidationPipeline\.process_item"),
    ("entity_merge", r"EntityPipeline\.process_item"),
    ("entity_emission", r"EntityPipeline\.emit \("),
    ("typed_items", r"TypedItemsPipeline\.process_item"),
    ("body_store", r"BodyStorePipeline\.process_item"),
    ("feeds", r"FeedExporter\.|Exporter\.export_item"),
    ("ledger_report", r"PageLedger\.|QualityReport\.|Progress\."),
    ("spider", r"SiteSpider\."),
    ("scrapy", r""),  # the engine, downloader, HTTP client, middlewares, signals
)
_COMPILED = tuple((name, re.compile(pattern)) for name, pattern in STAGES)


def split(folded: Path) -> tuple[Counter[str], int, tuple[int, int]]:
    """Samples per stage of the main thread, the samples of the body store's compression
    threads, and those of the page worker process (``structcrawl.workers.serve``, beside the
    crawl: at work, and reading main texts), from py-spy's raw (folded) output: one
    ``frame;frame;... count`` line per distinct stack."""
    stages: Counter[str] = Counter()
    threads = worker = texts = 0
    for line in folded.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        if "run_child (" in stack:  # the structcrawl crawl parent, waiting for its child
            continue
        if "structcrawl.workers.serve" in stack:  # the worker process (its command line)
            # at work: answering a request (a page read whole, or its visible page and main
            # text for the page work pipeline), not waiting for the next one
            worker += int(count) if "_answer (" in stack else 0
            texts += int(count) if "html_main_text (" in stack else 0
            continue
        if "Thread._bootstrap" in stack:  # a worker thread: waiting, or compressing a body
            threads += int(count) if "BodyStore.put" in stack else 0
            continue
        stage = next(name for name, pattern in _COMPILED if pattern.search(stack))
        stages[stage] += int(count)
    return stages, threads, (worker, texts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=("small", "large"), default="small")
    parser.add_argument("--crawl", choices=("pipeline", "cli"), default="pipeline")
    parser.add_argument("--pages", type=int, help="default: 654 small, 644 large")
    parser.add_argument("-s", dest="settings", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--rate", type=int, default=200, help="samples per second")
    parser.add_argument("--keep", help="keep the profile, logs and outputs in this folder")
    args = parser.parse_args(argv)
    pyspy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(pyspy).exists():
        print("py-spy is needed: pip install py-spy", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="profile-crawl-") as scratch:
        tmp = Path(args.keep or scratch)
        tmp.mkdir(parents=True, exist_ok=True)
        large = args.corpus == "large"
        pages = args.pages or (644 if large else 654)
        server, sitemap = _server(pages, tmp, large_corpus_dir() if large else None)
        try:
            out = tmp / args.crawl
            out.mkdir(exist_ok=True)
            cmd, cwd, env = _command(args.crawl, sitemap, out)
            for pair in args.settings:
                cmd += ["-s", pair]
            folded = tmp / "profile.txt"
            log = tmp / f"{args.crawl}.log"
            follow = ["--subprocesses"]  # the cli's scrapy crawl child, the page worker
            with log.open("wb") as fh:
                code = subprocess.call(
                    [pyspy, "record", "-r", str(args.rate), "-f", "raw", "-o", str(folded),
                     *follow, "--", *cmd],
                    cwd=cwd, env=env, stdout=fh, stderr=subprocess.STDOUT,
                )  # fmt: skip
        finally:
            os.kill(server.pid, signal.SIGTERM)
            server.wait()
        stats = out / "cli" / "crawl.log" if args.crawl == "cli" else log
        text = stats.read_text(errors="replace")
        if code != 0 or not _ELAPSED.findall(text):
            print(f"the profiled crawl failed ({code}); see {log}", file=sys.stderr)
            return 1
        elapsed = float(_ELAPSED.findall(text)[-1])
        pages = int(_RESPONSES.findall(text)[-1]) - 1
        stages, threads, (worker, texts) = split(folded)
    per_page = 1000 / args.rate / pages  # ms per page of one sample
    crawl = sum(v for k, v in stages.items() if k != "startup")
    print(f"{pages} pages in {elapsed:.2f} s ({pages / elapsed:.1f} pages/s under py-spy)")
    print("| stage | ms per page | share of the crawl |\n|---|---|---|")
    for name, _ in STAGES[1:]:
        print(f"| {name} | {stages[name] * per_page:.2f} | {100 * stages[name] / crawl:.0f}% |")
    print(f"| (beside it, in threads: body compression) | {threads * per_page:.2f} | |")
    print(f"| (beside it, in the page worker process) | {worker * per_page:.2f} | |")
    print(f"| (of which article main texts) | {texts * per_page:.2f} | |")
    fields = " ".join(f"{name}_ms={stages[name] * per_page:.2f}" for name, _ in STAGES[1:])
    print(
        f"pages={pages} elapsed_s={elapsed:.2f} pps={pages / elapsed:.1f} {fields} "
        f"compression_ms={threads * per_page:.2f} page_worker_ms={worker * per_page:.2f} "
        f"main_text_worker_ms={texts * per_page:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
