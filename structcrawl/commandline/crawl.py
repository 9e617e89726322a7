"""``structcrawl crawl``: crawl a site with the ``site`` spider, every feed into one folder.

    structcrawl crawl https://example.com/ -o out/
    structcrawl crawl --sitemap https://example.com/sitemap.xml -o out/ [--depth 2]
        [--follow '/products/'] [--deny '\\?sort='] [-s NAME=VALUE ...]

writes ``entities.jsonl`` (one line per deduplicated entity), ``items.jsonl`` (typed items),
``records.jsonl`` (one line per record), ``pages.jsonl`` (one line per page), ``report/`` (the
quality report and the page ledger), ``bodies/`` (raw bodies), ``state/`` (entity merge and
change state, kept for the next run into the same folder) and ``crawl.log``. Runs ``scrapy
crawl site`` with the project settings (``structcrawl.settings``) whatever the current
directory; exits with its status (non-zero when the crawl failed,
:mod:`structcrawl.crawl.health`).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from structcrawl.crawl.child import run_child

__all__ = ["FEEDS", "add_arguments", "crawl_command", "feed_formats", "run"]

#: file name -> feed format, written into the output folder (items only when registered)
FEEDS = {
    "entities.jsonl": "entities",
    "items.jsonl": "items",
    "records.jsonl": "records",
    "pages.jsonl": "pages",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("urls", nargs="*", metavar="URL", help="start URL(s) of the crawl")
    parser.add_argument(
        "--sitemap", action="append", default=[], metavar="URL",
        help="a sitemap (or robots.txt) to start from; may be repeated",
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


def feed_formats() -> dict[str, str]:
    """The feed formats a crawl of this project knows (the add-on's, which
    ``structcrawl/settings.py`` names for ``-o`` too)."""
    from structcrawl.crawl.addon import FEED_EXPORTERS

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
        if fmt in known:
            cmd += ["-O", f"{out / name}:{fmt}"]
    for name, value in (
        ("STRUCTCRAWL_REPORT_DIR", out / "report"),
        ("STRUCTCRAWL_BODY_STORE", out / "bodies"),
        ("STRUCTCRAWL_ENTITY_STORE", out / "state" / "entities.sqlite"),
        ("STRUCTCRAWL_CHANGE_STORE", out / "state" / "changes.sqlite"),
        ("LOG_FILE", out / "crawl.log"),
        ("LOG_LEVEL", args.log_level),
    ):
        cmd += ["-s", f"{name}={value}"]
    for pair in args.set:  # last: the user's settings win
        cmd += ["-s", pair]
    return cmd


def run(args: argparse.Namespace) -> int:
    if not args.urls and not args.sitemap:
        print("structcrawl crawl: give a start URL or --sitemap URL", file=sys.stderr)
        return 2
    args.output.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "SCRAPY_SETTINGS_MODULE": "structcrawl.settings"}
    print(f"crawling; log: {args.output / 'crawl.log'}", file=sys.stderr)
    code = run_child(crawl_command(args), env=env)  # ends with this process, however it ends
    for name in [*FEEDS, "report/report.html"]:
        path = args.output / name
        if path.exists():
            print(f"{name:<20} {path.resolve()}")
    if code != 0:
        print(f"structcrawl crawl: the crawl failed (exit {code}); see the log", file=sys.stderr)
    return code
