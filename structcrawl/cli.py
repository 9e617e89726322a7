"""``structcrawl``: command-line entry points (``structcrawl --help`` lists them).

    structcrawl crawl URL | --sitemap URL -o DIR     (structcrawl.commandline.crawl)
    structcrawl check URL|FILE [--format json]       (structcrawl.commandline.check)
    structcrawl demo | deploy | report ...


    structcrawl extract FILE-or-URL [--base-url URL] [--content-type TYPE]
                        [--format json|jsonl|nquads|jsonld] [--syntaxes json-ld,microdata,...]
                        [--view records|items]

prints the records of one page with the same code the crawl pipeline uses, and exits 0; or
exits 2 with a message on stderr when the input cannot be read. ``--format nquads`` / ``jsonld``
print the page's RDF dataset instead (:mod:`structcrawl.extract.graph`).

    structcrawl schedule FILE (--once | --loop) [--dry-run] [--state PATH] [--url URL]

submits the due jobs of a schedule file to scrapyd (:mod:`structcrawl.ops.schedule`).

    structcrawl ledger [LEDGER.jsonl] [--pages pages.jsonl]

checks that every requested URL of a crawl has exactly one outcome and that the pages feed
agrees (:mod:`structcrawl.ledger.pages`): exits 0, or 1 printing the mismatches, or 2 when a file
cannot be read.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from structcrawl import __version__
from structcrawl import typed as _typed
from structcrawl.commandline import check as _check
from structcrawl.commandline import crawl as _crawl
from structcrawl.commandline import report as _report
from structcrawl.commandline._input import InputError, read_input
from structcrawl.commandline._pipe import quiet_on_closed_pipe
from structcrawl.dev import demo as _demo
from structcrawl.extract import SYNTAXES, extract_payload, parse_syntaxes
from structcrawl.extract.graph import GRAPH_FORMATS, payload_graph, render_graph
from structcrawl.ledger import pages as _ledger
from structcrawl.ops import deploy as _deploy
from structcrawl.ops import schedule as _schedule

__all__ = ["InputError", "main", "read_input"]


def _extract(args: argparse.Namespace) -> int:
    try:
        syntaxes = parse_syntaxes(args.syntaxes)
        body, url, content_type = read_input(args.source)
    except (InputError, ValueError) as exc:
        print(f"structcrawl extract: {exc}", file=sys.stderr)
        return 2
    if args.format in GRAPH_FORMATS:
        graph = payload_graph(
            body, args.base_url or url, args.content_type or content_type, syntaxes=syntaxes
        )
        sys.stdout.write(render_graph(graph, args.format))
        for layer, element, message in graph.problems:
            print(f"structcrawl extract: {layer} {element}: {message}", file=sys.stderr)
        return 0
    if getattr(args, "view", "records") == "items":
        records = _typed.page_items(body, args.base_url or url, args.content_type or content_type)
    else:
        result = extract_payload(
            body, args.base_url or url, args.content_type or content_type, syntaxes=syntaxes
        )
        records = [r.to_dict() for r in result.records]
    out = sys.stdout
    if args.format == "jsonl":
        for rec in records:
            out.write(json.dumps(rec, ensure_ascii=False) + "\n")
    else:
        json.dump(records, out, ensure_ascii=False, indent=2)
        out.write("\n")
    return 0


def _add(sub: Any, name: str, module: Any, help: str) -> None:
    """A subcommand from a module with ``add_arguments(parser)`` and ``run(args)``."""
    parser = sub.add_parser(name, help=help, description=help)
    module.add_arguments(parser)
    parser.set_defaults(func=module.run)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="structcrawl",
        description="structured data from crawled pages, as validated records with provenance",
    )
    parser.add_argument("--version", action="version", version=f"structcrawl {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add(sub, "crawl", _crawl, "crawl a site (start URLs or a sitemap), every feed into -o DIR")
    _add(sub, "check", _check, "check one page (URL or file): its records, errors, warnings")
    ex = sub.add_parser("extract", help="print the records of one page (file or URL)")
    ex.add_argument("source", help="a file path or an http(s) URL")
    ex.add_argument("--base-url", help="the URL the page is to be read as (default: its own)")
    ex.add_argument("--content-type", help="override the Content-Type (default: guessed/served)")
    ex.add_argument(
        "--format",
        choices=("json", "jsonl", *GRAPH_FORMATS),
        default="json",
        help="records as a JSON list or JSON lines, or the page's RDF dataset "
        "(nquads, expanded jsonld)",
    )
    ex.add_argument("--syntaxes", help=f"comma-separated subset of: {', '.join(SYNTAXES)}")
    ex.add_argument(
        "--view",
        choices=("records", "items"),
        default="records",
        help="records (every layer's records) or items (the page's typed items, primary first)",
    )
    ex.set_defaults(func=_extract)
    sc = sub.add_parser("schedule", help="submit due scheduled crawls to scrapyd")
    _schedule.add_arguments(sc)
    sc.set_defaults(func=_schedule.run)
    lg = sub.add_parser("ledger", help="check a crawl's page ledger against its pages feed")
    _ledger.add_arguments(lg)
    lg.set_defaults(func=_ledger.run)
    _add(sub, "demo", _demo, "serve the bundled demo site on 127.0.0.1 and crawl it")
    _add(sub, "deploy", _deploy, "deploy the project to scrapyd (builds the egg)")
    _add(sub, "report", _report, "summarize a crawl's quality report (report.json)")
    args = parser.parse_args(argv)
    return quiet_on_closed_pipe(lambda: int(args.func(args)))


if __name__ == "__main__":
    sys.exit(main())
