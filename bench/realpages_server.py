"""A small threaded static server of the real pages for the crawl benchmark: ``/p/<i>.html``
for ``i < pages`` (bench/realpages.py: the saved pages in turn, varied per copy) and
``/sitemap.xml`` listing them. Bodies are built once, so the crawler, not the server, is what
is measured. Listens on 127.0.0.1 only.

    python -m bench.realpages_server --pages 654 --port 0 --portfile F [--corpus DIR]

``--corpus DIR``: another folder of saved pages (the large product pages of
``../shared/corpus/products/pages``, say) instead of ``../shared/corpus/pages``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bench import _pageserver
from bench.realpages import load_pages, varied_pages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=654)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--portfile")
    parser.add_argument("--corpus", type=Path, help="a folder of saved pages")
    args = parser.parse_args(argv)
    bodies = varied_pages(args.pages, load_pages(args.corpus))

    def page(i: int) -> tuple[str, bytes]:
        # no charset: the pages declare their own (some are not UTF-8), as saved
        return "text/html", bodies[i]

    return _pageserver.serve(len(bodies), page, args.port, args.portfile)


if __name__ == "__main__":
    sys.exit(main())
