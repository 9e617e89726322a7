"""A local HTTP server for the crawl benchmark: ``/p/<i>.html`` for ``i < pages``, built from
a pool of seeded corpus pages (bench/corpus.py) with per-page ids and links to the next pages,
plus ``/sitemap.xml``. Cheap to serve, so the crawler, not the server, is what is measured.

    python -m bench.corpus_server --pages 2000 --port 0 --portfile F
"""

from __future__ import annotations

import argparse
import sys
from http.server import BaseHTTPRequestHandler

from bench import _pageserver
from bench._pageserver import PageFunction
from bench.corpus import generate_pages

POOL = 100


def build_pool(seed: int = 20261129) -> list[bytes]:
    """Page templates: ``{ID}`` marks where the page number goes, ``{LINKS}`` the links."""
    pool = []
    for url, body in generate_pages(POOL, seed=seed):
        index = url.rsplit("/", 1)[1]
        text = (
            body.decode("utf-8")
            .replace(f"/p/{index}", "/p/{ID}")
            .replace("</body>", "{LINKS}</body>")
        )
        pool.append(text.encode("utf-8"))
    return pool


def page_function(pages: int, pool: list[bytes]) -> PageFunction:
    """Page ``i``: a pool page with its number and links to the next three pages."""

    def page(i: int) -> tuple[str, bytes]:
        links = "".join(
            f'<a href="/p/{j}.html">next {j}</a>' for j in range(i + 1, min(i + 4, pages))
        )
        body = (
            pool[i % len(pool)]
            .replace(b"{ID}", str(i).encode())
            .replace(b"{LINKS}", links.encode())
        )
        return "text/html; charset=utf-8", body

    return page


def make_handler(pages: int, pool: list[bytes]) -> type[BaseHTTPRequestHandler]:
    return _pageserver.make_handler(pages, page_function(pages, pool))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--portfile")
    args = parser.parse_args(argv)
    page = page_function(args.pages, build_pool())
    return _pageserver.serve(args.pages, page, args.port, args.portfile)


if __name__ == "__main__":
    sys.exit(main())
