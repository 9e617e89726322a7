"""``structcrawl check URL|FILE``: what is wrong with this page? (the Rich Results Test on
the command line)

    structcrawl check https://example.com/product/1 [--format text|json] [--no-render]
    structcrawl check saved-page.html [--base-url URL] [--content-type TYPE]

Reads one page, extracts its structured data and runs it through the crawl's own page
pipelines (site rules, normalization, validation against the shipped JSON Schemas and the
schema.org vocabulary, the visible-page checks), builds its typed items (checked against the
item schemas), then prints each item and record with its errors and warnings (or everything as
JSON with ``--format json``).

A URL is fetched by a one-page crawl of the ``site`` spider, so it is rendered in the browser
when the page needs JavaScript, exactly as in a crawl (``--no-render``: plain HTTP only). A
FILE is read as it is (never rendered).

Exit status: 0 when every record and item is valid, or the page has none (said so); 1 when a
record or an item is invalid (a property the schemas require is missing, or a value is
wrong); 2 when the input cannot be read (no such file, the fetch failed, an HTTP error
status).
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import sys
from types import SimpleNamespace
from typing import Any

from structcrawl.commandline._feeds import crawl_feeds
from structcrawl.commandline._input import InputError, is_url, read_input
from structcrawl.validate.problems import annotate, problem_lines, record_lines

__all__ = [
    "PAGE_PIPELINES_SKIPPED",
    "add_arguments",
    "check_file",
    "check_url",
    "run",
]

#: Pipelines of the add-on a single page does not go through: bodies are not stored, and
#: entities are merged across pages at the end of a crawl; the check builds the page's typed
#: items itself (no feed, no change tracking) and reads its visible page and an article's main
#: text in process (a worker beside an event loop is for a crawl's many pages).
PAGE_PIPELINES_SKIPPED = frozenset(
    {
        "structcrawl.crawl.pipelines.BodyStorePipeline",
        "structcrawl.crawl.pipelines.pagework.PageWorkPipeline",
        "structcrawl.crawl.pipelines.EntityPipeline",
        "structcrawl.crawl.pipelines.typeditems.TypedItemsPipeline",
    }
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "source", nargs="?", help="an http(s) URL (fetched, rendered when needed) or a file"
    )
    parser.add_argument(
        "--sitemap",
        metavar="URL",
        help="check every page of a sitemap instead: problems by code and by URL template",
    )
    parser.add_argument(
        "--report", metavar="FILE.html", help="with --sitemap: also write the summary as HTML"
    )
    parser.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text for people (default) or one JSON object",
    )
    parser.add_argument(
        "--base-url", help="FILE only: the URL the page is to be read as (default: its file URI)"
    )
    parser.add_argument(
        "--content-type", help="FILE only: override the Content-Type (default: guessed)"
    )
    parser.add_argument(
        "--no-render", action="store_true", help="URL only: plain HTTP, never the browser"
    )
    parser.add_argument(
        "-s",
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a setting for the check (e.g. STRUCTCRAWL_DEFAULT_TIMEZONE=Europe/Berlin)",
    )


def _settings(overrides: list[str]) -> Any:
    from scrapy.settings import Settings

    from structcrawl.crawl.addon import Addon

    settings = Settings()  # what structcrawl/settings.py amounts to for one page: the add-on
    for pair in overrides:
        name, _, value = pair.partition("=")
        settings.set(name.strip(), value, priority="cmdline")
    Addon().update_settings(settings)
    return settings


def _page_pipelines(settings: Any) -> list[Any]:
    """The add-on's page pipelines, in order, built for one page (no engine, no crawl)."""
    from scrapy.statscollectors import MemoryStatsCollector
    from scrapy.utils.misc import build_from_crawler, load_object

    stand_in = SimpleNamespace(settings=settings, spider=None, signals=None)
    stand_in.stats = MemoryStatsCollector(stand_in)  # type: ignore[arg-type]
    order = settings.getdict("ITEM_PIPELINES")
    paths = sorted((p for p, n in order.items() if n is not None), key=lambda p: order[p])
    return [
        build_from_crawler(load_object(path), stand_in)  # type: ignore[call-overload]
        for path in paths
        if path not in PAGE_PIPELINES_SKIPPED
    ]


def check_file(
    source: str, base_url: str | None, content_type: str | None, overrides: list[str]
) -> dict[str, Any]:
    """The checked page of a FILE (or a URL fetched without Scrapy): fetch facts and records."""
    from scrapy.http import Response

    from structcrawl.crawl.pageitem import page_item

    body, url, guessed = read_input(source)
    headers = {"Content-Type": content_type or guessed or "text/html"}
    response = Response(base_url or url, body=body, headers=headers)
    item = page_item(response)
    settings = _settings(overrides)
    for pipeline in _page_pipelines(settings):
        result = pipeline.process_item(item)
        if inspect.isawaitable(result):
            result = asyncio.run(_awaited(result))
        item = result
    from structcrawl.crawl.exporters import page_typed_items

    return {
        "url": item.url,
        "status": None,
        "fetched_with": "file",
        "content_type": item.content_type,
        "payload_kind": item.payload_kind,
        "records": item.records,
        "items": page_typed_items(item, visible=settings.getbool("STRUCTCRAWL_VISIBLE_PAGE")),
    }


async def _awaited(value: Any) -> Any:
    return await value


def reachable(url: str, timeout: float = 5.0) -> None:
    """Raise :class:`InputError` (worded as ``extract`` words it) when nothing listens at the
    URL's host and port, before a crawl is started for it (whose retries take long to give
    up). Behind a proxy (``http_proxy`` / ``https_proxy``) the crawl decides."""
    import socket
    import urllib.request
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.scheme.lower() in urllib.request.getproxies():
        return
    try:
        port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
        socket.create_connection((parts.hostname or "", port), timeout=timeout).close()
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot fetch {url}: {exc}") from exc


def check_url(url: str, render: bool, overrides: list[str]) -> dict[str, Any]:
    """The checked page of a URL: a one-page crawl of the ``site`` spider (rendered when the
    page needs it), its page and records read back from the feeds."""
    reachable(url)
    spider_args = ["-a", f"start_url={url}", "-a", "depth=0"]  # one URL: commas are its own
    pages, records, items, stderr = crawl_feeds(spider_args, render, overrides)
    if not pages:
        raise InputError(f"cannot fetch {url}: {stderr.strip()[-500:] or 'no response'}")
    page = pages[0]
    error = page.get("fetch_error")
    status = page.get("status")
    if error or (status is not None and status >= 400):
        why = f"{error['code']}: {error['message']}" if error else f"HTTP {status}"
        raise InputError(f"cannot fetch {url}: {why}")
    return {
        "url": page.get("url"),
        "status": status,
        "fetched_with": page.get("fetched_with"),
        "fetch_reason": page.get("fetch_reason"),
        "content_type": page.get("content_type"),
        "payload_kind": page.get("payload_kind"),
        "records": records,
        "items": items,
    }


def check_items(items: list[dict[str, Any]]) -> None:
    """Validate each typed item against its shipped item schema (``structcrawl/typed/schemas``),
    in place: ``item["check"] = {"valid", "errors"}``, or ``{"skipped": why}`` for a type
    without a schema."""
    from structcrawl.typed.schema import check_item, item_schemas

    known = set(item_schemas())
    for item in items:
        if str(item.get("type")) not in known:
            item["check"] = {"skipped": f"no item schema for {item.get('type')!r}"}
            continue
        ok, errors = check_item({k: v for k, v in item.items() if k != "check"})
        item["check"] = {"valid": ok, "errors": errors}


def verdict(page: dict[str, Any]) -> dict[str, Any]:
    """Counts and the exit status of a checked page: 1 when a record or an item is invalid or
    any problem of severity ``error`` is named (JSON-LD that cannot be read, ...), else 0."""
    entities = [r for r in page["records"] if r.get("kind") == "entity"]
    invalid = [r for r in entities if (r.get("validation") or {}).get("valid") is False]
    missing = [
        r
        for r in invalid
        if any(e.get("code") == "missing-required" for e in r["validation"].get("errors", []))
    ]
    skipped = [r for r in entities if "skipped" in (r.get("validation") or {})]
    bad_items = [i for i in page["items"] if (i.get("check") or {}).get("valid") is False]
    errors = [p for p in page.get("problems") or [] if p.get("severity") == "error"]
    return {
        "records": len(entities),
        "valid": len(entities) - len(invalid) - len(skipped),
        "not_validated": len(skipped),
        "invalid": len(invalid),
        "missing_required": len(missing),
        "extraction_errors": sum(1 for r in page["records"] if r.get("kind") == "error"),
        "items": len(page["items"]),
        "invalid_items": len(bad_items),
        "errors": len(errors),
        # any error named fails the page: a record that cannot be read is as bad as an
        # invalid one
        "exit": 1 if invalid or bad_items or errors else 0,
    }


def _label(record: dict[str, Any]) -> str:
    types = "/".join(record.get("type") or []) or "(untyped)"
    props = record.get("properties") or {}
    name = props.get("name") or props.get("headline") or props.get("title")
    if isinstance(name, list):
        name = name[0] if name else None
    shown = f' "{str(name)[:60]}"' if isinstance(name, str | int | float) and name else ""
    return f"[{record.get('format')}] {types}{shown}"


def _item_lines(items: list[dict[str, Any]]) -> list[str]:
    """The typed items: what the page is about (primary first), each checked."""
    if not items:
        return []
    lines = [f"{len(items)} typed item(s):"]
    for item in items:
        check = item.get("check") or {}
        state = "skipped" if "skipped" in check else ("valid" if check.get("valid") else "INVALID")
        name = item.get("name") or item.get("headline") or ""
        shown = f' "{str(name)[:60]}"' if name else ""
        lines.append(f"  item {item.get('type')} ({item.get('role', '?')}){shown}: {state}")
        lines += [f"      error    {error}" for error in check.get("errors", [])]
    lines.append("records:")
    return lines


def render_text(page: dict[str, Any], summary: dict[str, Any]) -> str:
    """The report for people."""
    how = page.get("fetched_with") or "file"
    if page.get("fetch_reason"):
        how += f" ({page['fetch_reason']})"
    lines = [f"{page['url']}  [{page.get('content_type') or '?'}, {how}]"]
    if not summary["records"]:
        lines.append("no structured data records on this page")
    else:
        lines.append(
            f"{summary['records']} record(s): {summary['valid']} valid, "
            f"{summary['invalid']} invalid, {summary['not_validated']} not validated "
            "(no schema for their type)"
        )
    lines += _item_lines(page["items"])
    for record in page["records"]:
        if record.get("kind") == "entity":
            validation = record.get("validation") or {}
            state = (
                "skipped"
                if "skipped" in validation
                else ("valid" if validation.get("valid") else "INVALID")
            )
            lines.append(f"  {_label(record)}: {state}")
            for issue in validation.get("errors", []):
                lines.append(f"      error    {issue.get('path')}: {issue.get('message')}")
            for issue in validation.get("warnings", []):
                lines.append(f"      warning  {issue.get('path')}: {issue.get('message')}")
            for conflict in record.get("conflicts") or []:
                lines.append(
                    f"      visible  {conflict.get('code')}: {conflict.get('message', '')}"
                )
            lines += record_lines(record)
        elif record.get("kind") in ("error", "skip", "warning"):
            error = record.get("error") or {}
            lines.append(
                f"  [{record.get('format')}] {record['kind']} {error.get('code')}: "
                f"{error.get('message')}"
            )
    lines += problem_lines(page)
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    if bool(args.sitemap) == bool(args.source):
        print("structcrawl check: give one URL or FILE, or --sitemap URL", file=sys.stderr)
        return 2
    if args.sitemap:
        from structcrawl.commandline.sitecheck import run_sitemap

        return run_sitemap(
            args.sitemap,
            render=not args.no_render,
            overrides=args.set,
            fmt=args.format,
            report=args.report,
        )
    try:
        if is_url(args.source):
            page = check_url(args.source, not args.no_render, args.set)
        else:
            page = check_file(args.source, args.base_url, args.content_type, args.set)
    except (InputError, ValueError) as exc:
        print(f"structcrawl check: {exc}", file=sys.stderr)
        return 2
    check_items(page["items"])
    annotate(page)  # problems named with their fix, rich-result eligibility per record
    summary = verdict(page)
    if args.format == "json":
        json.dump({**page, "summary": summary}, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render_text(page, summary))
    return int(summary["exit"])
