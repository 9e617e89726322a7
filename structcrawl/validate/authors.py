"""The author the markup names against the byline the page shows: ``author-vs-byline``.

For an article (``Article`` or a subtype: ``NewsArticle``, ``BlogPosting``, ...) whose markup
names its authors (``author`` as a name, a Person/Organization record with a ``name``, or a
list of them), the page's byline is read (:func:`structcrawl.articles.shown.shown_byline`: a
``rel="author"`` link, else an element whose class says author or byline, outside comment
threads). When the page shows a byline and none of the markup's names is in it (word for
word, :func:`structcrawl.visible.compare.agrees`), the record gets one conflict naming both.
No byline on the page, or authors given only as references: nothing is compared.

>>> from structcrawl.core.document import parse_html
>>> doc = parse_html(b'<p class="byline">By John Smith</p>', "https://n.example/a")
>>> record = {"kind": "entity", "type": ["NewsArticle"], "properties": {
...     "author": {"type": ["Person"], "properties": {"name": "Jane Roe"}}}}
>>> [(c["field"], c["code"], c["visible_value"]) for c in check_authors(record, doc)]
[('author', 'author-vs-byline', 'By John Smith')]
>>> record["properties"]["author"]["properties"]["name"] = "John Smith"
>>> check_authors(record, doc)
[]
"""

from __future__ import annotations

from typing import Any

from structcrawl.articles.shown import shown_byline
from structcrawl.core.document import Document
from structcrawl.validate.vocabulary import Vocabulary
from structcrawl.visible.compare import agrees

__all__ = ["check_authors", "markup_authors"]


def _name(value: Any) -> str | None:
    if isinstance(value, dict) and isinstance(value.get("properties"), dict):
        value = value["properties"].get("name")
        if isinstance(value, list):
            value = value[0] if value else None
    if isinstance(value, dict):
        value = value.get("@value")
    return value.strip() if isinstance(value, str) and value.strip() else None


def _is_article(record: dict[str, Any]) -> bool:
    vocab = Vocabulary.default()
    types = record.get("type")
    names = types if isinstance(types, list) else [types]
    return any(isinstance(t, str) and "Article" in vocab.ancestors(t) for t in names)


def markup_authors(record: dict[str, Any]) -> list[str]:
    """The author names a record states (references without a name are left out)."""
    props = record.get("properties")
    value = props.get("author") if isinstance(props, dict) else None
    items = value if isinstance(value, list) else [value]
    return [n for n in map(_name, items) if n is not None and not n.startswith(("http", "_:"))]


def check_authors(record: dict[str, Any], document: Document | None) -> list[dict[str, Any]]:
    """The ``author-vs-byline`` conflict of an article record, or ``[]``."""
    if document is None or not _is_article(record):
        return []
    names = markup_authors(record)
    if not names:
        return []
    byline = shown_byline(document)
    if not byline:
        return []
    shown = byline[0].value
    if any(agrees(name, shown) for name in names):
        return []
    said = ", ".join(names)
    return [
        {
            "field": "author",
            "record_value": names if len(names) > 1 else names[0],
            "visible_value": shown,
            "visible_source": "byline",
            "visible_element": byline[0].path,
            "code": "author-vs-byline",
            "message": f"author: the markup says {said!r}, the page's byline says {shown!r}",
        }
    ]
