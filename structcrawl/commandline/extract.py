"""``structcrawl extract FILE-or-URL``: the records of one page, with the same code the crawl
pipeline uses.

    structcrawl extract FILE-or-URL [--base-url URL] [--content-type TYPE]
                        [--format json|jsonl|nquads|jsonld] [--syntaxes json-ld,microdata,...]
                        [--view records|items]

prints the records of one page and exits 0; or exits 2 with a message on stderr when the
input cannot be read. ``--format nquads`` / ``jsonld`` print the page's RDF dataset instead
(:mod:`structcrawl.extract.graph`); ``--view items`` the page's typed items.
"""

from __future__ import annotations

import argparse
import json
import sys

from structcrawl import typed as _typed
from structcrawl.commandline._input import InputError, read_input
from structcrawl.extract import SYNTAXES, extract_payload, parse_syntaxes
from structcrawl.extract.graph import GRAPH_FORMATS, payload_graph, render_graph

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", help="a file path or an http(s) URL")
    parser.add_argument("--base-url", help="the URL the page is to be read as (default: its own)")
    parser.add_argument(
        "--content-type", help="override the Content-Type (default: guessed/served)"
    )
    parser.add_argument(
        "--format",
        choices=("json", "jsonl", *GRAPH_FORMATS),
        default="json",
        help="records as a JSON list or JSON lines, or the page's RDF dataset "
        "(nquads, expanded jsonld)",
    )
    parser.add_argument("--syntaxes", help=f"comma-separated subset of: {', '.join(SYNTAXES)}")
    parser.add_argument(
        "--view",
        choices=("records", "items"),
        default="records",
        help="records (every layer's records) or items (the page's typed items, primary first)",
    )


def run(args: argparse.Namespace) -> int:
    try:
        syntaxes = parse_syntaxes(args.syntaxes)
        body, url, content_type = read_input(args.source)
    except (InputError, ValueError) as exc:
        print(f"structcrawl extract: {exc}", file=sys.stderr)
        return 2
    base_url, content_type = args.base_url or url, args.content_type or content_type
    if args.format in GRAPH_FORMATS:
        graph = payload_graph(body, base_url, content_type, syntaxes=syntaxes)
        sys.stdout.write(render_graph(graph, args.format))
        for layer, element, message in graph.problems:
            print(f"structcrawl extract: {layer} {element}: {message}", file=sys.stderr)
        return 0
    if getattr(args, "view", "records") == "items":
        records = _typed.page_items(body, base_url, content_type)
    else:
        result = extract_payload(body, base_url, content_type, syntaxes=syntaxes)
        records = [r.to_dict() for r in result.records]
    out = sys.stdout
    if args.format == "jsonl":
        for rec in records:
            out.write(json.dumps(rec, ensure_ascii=False) + "\n")
    else:
        json.dump(records, out, ensure_ascii=False, indent=2)
        out.write("\n")
    return 0
