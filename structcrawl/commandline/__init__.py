"""The ``structcrawl`` command line, every subcommand wired here (``structcrawl --help``).

    structcrawl crawl URL | --sitemap URL -o DIR     (crawl: runs ``scrapy crawl site``)
    structcrawl check URL|FILE [--format json]       (check: one page, its errors and warnings)
    structcrawl extract FILE|URL [--view items]      (extract: the records of one page)
    structcrawl schedule FILE (--once | --loop)      (structcrawl.ops.schedule)
    structcrawl ledger [LEDGER.jsonl] [--pages F]    (structcrawl.ledger.check)
    structcrawl demo | deploy | report ...

Each subcommand is a module with ``add_arguments(parser)`` and ``run(args) -> exit code``.
The project's Scrapy commands (``scrapy crawl`` exiting non-zero when the crawl failed) are in
:mod:`structcrawl.commandline.scrapy_commands`. The modules are imported when the command runs,
so that Scrapy loading ``scrapy_commands`` does not import every command's dependencies.
"""

from __future__ import annotations

import argparse
import importlib
from typing import Any

from structcrawl import __version__

__all__ = ["COMMANDS", "main"]

#: name -> (module with add_arguments and run, help), in the order ``--help`` lists them
COMMANDS: dict[str, tuple[str, str]] = {
    "crawl": (
        "structcrawl.commandline.crawl",
        "crawl a site (start URLs or a sitemap), every feed into -o DIR",
    ),
    "check": (
        "structcrawl.commandline.check",
        "check one page (URL or file): its records, errors, warnings",
    ),
    "extract": ("structcrawl.commandline.extract", "print the records of one page (file or URL)"),
    "schedule": ("structcrawl.ops.schedule", "submit due scheduled crawls to scrapyd"),
    "ledger": ("structcrawl.ledger.check", "check a crawl's page ledger against its pages feed"),
    "demo": ("structcrawl.dev.demo", "serve the bundled demo site on 127.0.0.1 and crawl it"),
    "deploy": ("structcrawl.ops.deploy", "deploy the project to scrapyd (builds the egg)"),
    "report": (
        "structcrawl.commandline.report",
        "summarize a crawl's quality report (report.json)",
    ),
}


def parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The ``structcrawl`` parser; with ``argv``, only the subcommand it names is imported."""
    top = argparse.ArgumentParser(
        prog="structcrawl",
        description="structured data from crawled pages, as validated records with provenance",
    )
    top.add_argument("--version", action="version", version=f"structcrawl {__version__}")
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    wanted = next((a for a in argv or () if not a.startswith("-")), None)
    for name, (path, help) in COMMANDS.items():
        command = sub.add_parser(name, help=help, description=help)
        if wanted is None or wanted == name:
            module = importlib.import_module(path)
            module.add_arguments(command)
            command.set_defaults(func=module.run)
    return top


def main(argv: list[str] | None = None) -> int:
    import sys

    from structcrawl.commandline._pipe import quiet_on_closed_pipe

    argv = sys.argv[1:] if argv is None else argv
    args: Any = parser(argv).parse_args(argv)
    return quiet_on_closed_pipe(lambda: int(args.func(args)))
