"""``structcrawl crawl``: crawl a site with the ``site`` spider, every feed into one folder.

    structcrawl crawl https://example.com/ -o out/
    structcrawl crawl --sitemap https://example.com/sitemap.xml -o out/ [--depth 2]
        [--follow '/products/'] [--deny '\\?sort='] [-s NAME=VALUE ...]
    structcrawl crawl ... -o out/ --resume      # continue an interrupted crawl in out/
    structcrawl crawl ... -o out/ --overwrite   # start again in out/ (change state kept)

writes ``entities.jsonl`` (one line per deduplicated entity), ``items.jsonl`` (typed items),
``records.jsonl`` (one line per record), ``pages.jsonl`` (one line per page), ``report/`` (the
quality report and the page ledger), ``bodies/`` (raw bodies), ``state/`` (the job state in
``state/job/``, Scrapy's ``JOBDIR``, with the entity merge state; ``state/changes.sqlite``,
the change state kept for the next crawl into the folder) and ``crawl.log``. Runs ``scrapy
crawl site`` with the project settings (``structcrawl.settings``) whatever the current
directory, shows its progress on stderr and a summary at the end; exits with its status
(non-zero when the crawl failed, :mod:`structcrawl.crawl.health`).

Ctrl-C stops the crawl gracefully (a second one forces it): the feeds, the report and the
page ledger are written, and the command exits 130 saying how to resume. ``--resume`` runs
the same crawl on from its job state, appending to the feeds: no page is fetched twice and
none is lost, and the ledgers of the runs (``report/ledger.run-N.jsonl``, then
``report/ledger.jsonl``) account for every URL once. A folder that holds a crawl is never
overwritten without ``--overwrite``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path
from urllib.parse import urlsplit

from structcrawl.crawl.child import ProgressTail, run_child

__all__ = ["FEEDS", "add_arguments", "crawl_command", "feed_formats", "run", "start_problem"]

#: file name -> feed format, written into the output folder (items only when registered)
FEEDS = {
    "entities.jsonl": "entities",
    "items.jsonl": "items",
    "records.jsonl": "records",
    "pages.jsonl": "pages",
}
#: Exit status of a crawl stopped with Ctrl-C (128 + SIGINT, as shells report it).
INTERRUPTED = 130
#: What a new crawl into a folder replaces (``state/changes.sqlite`` stays: change detection).
_RUN_FILES = (*FEEDS, "report", "bodies", "crawl.log", "state/job")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("urls", nargs="*", metavar="URL", help="start URL(s) of the crawl")
    parser.add_argument(
        "--sitemap", action="append", default=[], metavar="URL",
        help="a sitemap (or robots.txt) to start from; may be repeated; its pages' links are "
        "followed too unless --depth 0",
    )  # fmt: skip
    parser.add_argument(
        "-o", "--output", required=True, type=Path, metavar="DIR",
        help="folder for the feeds, the report, bodies, state and the log",
    )  # fmt: skip
    parser.add_argument(
        "--depth", type=int, help="link depth limit (0 = the start URLs only; default: none)"
    )
    parser.add_argument("--follow", help="comma-separated regexes: follow only matching links")
    parser.add_argument("--deny", help="comma-separated regexes: never follow matching links")
    parser.add_argument(
        "--allowed-domains", help="comma-separated domains (default: the start URLs' hosts)"
    )
    parser.add_argument(
        "-s", "--set", action="append", default=[], metavar="NAME=VALUE",
        help="a Scrapy or structcrawl setting, e.g. -s USER_AGENT='mybot (+https://…)'",
    )  # fmt: skip
    parser.add_argument("--log-level", default="INFO", help="crawl.log level (default INFO)")
    again = parser.add_mutually_exclusive_group()
    again.add_argument(
        "--resume", action="store_true",
        help="continue the interrupted crawl in DIR (same arguments), appending to its feeds",
    )  # fmt: skip
    again.add_argument(
        "--overwrite", action="store_true",
        help="start a new crawl in DIR, replacing its feeds, report, bodies and job state",
    )  # fmt: skip


def feed_formats() -> dict[str, str]:
    """The feed formats a crawl of this project knows (the add-on's, which
    ``structcrawl/settings.py`` names for ``-o`` too). Read from a module without Scrapy:
    this process only runs ``scrapy crawl`` as a child and never imports Scrapy."""
    from structcrawl.crawl.feedformats import FEED_EXPORTERS

    return dict(FEED_EXPORTERS)


def crawl_command(args: argparse.Namespace) -> list[str]:
    """The ``scrapy crawl site`` command line for ``args``."""
    out: Path = args.output
    cmd = [sys.executable, "-m", "scrapy", "crawl", "site"]
    spider_args = {
        "start_urls": ",".join(args.urls),
        "sitemap": ",".join(args.sitemap),
        "depth": "" if args.depth is None else str(args.depth),
        "follow": args.follow or "",
        "deny": args.deny or "",
        "allowed_domains": args.allowed_domains or "",
    }
    for name, value in spider_args.items():
        if value:
            cmd += ["-a", f"{name}={value}"]
    known = feed_formats()
    for name, fmt in FEEDS.items():
        if fmt in known:  # -o appends: the runs of a resumed job write one set of feeds
            cmd += ["-o", f"{out / name}:{fmt}"]
    for name, value in (
        ("JOBDIR", out / "state" / "job"),  # the job state --resume continues from
        ("STRUCTCRAWL_REPORT_DIR", out / "report"),
        ("STRUCTCRAWL_BODY_STORE", out / "bodies"),
        ("STRUCTCRAWL_CHANGE_STORE", out / "state" / "changes.sqlite"),
        ("LOG_FILE", out / "crawl.log"),
        ("LOG_LEVEL", args.log_level),
    ):
        cmd += ["-s", f"{name}={value}"]
    if not any(pair.startswith("STRUCTCRAWL_PROGRESS_INTERVAL=") for pair in args.set):
        interval = 2 if sys.stderr.isatty() else 30  # the live line moves; plain lines don't flood
        cmd += ["-s", f"STRUCTCRAWL_PROGRESS_INTERVAL={interval}"]
    for pair in args.set:  # last: the user's settings win
        cmd += ["-s", pair]
    return cmd


def resume_command(args: argparse.Namespace) -> str:
    """The command that resumes this crawl (what ``interrupted; resume with …`` prints)."""
    import shlex

    words = ["structcrawl", "crawl", *args.urls]
    for url in args.sitemap:
        words += ["--sitemap", url]
    words += ["-o", str(args.output)]
    for flag, value in (
        ("--depth", args.depth),
        ("--follow", args.follow),
        ("--deny", args.deny),
        ("--allowed-domains", args.allowed_domains),
    ):
        if value is not None:
            words += [flag, str(value)]
    for pair in args.set:
        words += ["-s", pair]
    if args.log_level != "INFO":
        words += ["--log-level", args.log_level]
    return shlex.join([*words, "--resume"])


def start_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the arguments, in one line (``None``: nothing)."""
    if not args.urls and not args.sitemap:
        return "give a start URL or --sitemap URL"
    for url in [*args.urls, *args.sitemap]:
        parts = urlsplit(url)
        if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
            return f"not an http(s) URL: {url!r}"
    if args.depth is not None and args.depth < 0:
        return f"--depth must be 0 or more, not {args.depth}"
    for pair in args.set:
        name, equals, value = pair.partition("=")
        if not equals or not name.strip():
            return f"-s takes NAME=VALUE, not {pair!r}"
        if name.strip() == "STRUCTCRAWL_QUALITY_THRESHOLDS":
            problem = _thresholds_problem(value)
            if problem:
                return problem
    return None


def _thresholds_problem(value: str) -> str | None:
    from structcrawl.report.aggregate import QualityAggregator, check_thresholds

    try:
        thresholds = json.loads(value) if value.strip() else {}
        if not isinstance(thresholds, dict):
            raise ValueError("not a JSON object")
        limits = {str(k): float(v) for k, v in thresholds.items()}
        check_thresholds(QualityAggregator().report({}), limits)
    except (ValueError, TypeError) as exc:
        return f"STRUCTCRAWL_QUALITY_THRESHOLDS: {exc}"
    return None


def folder_problem(args: argparse.Namespace) -> str | None:
    """Why the crawl cannot go into its output folder as asked (``None``: it can)."""
    out: Path = args.output
    if out.exists() and not out.is_dir():
        return f"{out} is not a folder"
    job = out / "state" / "job"
    if args.resume:
        if not job.is_dir():
            return f"nothing to resume in {out} (no job state in {job})"
        if _finished(out):
            return f"the crawl in {out} finished: nothing to resume (--overwrite to crawl again)"
        return None
    held = [name for name in _RUN_FILES if (out / name).exists()]
    if held and not args.overwrite:
        return (
            f"{out} holds a crawl ({', '.join(held[:3])}): --resume to continue it, "
            "--overwrite to start again, or another -o DIR"
        )
    return None


def _finished(out: Path) -> bool:
    try:
        report = json.loads((out / "report" / "report.json").read_text(encoding="utf-8"))
        state = json.loads(
            (out / "state" / "job" / "structcrawl-ledger.json").read_text(encoding="utf-8")
        )
    except (OSError, ValueError):
        return False
    return report.get("finish_reason") == "finished" and not state.get("pending")


def _prepare(args: argparse.Namespace) -> None:
    out: Path = args.output
    if args.overwrite:
        for name in _RUN_FILES:
            path = out / name
            if path.is_dir():
                shutil.rmtree(path)
            elif path.exists():
                path.unlink()
    if args.resume:  # the ledger of each run is kept: together they account for the job
        ledger = out / "report" / "ledger.jsonl"
        if ledger.exists():
            runs = len(list(ledger.parent.glob("ledger.run-*.jsonl")))
            ledger.rename(ledger.with_name(f"ledger.run-{runs + 1}.jsonl"))
    out.mkdir(parents=True, exist_ok=True)


def _told(name: str, count: int) -> None:
    if count == 1:
        stderr_notice(
            f"{name}: stopping gracefully, finishing the pages in flight and writing the "
            "feeds, the report and the page ledger (Ctrl-C again to force)"
        )
    elif count == 2:
        stderr_notice(f"{name}: forcing the stop")


def run(args: argparse.Namespace) -> int:
    problem = start_problem(args) or folder_problem(args)
    if problem:
        print(f"structcrawl crawl: {problem}", file=sys.stderr)
        return 2
    _prepare(args)
    env = {**os.environ, "SCRAPY_SETTINGS_MODULE": "structcrawl.settings"}
    log = args.output / "crawl.log"
    how = "resuming" if args.resume else "crawling"
    print(f"{how}; log: {log} (Ctrl-C stops it, resumable)", file=sys.stderr)
    child = run_child(crawl_command(args), env, ProgressTail(log, sys.stderr), _told)
    # read after the crawl: the summary reads the report and the ledger, whose modules (the
    # typed items, the report's aggregation) this process would otherwise hold in memory
    # beside the crawl for its whole length (~30 MB of the process tree's peak; issue 24)
    from structcrawl.commandline._summary import summary

    for line in summary(args.output):
        print(line, file=sys.stderr)
    for name in [*FEEDS, "report/report.html"]:
        path = args.output / name
        if path.exists():
            print(f"{name:<20} {path.resolve()}")
    if child.interrupted:
        stderr_notice(f"structcrawl crawl: interrupted; resume with: {resume_command(args)}")
        return INTERRUPTED
    if child.code != 0:
        stderr_notice(f"structcrawl crawl: the crawl failed (exit {child.code}); log: {log}")
    return child.code


def stderr_notice(text: str) -> None:
    """One line on stderr, on a line of its own even after a live progress line."""
    prefix = "\n" if getattr(sys.stderr, "isatty", lambda: False)() else ""
    sys.stderr.write(f"{prefix}{text}\n")
    sys.stderr.flush()
