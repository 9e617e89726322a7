"""Crawl throughput and memory over real pages: the anchor spiders a user would write instead
(run outside the project), structcrawl's ``scrapy crawl site`` pipeline and the ``structcrawl
crawl`` command, side by side in one run, on two corpora (three with the news pages).

    python -m bench.bench_crawl [--pages 654] [--large-pages 644] [--news-pages 644]
        [--rounds 3] [--extruct-rounds 1] [--corpora small,large[,news]] [--before SRC]
        [--markup-only] [--keep DIR]

The corpora (bench/realpages.py: the saved pages in turn, each copy made distinct by a
trailing comment), each served by a threaded static server on 127.0.0.1:

- ``small``: the 109 real pages of ``../shared/corpus/pages`` (mean 125 KB) to ``--pages``;
- ``large``: the 70 real product pages of ``../shared/corpus/products/pages`` (median ~440 KB,
  up to 2 MB) to ``--large-pages``;
- ``news`` (not run by default): the large articles among the shared pages, those of at least
  200 KB whose records say article (13 pages, mean ~440 KB: ``bench.realpages.news_corpus_dir``)
  to ``--news-pages``, where ``structcrawl crawl`` reads each article's main text.

The crawls:

- ``bare``: Scrapy alone, one tiny item per page, no parsing (bench/spiders/bare_spider.py);
- ``jsonld``: the minimal JSON-LD scraper, one XPath and ``json.loads`` (bench/spiders/jsonld_spider.py);
- ``extruct``: Scrapy + extruct, json-ld, microdata, opengraph, rdfa (bench/spiders/extruct_spider.py;
  small corpus only, it is slow);
- ``pipeline``: ``scrapy crawl site -a sitemap=URL -a depth=1`` with every structcrawl pipeline,
  the records and entities feeds, the body, entity and change stores and the report;
- ``cli``: ``structcrawl crawl --sitemap URL -o DIR --depth 1``, the command people run: every
  default feed (items included), the job state, the report, the bodies, its own process and
  the ``scrapy crawl`` child it runs.

The anchors run with ``scrapy runspider`` from an empty temporary folder with
``SCRAPY_SETTINGS_MODULE`` unset: Scrapy's defaults and its own download handler, nothing of the
project. Every crawl gets the same ``-s`` settings (16 concurrent requests, 8 per domain, no
throttle, no delay, no robots.txt, LOG_LEVEL=INFO, the asyncio reactor). Pages/s is pages over
Scrapy's ``elapsed_time_seconds``; peak RSS is the highest sum of RSS over the crawl's process
tree (the ``structcrawl crawl`` parent, browser and driver included), sampled every 0.1 s from
/proc, and peak PSS the highest sum of PSS (each shared page divided among the processes that
map it: what the tree really holds; RSS counts Chromium's shared pages once per process). Medians over rounds; the machine is shared and noisy, so compare the figures of one run.
``--before DIR`` adds the pipeline crawl of another checkout (``git archive main | tar -x -C
DIR``: run from DIR, so its ``scrapy.cfg`` and ``structcrawl/`` are the ones imported) to each
round, for before/after figures side by side, and its ``structcrawl crawl`` (``before_pps=
before_peak_rss_mb= before_cli_pps= before_cli_peak_rss_mb=`` then follow each corpus's part of
the final line, ``large_``-prefixed for the large pages). ``--markup-only`` adds the same two
crawls with ``-s STRUCTCRAWL_VISIBLE_PAGE=False`` (``markup``, ``markup_cli``: the visible page
not read) to each round (``markup_pps= markup_ratio_jsonld= markup_peak_rss_mb= markup_cli_pps=
markup_cli_ratio_jsonld= markup_cli_peak_rss_mb=``, prefixed likewise).
Ends with one line:
``bare_pps= jsonld_pps= extruct_pps= pipeline_pps= ratio_jsonld= peak_rss_mb= cli_pps=
cli_ratio_jsonld= cli_peak_rss_mb= pages= large_jsonld_pps= large_pps= large_ratio_jsonld=
large_peak_rss_mb= large_cli_pps= large_cli_ratio_jsonld= large_cli_peak_rss_mb= large_pages=``
(``large_`` without ``cli``: the pipeline crawl; peaks are the highest of the rounds; the
news pages' part the same with ``news_``), then
``peak_pss_mb= cli_peak_pss_mb=`` and ``large_peak_pss_mb= large_cli_peak_pss_mb=``, then
each crawl's CPU time a page, ``<crawl>_cpu_ms=`` (``large_<crawl>_cpu_ms=``): the user and
system time of the crawl's process tree (every process it waited for), start-up included, over
its pages, median of the rounds. The pages/s move with the machine's other load, the CPU time
a page far less: it is the work a page costs (a crawl whose work overlaps on two cores goes at
most twice as fast as that work done on one).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench._proctree import TreeSampler
from bench.realpages import large_corpus_dir, news_corpus_dir

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
    "-s",
    "TWISTED_REACTOR=twisted.internet.asyncioreactor.AsyncioSelectorReactor",
]
CRAWLS = ("bare", "jsonld", "extruct", "pipeline", "cli")
#: The crawls of the large pages (extruct takes minutes there and is no anchor of the issue).
LARGE_CRAWLS = ("bare", "jsonld", "pipeline", "cli")
#: the crawls run by ``structcrawl crawl`` (their stats in the output folder's crawl.log)
_CLI_CRAWLS = ("cli", "before_cli", "markup_cli")


def _server(
    pages: int, tmp: Path, corpus: Path | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    portfile = tmp / f"port-{corpus.name if corpus else 'small'}"
    portfile.unlink(missing_ok=True)  # a kept folder's old port is no server's
    extra = ["--corpus", str(corpus)] if corpus else []
    proc = subprocess.Popen(
        [sys.executable, "-m", "bench.realpages_server", "--pages", str(pages),
         "--portfile", str(portfile), *extra],
        cwd=ROOT,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while not (portfile.exists() and portfile.read_text()):
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError("real-pages server did not start")
        time.sleep(0.1)
    return proc, f"http://127.0.0.1:{portfile.read_text()}/sitemap.xml"


#: (pages/s, pages, peak RSS MB, peak PSS MB, CPU ms a page) of one crawl
Result = tuple[float, int, float, float, float]


def _run(
    cmd: list[str], cwd: Path, env: dict[str, str], log: Path, stats: Path | None = None
) -> Result:
    """(pages/s, pages, peak RSS MB, peak PSS MB of the process tree, CPU ms a page) of one
    crawl; Scrapy's stats are read from ``stats`` (the crawl's own log file) when given, else
    from its output. The CPU time is the user and system time of the crawl's process and of
    every process it waited for (its workers, the browser's driver and what that waited for),
    start-up included, over the pages crawled: the work a page costs, which the machine's other
    load moves far less than the pages/s."""
    spent = resource.getrusage(resource.RUSAGE_CHILDREN)
    with log.open("wb") as fh:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=fh, stderr=subprocess.STDOUT)
        with TreeSampler(proc.pid) as sampler:
            code = proc.wait()
    now = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = now.ru_utime - spent.ru_utime + now.ru_stime - spent.ru_stime
    text = (stats or log).read_text(errors="replace")
    if code != 0:
        raise RuntimeError(f"{' '.join(cmd[:5])} exited {code}; see {log}")
    elapsed = float(_ELAPSED.findall(text)[-1])
    pages = int(_RESPONSES.findall(text)[-1]) - 1  # the sitemap is not a page
    items = _ITEMS.findall(text)
    if not items or int(items[-1]) < pages:  # a spider that fails on pages measures nothing
        raise RuntimeError(f"{' '.join(cmd[:5])}: {items} items for {pages} pages; see {log}")
    return (
        pages / elapsed,
        pages,
        sampler.peak / 2**20,
        sampler.peak_pss / 2**20,
        cpu * 1000 / pages,
    )


def _command(
    crawl: str, sitemap: str, out: Path, before: str | None = None, extra: tuple[str, ...] = ()
) -> tuple[list[str], Path, dict[str, str]]:
    """The command line, folder and environment of one crawl; ``extra`` settings
    (``NAME=VALUE``) go to structcrawl's crawls only."""
    settings = [part for pair in extra for part in ("-s", pair)]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SCRAPY_", "STRUCTCRAWL_"))}
    root = ROOT
    if crawl in ("markup", "markup_cli"):  # structcrawl's crawls, the visible page not read
        settings = [*settings, "-s", "STRUCTCRAWL_VISIBLE_PAGE=False"]
        crawl = "cli" if crawl == "markup_cli" else "pipeline"
    if crawl in ("before", "before_cli") and before:
        # run from the other checkout: `python -m` puts the working folder first on sys.path
        root = Path(before).resolve()
        env["PYTHONPATH"] = os.pathsep.join([str(root), env.get("PYTHONPATH", "")]).rstrip(
            os.pathsep
        )
        crawl = "cli" if crawl == "before_cli" else "pipeline"
    if crawl == "cli":  # the command people run, its own process included
        cmd = [sys.executable, "-m", "structcrawl.commandline", "crawl", "--sitemap", sitemap,
               "-o", str(out / "cli"), "--depth", "1", *COMMON, *settings]  # fmt: skip
        return cmd, root, env
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
        *settings,
    ]
    return cmd, root, env


def measure_round(
    crawls: list[str],
    sitemap: str,
    tmp: Path,
    r: int,
    before: str | None = None,
    tag: str = "",
    extra: tuple[str, ...] = (),
) -> dict[str, Result]:
    results = {}
    for crawl in crawls:
        out = tmp / f"{tag}{crawl}-{r}"
        out.mkdir()
        cmd, cwd, env = _command(crawl, sitemap, out, before, extra)
        stats = out / "cli" / "crawl.log" if crawl in _CLI_CRAWLS else None
        results[crawl] = _run(cmd, cwd, env, tmp / f"{tag}{crawl}-{r}.log", stats)
        pps, pages, rss, pss, cpu = results[crawl]
        print(
            f"  round {r + 1} {tag}{crawl:8s} {pps:7.1f} pages/s  {rss:6.0f} MB peak RSS  "
            f"{pss:6.0f} MB peak PSS  {cpu:5.1f} CPU ms a page  ({pages} pages)",
            flush=True,
        )
    return results


Runs = dict[str, list[Result]]


def _figures(runs: Runs, prefix: str) -> tuple[dict[str, float], str]:
    """The medians of ``runs`` (one corpus) and their part of the final line."""
    nan = float("nan")
    med = {c: statistics.median(r[0] for r in v) if v else nan for c, v in runs.items()}
    peak = {c: max(r[2] for r in v) if v else nan for c, v in runs.items()}
    pss = {c: max(r[3] for r in v) if v else nan for c, v in runs.items()}
    cpu = {c: statistics.median(r[4] for r in v) if v else nan for c, v in runs.items()}
    pages = runs["pipeline"][-1][1] if runs.get("pipeline") else 0
    ratio = {c: med[c] / med["jsonld"] for c in ("pipeline", "cli")}
    if prefix:  # the large pages (or the news pages): large_pps is the pipeline crawl's
        p = prefix
        line = (
            f"{p}jsonld_pps={med['jsonld']:.1f} {p}pps={med['pipeline']:.1f} "
            f"{p}ratio_jsonld={ratio['pipeline']:.2f} "
            f"{p}peak_rss_mb={peak['pipeline']:.0f} {p}cli_pps={med['cli']:.1f} "
            f"{p}cli_ratio_jsonld={ratio['cli']:.2f} "
            f"{p}cli_peak_rss_mb={peak['cli']:.0f} {p}pages={pages}"
            f" {p}peak_pss_mb={pss['pipeline']:.0f} {p}cli_peak_pss_mb={pss['cli']:.0f}"
        )
    else:
        line = (
            f"bare_pps={med['bare']:.1f} jsonld_pps={med['jsonld']:.1f} "
            f"extruct_pps={med.get('extruct', nan):.1f} pipeline_pps={med['pipeline']:.1f} "
            f"ratio_jsonld={ratio['pipeline']:.2f} peak_rss_mb={peak['pipeline']:.0f} "
            f"cli_pps={med['cli']:.1f} cli_ratio_jsonld={ratio['cli']:.2f} "
            f"cli_peak_rss_mb={peak['cli']:.0f} pages={pages}"
            f" peak_pss_mb={pss['pipeline']:.0f} cli_peak_pss_mb={pss['cli']:.0f}"
        )
    # the work a page costs: the process tree's CPU time a page (medians of the rounds)
    line += "".join(f" {prefix}{c}_cpu_ms={cpu[c]:.1f}" for c in runs)
    if "markup" in runs:
        line += "".join(
            f" {prefix}{c}_pps={med[c]:.1f} {prefix}{c}_ratio_jsonld={med[c] / med['jsonld']:.2f}"
            f" {prefix}{c}_peak_rss_mb={peak[c]:.0f}"
            for c in ("markup", "markup_cli")
        )
    if "before" in runs:
        line += (
            f" {prefix}before_pps={med['before']:.1f}"
            f" {prefix}before_peak_rss_mb={peak['before']:.0f}"
            f" {prefix}before_cli_pps={med['before_cli']:.1f}"
            f" {prefix}before_cli_peak_rss_mb={peak['before_cli']:.0f}"
        )
    print(f"\n{prefix or 'small_'}pages: {pages}, medians of the rounds:")
    print(
        "| crawl | pages/s | vs jsonld | peak RSS of the process tree | peak PSS "
        "| CPU ms a page | vs jsonld |"
    )
    print("|---|---|---|---|---|---|---|")
    for crawl in runs:
        print(
            f"| {crawl} | {med[crawl]:.1f} | {med[crawl] / med['jsonld']:.2f} "
            f"| {peak[crawl]:.0f} MB | {pss[crawl]:.0f} MB "
            f"| {cpu[crawl]:.1f} | {cpu[crawl] / cpu['jsonld']:.1f}x |"
        )
    return med, line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=654, help="6 copies of the 109 real pages")
    parser.add_argument("--large-pages", type=int, default=644, help="the 70 large pages, ~9x")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--extruct-rounds", type=int, default=1, help="extruct is slow")
    parser.add_argument("--news-pages", type=int, default=644, help="the 13 large articles, ~50x")
    parser.add_argument(
        "--corpora", default="small,large", help="small, large, news (comma-separated)"
    )
    parser.add_argument("--keep", help="keep logs and outputs in this folder")
    parser.add_argument("--before", help="another checkout (a folder) to crawl with too")
    parser.add_argument(
        "--markup-only",
        action="store_true",
        help="also crawl with STRUCTCRAWL_VISIBLE_PAGE=False (markup, markup_cli)",
    )
    parser.add_argument(
        "-s", dest="settings", action="append", default=[], metavar="NAME=VALUE",
        help="a setting for structcrawl's crawls (pipeline, cli, before)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    extra = tuple(args.settings)
    corpora = [c.strip() for c in args.corpora.split(",") if c.strip()]
    plan = {
        "small": (args.pages, None, "", CRAWLS),
        "large": (args.large_pages, large_corpus_dir(), "large_", LARGE_CRAWLS),
    }
    runs: dict[str, Runs] = {}
    with tempfile.TemporaryDirectory(prefix="bench-crawl-") as scratch:
        tmp = Path(args.keep or scratch)
        tmp.mkdir(parents=True, exist_ok=True)
        if "news" in corpora:  # picked from the shared pages by their records (a few seconds)
            plan["news"] = (args.news_pages, news_corpus_dir(tmp), "news_", LARGE_CRAWLS)
        servers = {c: _server(plan[c][0], tmp, plan[c][1]) for c in corpora}
        try:
            for r in range(args.rounds):  # the corpora take turns: a change of load hits both
                for corpus in corpora:
                    _, _, tag, names = plan[corpus]
                    names = (*names, "markup", "markup_cli") if args.markup_only else names
                    names = (*names, "before", "before_cli") if args.before else names
                    crawls = [c for c in names if c != "extruct" or r < args.extruct_rounds]
                    done = measure_round(
                        crawls, servers[corpus][1], tmp, r, args.before, tag, extra
                    )
                    for crawl, result in done.items():
                        runs.setdefault(corpus, {}).setdefault(crawl, []).append(result)
        finally:
            for server, _ in servers.values():
                os.kill(server.pid, signal.SIGTERM)
                server.wait()
    line = " ".join(_figures(runs[c], plan[c][2])[1] for c in corpora)
    print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
