"""A static server of the real product pages (``../shared/corpus/products/pages/``, median
~440 KB): ``/p/<i>.html`` for the pages in id order, ``/sitemap.xml`` listing them; 127.0.0.1
only, stopped by SIGTERM (by PID).

    python -m bench.products_server --port 0 --portfile F
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bench import _pageserver

PAGES = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "products" / "pages"


def load(folder: Path = PAGES) -> list[bytes]:
    """The saved pages, in file-name order (as their servers sent them)."""
    return [p.read_bytes() for p in sorted(folder.glob("*.html"))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages-dir", type=Path, default=PAGES)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--portfile")
    args = parser.parse_args(argv)
    bodies = load(args.pages_dir)
    if not bodies:
        sys.exit(f"no pages in {args.pages_dir}")
    return _pageserver.serve(
        len(bodies), lambda i: ("text/html", bodies[i]), args.port, args.portfile
    )


if __name__ == "__main__":
    sys.exit(main())
