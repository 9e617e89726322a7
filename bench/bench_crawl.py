"""Crawl throughput and memory over the real pages: three anchor spiders a user would write
instead (run outside the project) and structcrawl's full pipeline, side by side in one run.

    python -m bench.bench_crawl [--pages 654] [--rounds 3] [--extruct-rounds 1] [--before SRC]

The corpus is the 109 real pages of ``../shared/corpus/pages`` repeated and varied to
``--pages`` (bench/realpages.py), served by a threaded static server on 127.0.0.1. The crawls:

- ``bare``: Scrapy alone, one tiny item per page, no parsing (bench/spiders/bare_spider.py);
- ``jsonld``: the minimal JSON-LD scraper, one XPath and ``json.loads`` (bench/spiders/jsonld_spider.py);
- ``extruct``: Scrapy + extruct, json-ld, microdata, opengraph, rdfa (bench/spiders/extruct_spider.py);
- ``pipeline``: ``scrapy crawl site -a sitemap=URL -a depth=1`` with every structcrawl pipeline,
  the records and entities feeds, the body, entity and change stores and the report.

The anchors run with ``scrapy runspider`` from an empty temporary folder with
``SCRAPY_SETTINGS_MODULE`` unset: Scrapy's defaults and its own download handler, nothing of the
project. Every crawl gets the same ``-s`` settings (16 concurrent requests, 8 per domain, no
throttle, no delay, no robots.txt, LOG_LEVEL=INFO). Pages/s is pages over Scrapy's
``elapsed_time_seconds``; peak RSS is the highest sum of RSS over the crawl's process tree
(browser and driver included), sampled every 0.1 s from /proc. Medians over rounds; the
machine is shared and noisy, so compare the figures of one run. ``--before DIR`` adds the
pipeline crawl of another checkout (``git archive main | tar -x -C DIR``: run from DIR, so its
``scrapy.cfg`` and ``structcrawl/`` are the ones imported) to each round, for
before/after figures side by side (``before_pps=`` then follows the final line). Ends with
one line:
``bare_pps= jsonld_pps= extruct_pps= pipeline_pps= ratio_jsonld= peak_rss_mb= pages=``.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench._proctree import TreeSampler

ROOT = Path(__file__).resolve().parents[1]
SPIDERS = Path(__file__).resolve().parent / "spiders"
_ELAPSED = re.compile(r"'elapsed_time_seconds': ([0-9.]+)")
_RESPONSES = re.compile(r"'response_received_count': (\d+)")
_ITEMS = re.compile(r"'item_scraped_count': (\d+)")
#: The same for every crawl compared (issue 12).
COMMON = [
    "-s",
    "CONCURRENT_REQUESTS=16",
    "-s",
    "CONCURRENT_REQUESTS_PER_DOMAIN=8",
    "-s",
    "AUTOTHROTTLE_ENABLED=False",
    "-s",
    "DOWNLOAD_DELAY=0",
    "-s",
    "ROBOTSTXT_OBEY=False",
    "-s",
    "LOG_LEVEL=INFO",
    "-s",
    "TELNETCONSOLE_ENABLED=False",
]
CRAWLS = ("bare", "jsonld", "extruct", "pipeline")


def _server(pages: int, tmp: Path) -> tuple[subprocess.Popen[bytes], str]:
    portfile = tmp / "port"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "bench.realpages_server",
            "--pages",
            str(pages),
            "--portfile",
            str(portfile),
        ],
        cwd=ROOT,
    )
    deadline = time.monotonic() + 60
    while not (portfile.exists() and portfile.read_text()):
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError("real-pages server did not start")
        time.sleep(0.1)
    return proc, f"http://127.0.0.1:{portfile.read_text()}/sitemap.xml"


def _run(cmd: list[str], cwd: Path, env: dict[str, str], log: Path) -> tuple[float, int, float]:
    """(pages/s, pages, peak RSS MB of the process tree) of one crawl."""
    with log.open("wb") as fh:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=fh, stderr=subprocess.STDOUT)
        with TreeSampler(proc.pid) as sampler:
            code = proc.wait()
    text = log.read_text(errors="replace")
    if code != 0:
        raise RuntimeError(f"{' '.join(cmd[:5])} exited {code}; see {log}")
    elapsed = float(_ELAPSED.findall(text)[-1])
    pages = int(_RESPONSES.findall(text)[-1]) - 1  # the sitemap is not a page
    items = _ITEMS.findall(text)
    if not items or int(items[-1]) < pages:  # a spider that fails on pages measures nothing
        raise RuntimeError(f"{' '.join(cmd[:5])}: {items} items for {pages} pages; see {log}")
    return pages / elapsed, pages, sampler.peak / 2**20


def _command(
    crawl: str, sitemap: str, out: Path, before: str | None = None
) -> tuple[list[str], Path, dict[str, str]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SCRAPY_", "STRUCTCRAWL_"))}
    root = ROOT
    if crawl == "before" and before:
        # run from the other checkout: `python -m` puts the working folder first on sys.path
        root = Path(before).resolve()
        env["PYTHONPATH"] = os.pathsep.join([str(root), env.get("PYTHONPATH", "")]).rstrip(
            os.pathsep
        )
        crawl = "pipeline"
    if crawl != "pipeline":  # outside the project: an empty folder, no settings module
        cwd = out / f"{crawl}-cwd"
        cwd.mkdir(exist_ok=True)
        cmd = [
            sys.executable,
            "-m",
            "scrapy",
            "runspider",
            str(SPIDERS / f"{crawl}_spider.py"),
            "-a",
            f"sitemap={sitemap}",
            "-O",
            str(out / f"{crawl}.jsonl"),
            *COMMON,
        ]
        return cmd, cwd, env
    cmd = [
        sys.executable,
        "-m",
        "scrapy",
        "crawl",
        "site",
        "-a",
        f"sitemap={sitemap}",
        "-a",
        "depth=1",
        "-O",
        f"{out / 'records.jsonl'}:records",
        "-O",
        f"{out / 'entities.jsonl'}:entities",
        "-s",
        f"STRUCTCRAWL_BODY_STORE={out / 'bodies'}",
        "-s",
        f"STRUCTCRAWL_ENTITY_STORE={out / 'entities.sqlite'}",
        "-s",
        f"STRUCTCRAWL_CHANGE_STORE={out / 'changes.sqlite'}",
        "-s",
        f"STRUCTCRAWL_REPORT_DIR={out / 'report'}",
        *COMMON,
    ]
    return cmd, root, env


def measure_round(
    crawls: list[str], sitemap: str, tmp: Path, r: int, before: str | None = None
) -> dict[str, tuple[float, int, float]]:
    results = {}
    for crawl in crawls:
        out = tmp / f"{crawl}-{r}"
        out.mkdir()
        cmd, cwd, env = _command(crawl, sitemap, out, before)
        results[crawl] = _run(cmd, cwd, env, tmp / f"{crawl}-{r}.log")
        pps, pages, rss = results[crawl]
        print(
            f"  round {r + 1} {crawl:8s} {pps:7.1f} pages/s  {rss:6.0f} MB peak  ({pages} pages)",
            flush=True,
        )
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=654, help="6 copies of the 109 real pages")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--extruct-rounds", type=int, default=1, help="extruct is slow")
    parser.add_argument("--keep", help="keep logs and outputs in this folder")
    parser.add_argument("--before", help="another checkout (a folder) to crawl with too")
    args = parser.parse_args(argv)
    names = (*CRAWLS, "before") if args.before else CRAWLS
    runs: dict[str, list[tuple[float, int, float]]] = {c: [] for c in names}
    with tempfile.TemporaryDirectory(prefix="bench-crawl-") as scratch:
        tmp = Path(args.keep or scratch)
        tmp.mkdir(parents=True, exist_ok=True)
        server, sitemap = _server(args.pages, tmp)
        try:
            for r in range(args.rounds):
                crawls = [c for c in names if c != "extruct" or r < args.extruct_rounds]
                for crawl, result in measure_round(crawls, sitemap, tmp, r, args.before).items():
                    runs[crawl].append(result)
        finally:
            os.kill(server.pid, signal.SIGTERM)
            server.wait()
    nan = float("nan")
    med = {c: statistics.median(p for p, _, _ in v) if v else nan for c, v in runs.items()}
    rss = {c: statistics.median(m for _, _, m in v) if v else nan for c, v in runs.items()}
    peak = max(m for _, _, m in runs["pipeline"])
    pages = runs["pipeline"][-1][1]
    print(f"\n{pages} pages, medians of {args.rounds} rounds (extruct: {args.extruct_rounds}):")
    print("| crawl | pages/s | peak RSS of the process tree (median) |\n|---|---|---|")
    for crawl in names:
        print(f"| {crawl} | {med[crawl]:.1f} | {rss[crawl]:.0f} MB |")
    extra = f" before_pps={med['before']:.1f}" if args.before else ""
    print(
        f"bare_pps={med['bare']:.1f} jsonld_pps={med['jsonld']:.1f} "
        f"extruct_pps={med['extruct']:.1f} pipeline_pps={med['pipeline']:.1f} "
        f"ratio_jsonld={med['pipeline'] / med['jsonld']:.2f} peak_rss_mb={peak:.0f} pages={pages}"
        + extra
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
