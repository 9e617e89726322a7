"""``structcrawl``: command-line entry points.

    structcrawl extract FILE-or-URL [--base-url URL] [--content-type TYPE]
                        [--format json|jsonl] [--syntaxes json-ld,microdata,...]
                        [--view records|items]

prints the records of one page with the same code the crawl pipeline uses, and exits 0; or
exits 2 with a message on stderr when the input cannot be read.

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
import mimetypes
import sys
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

from structcrawl import __version__
from structcrawl import typed as _typed
from structcrawl.extract import SYNTAXES, extract_payload, parse_syntaxes
from structcrawl.ledger import pages as _ledger
from structcrawl.ops import schedule as _schedule

__all__ = ["main", "read_input"]

_TIMEOUT = 30.0


class InputError(Exception):
    """The input could not be read."""


def read_input(source: str) -> tuple[bytes, str, str | None]:
    """``(body, url, content_type)`` for a local file or an http(s) URL."""
    scheme = urlsplit(source).scheme.lower()
    if scheme in ("http", "https"):
        request = urllib.request.Request(
            source, headers={"User-Agent": f"structcrawl/{__version__}"}
        )
        try:
            with urllib.request.urlopen(request, timeout=_TIMEOUT) as resp:  # noqa: S310
                return resp.read(), resp.geturl(), resp.headers.get("Content-Type")
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise InputError(f"cannot fetch {source}: {exc}") from exc
    if scheme and len(scheme) > 1 and scheme != "file":
        raise InputError(f"unsupported URL scheme {scheme!r} in {source}")
    path = Path(source[7:] if scheme == "file" else source)
    try:
        body = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from exc
    guessed, _ = mimetypes.guess_type(path.name)
    return body, path.resolve().as_uri(), guessed


def _extract(args: argparse.Namespace) -> int:
    try:
        syntaxes = parse_syntaxes(args.syntaxes)
        body, url, content_type = read_input(args.source)
    except (InputError, ValueError) as exc:
        print(f"structcrawl extract: {exc}", file=sys.stderr)
        return 2
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="structcrawl", description="structured data extraction")
    parser.add_argument("--version", action="version", version=f"structcrawl {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("extract", help="print the records of one page (file or URL)")
    ex.add_argument("source", help="a file path or an http(s) URL")
    ex.add_argument("--base-url", help="the URL the page is to be read as (default: its own)")
    ex.add_argument("--content-type", help="override the Content-Type (default: guessed/served)")
    ex.add_argument("--format", choices=("json", "jsonl"), default="json")
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
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
