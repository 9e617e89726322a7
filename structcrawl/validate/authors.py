"""The author the markup names against the byline the page shows: ``author-vs-byline``.

For an article (``Article`` or a subtype: ``NewsArticle``, ``BlogPosting``, ...) whose markup
names its authors (``author`` as a name, a Person/Organization record with a ``name``, or a
list of them), the page's byline is read (:func:`structcrawl.articles.shown.shown_byline`: a
``rel="author"`` link, else an element whose class says author or byline, outside comment
threads; without one, the first short visible text that reads "By <name>"). When the page
shows a byline naming a person (a name of two words or more) and
none of the markup's names is in it (word for word, :func:`structcrawl.visible.compare.agrees`),
the record gets one conflict naming both. Only the page's article is compared: when its
article records carry different headlines (a list of teasers), none is. No byline on the page,
or authors given only as references: nothing is compared.

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

import re
from typing import Any

from structcrawl.articles.people import clean_byline
from structcrawl.articles.shown import shown_byline
from structcrawl.core.document import Document
from structcrawl.validate.vocabulary import Vocabulary
from structcrawl.visible.compare import agrees
from structcrawl.visible.tree import rendered

__all__ = ["BY_LINE_MEMO", "article_subjects", "by_line", "check_authors", "markup_authors"]

#: where a document keeps its unmarked "By <name>" line (:func:`by_line`)
BY_LINE_MEMO = "by-line"

_BY = re.compile(r"^(?:by|von|par|por|di|door|av|af)\s+\S", re.I)
_BY_TAGS = ("p", "span", "div", "address", "li", "small", "strong", "em", "a")


def _name(value: Any) -> str | None:
    if isinstance(value, dict) and isinstance(value.get("properties"), dict):
        value = value["properties"].get("name")
        if isinstance(value, list):
            value = value[0] if value else None
    if isinstance(value, dict):
        value = value.get("@value")
    return value.strip() if isinstance(value, str) and value.strip() else None


def _person(name: str) -> bool:
    """A name that reads as a person's: two to five capitalized words, no digits."""
    words = name.split()
    return 2 <= len(words) <= 5 and not re.search(r"\d", name) and name[:1].isupper()


def by_line(document: Document) -> tuple[str, str]:
    """``(text, element path)`` of the first short visible text that reads "By <name>" when the
    page marks no byline (``<p>By John Smith, staff writer</p>``); ``("", "")`` without one.
    Read once per document (kept on its memo)."""
    known = document.memoized(BY_LINE_MEMO, _by_line)
    return known[0], known[1]  # a list where another process's reading put it


def _by_line(document: Document) -> tuple[str, str]:
    body = document.root.find("body")
    for el in body.iter(*_BY_TAGS) if body is not None else ():
        if not _BY.match((el.text or "").lstrip()):  # its own text begins "By ..."
            continue
        text = " ".join(" ".join(el.itertext()).split())
        if len(text) > 80 or not all(rendered(a) for a in (el, *el.iterancestors())):
            continue
        if any("comment" in f"{a.get('class') or ''} {a.get('id') or ''}".lower()
               for a in (el, *el.iterancestors())):  # fmt: skip
            continue
        return text, document.path_of(el)
    return "", ""


def _is_article(record: dict[str, Any]) -> bool:
    vocab = Vocabulary.default()
    types = record.get("type")
    names = types if isinstance(types, list) else [types]
    return any(isinstance(t, str) and "Article" in vocab.ancestors(t) for t in names)


def markup_authors(record: dict[str, Any]) -> list[str]:
    """The author names a record states, cleaned as bylines are (``"by Ann Lee"`` is Ann
    Lee; references without a name are left out)."""
    props = record.get("properties")
    value = props.get("author") if isinstance(props, dict) else None
    items = value if isinstance(value, list) else [value]
    return [n for name in map(_name, items) if name is not None for n in clean_byline(name)]


def _headline(record: dict[str, Any]) -> str | None:
    props = record.get("properties") or {}
    return _name({"properties": {"name": props.get("headline") or props.get("name")}})


def article_subjects(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The page's article records when they are about one article (one headline, or none):
    a list of teasers, each with its own author, is not compared with the page's byline."""
    found = [r for r in records if r.get("kind") == "entity" and _is_article(r)]
    headlines = {h.casefold() for h in map(_headline, found) if h is not None}
    return found if len(headlines) <= 1 else []


def check_authors(record: dict[str, Any], document: Document | None) -> list[dict[str, Any]]:
    """The ``author-vs-byline`` conflict of an article record, or ``[]``."""
    if document is None or not _is_article(record):
        return []
    names = markup_authors(record)
    if not names:
        return []
    byline = shown_byline(document)
    shown, element = (byline[0].value, byline[0].path) if byline else by_line(document)
    if not any(map(_person, clean_byline(shown))):
        return []  # no byline, or one that names no person ("Features", "Anton692 um 21:02")
    if any(agrees(name, shown) for name in names):
        return []
    said = ", ".join(names)
    return [
        {
            "field": "author",
            "record_value": names if len(names) > 1 else names[0],
            "visible_value": shown,
            "visible_source": "byline",
            "visible_element": element,
            "code": "author-vs-byline",
            "message": f"author: the markup says {said!r}, the page's byline says {shown!r}",
        }
    ]
