"""The shared real pages (``../shared/corpus/pages`` beside the checkout, never copied into the
repository), and a generator that repeats them with per-copy variations to reach a crawl-sized
corpus.

A copy differs from the saved page by a comment naming the copy at the end of the body, so
every served body is distinct (the body store and the change store see distinct pages) while
the markup every parser meets is the publisher's own.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["corpus_dir", "large_corpus_dir", "load_pages", "varied_pages"]

ENV = "STRUCTCRAWL_BENCH_CORPUS"


def corpus_dir() -> Path:
    """``$STRUCTCRAWL_BENCH_CORPUS``, else the first ``shared/corpus/pages`` found beside the
    checkout or one of its parents (a git worktree may sit a level deeper)."""
    explicit = os.environ.get(ENV)
    if explicit:
        return Path(explicit)
    here = Path(__file__).resolve().parents[1]
    for parent in here.parents:
        candidate = parent / "shared" / "corpus" / "pages"
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(
        f"no shared/corpus/pages beside the checkout; set {ENV} to the folder of real pages"
    )


def large_corpus_dir() -> Path:
    """The large real pages: the 70 saved product pages of ``shared/corpus/products/pages``
    (median ~440 KB, up to 2 MB), beside :func:`corpus_dir`."""
    return corpus_dir().parent / "products" / "pages"


def load_pages(folder: Path | None = None) -> list[tuple[str, bytes]]:
    """Every saved page as ``(url, body)``; the URL is made from the file name."""
    folder = folder or corpus_dir()
    return [
        (f"https://{path.stem}/", path.read_bytes())
        for path in sorted(folder.iterdir())
        if path.suffix in (".html", ".htm")
    ]


def varied_pages(n: int, pages: list[tuple[str, bytes]]) -> list[bytes]:
    """``n`` bodies: the real pages in turn, copy ``k`` of a page marked by a trailing comment."""
    bodies = []
    for i in range(n):
        body = pages[i % len(pages)][1]
        bodies.append(body + f"\n<!-- bench copy {i // len(pages)} -->\n".encode())
    return bodies
