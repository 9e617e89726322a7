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

__all__ = [
    "NEWS_MIN_BYTES",
    "corpus_dir",
    "large_corpus_dir",
    "load_pages",
    "news_corpus_dir",
    "varied_pages",
]

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


#: the least size of a shared page taken as a large article (``news_corpus_dir``)
NEWS_MIN_BYTES = 200_000


def news_corpus_dir(folder: Path) -> Path:
    """The large articles among the shared pages, linked into ``folder / "news-pages"``: each
    page of :func:`corpus_dir` of at least :data:`NEWS_MIN_BYTES` whose records say it is an
    article (:func:`structcrawl.articles.complete.may_read_main_text`, what makes the crawl
    read its main text: an article type, ``og:type`` article, an author or date in its meta
    tags without a product). The large product pages have none; the held-out pages the issue
    quotes are products and news pages of ~350 KB."""
    from scrapy.utils.project import get_project_settings

    from structcrawl.articles.complete import may_read_main_text
    from structcrawl.core.document import parse_html
    from structcrawl.extract.config import ExtractConfig
    from structcrawl.extract.pagerecords import page_extraction

    config = ExtractConfig.from_settings(get_project_settings())
    out = folder / "news-pages"
    out.mkdir(parents=True, exist_ok=True)
    for path in sorted(corpus_dir().iterdir()):
        if path.suffix not in (".html", ".htm") or path.stat().st_size < NEWS_MIN_BYTES:
            continue
        body, url = path.read_bytes(), f"https://{path.stem}/"
        document = parse_html(body, url)
        _, records = page_extraction(body, url, None, config, document=document)
        if may_read_main_text([r.to_dict() for r in records], document):
            link = out / path.name
            if not link.exists():
                link.symlink_to(path)
    return out


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
