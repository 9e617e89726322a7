"""Bylines and dates the page shows, as the last fallback for an article whose markup and meta
tags name none (pure).

Nothing inside a comment thread counts (an element whose class or id, or an ancestor's, says
``comment`` or ``respond``).

* byline: the first link marked ``rel="author"``, else the first element whose ``class`` names
  an author or a byline (``author``, ``byline``, ``entry-author``, ``post-author``, ...), whose
  text reads as one to three names (:func:`~structcrawl.articles.people.clean_byline`; at most
  five words each, capitalized, no digits);
* dates: the first ``<time datetime>`` whose class (or its parent's) says published /
  posted / entry date (``datePublished``), or updated / modified (``dateModified``).

>>> from structcrawl.core.document import parse_html
>>> doc = parse_html(b'<body><div class="sidebar">Blog of Ann</div><p class="byline">By '
...     b'<span class="author vcard"><a href="/a/ann">Ann Lee</a></span> on '
...     b'<time class="entry-date published" datetime="2019-08-02T08:00:00+00:00">Aug 2</time>'
...     b'</p></body>', "https://b.example/p")
>>> [(v.key, v.value) for v in shown_byline(doc)], shown_dates(doc)["datePublished"][0].value
([('class=byline', 'By Ann Lee on Aug 2')], '2019-08-02T08:00:00+00:00')
"""

from __future__ import annotations

import re

from lxml import etree

from structcrawl.articles.meta import MetaValue
from structcrawl.articles.people import clean_byline
from structcrawl.core.document import Document

__all__ = ["SHOWN_MEMO", "shown_byline", "shown_dates", "shown_fallbacks", "shown_headline"]

#: where a document keeps what its visible page gives (:func:`shown_fallbacks`)
SHOWN_MEMO = "shown-fallbacks"

_AUTHOR_CLASS = re.compile(r"(?:^|[\s_-])(?:author|byline|autor|auteur|autore)(?:$|[\s_-])", re.I)
#: elements that hold a page or a section, never a byline, whatever their class says
_NO_BYLINE = frozenset({"body", "html", "article", "section", "main"})
_PUBLISHED = re.compile(r"publish|posted|entry-date|post-date|pubdate|date-pub", re.I)
_MODIFIED = re.compile(r"updated|modified", re.I)
_TRAILING_DATE = re.compile(r"\s+(?:on|am|le|el|op|il)\s+.*$", re.I)


def _text(el: etree._Element) -> str:
    return " ".join(" ".join(el.itertext()).split())


def _in_comments(el: etree._Element) -> bool:
    """Inside (or itself) a comment thread: its bylines and dates are the commenters'."""
    for node in (el, *el.iterancestors()):
        marks = f"{node.get('class') or ''} {node.get('id') or ''}".lower()
        if "comment" in marks or "respond" in marks:
            return True
    return False


def _names(text: str) -> list[str]:
    names = clean_byline(_TRAILING_DATE.sub("", text))
    if not 1 <= len(names) <= 3:
        return []
    if any(len(n.split()) > 5 or re.search(r"\d", n) or not n[:1].isupper() for n in names):
        return []
    return names


def shown_byline(document: Document) -> list[MetaValue]:
    """The byline the page shows (one value: its text as written), ``[]`` when none reads as
    names."""
    known = document.memo.get(SHOWN_MEMO)
    if known is not None:  # what shown_fallbacks read (its authors are this byline)
        return list(known.get("authors", ()))
    index = document.index()
    for el in index.having("rel"):
        if el.tag == "a" and "author" in (el.get("rel") or "").lower().split():
            text = _text(el)
            if _names(text) and not _in_comments(el):
                return [MetaValue("rel=author", text, document.path_of(el), "visible-page")]
    for el, classes in zip(index.having("class"), index.values("class"), strict=True):
        if not _AUTHOR_CLASS.search(classes) or el.tag in _NO_BYLINE:
            continue
        text = _text(el)
        if 0 < len(text) <= 80 and _names(text) and not _in_comments(el):
            token = _AUTHOR_CLASS.search(classes)
            key = token.group(0).strip(" _-").lower() if token else "author"
            return [MetaValue(f"class={key}", text, document.path_of(el), "visible-page")]
    return []


def shown_dates(document: Document) -> dict[str, list[MetaValue]]:
    """``datePublished`` / ``dateModified`` from the page's marked ``<time datetime>``s."""
    out: dict[str, list[MetaValue]] = {}
    body = document.root.find("body")
    for el in document.index().named_in(body if body is not None else document.root, "time"):
        stamp = (el.get("datetime") or "").strip()
        if not stamp or _in_comments(el):
            continue
        parent = el.getparent()
        classes = (
            f"{el.get('class') or ''} {parent.get('class') or '' if parent is not None else ''}"
        )
        for field, pattern in (("dateModified", _MODIFIED), ("datePublished", _PUBLISHED)):
            if field not in out and pattern.search(classes):
                out[field] = [MetaValue("time", stamp, document.path_of(el), "visible-page")]
                break
        if len(out) == 2:
            break
    return out


def shown_headline(document: Document) -> list[MetaValue]:
    """The page's first ``<h1>`` with text (``[]`` when none)."""
    body = document.root.find("body")
    for el in document.index().named_in(body if body is not None else document.root, "h1"):
        text = _text(el)
        if text:
            return [MetaValue("h1", text, document.path_of(el), "visible-page")]
    return []


def shown_fallbacks(document: Document) -> dict[str, list[MetaValue]]:
    """Every field the visible page gives (byline, dates, headline), keyed like
    :func:`~structcrawl.articles.meta.meta_fallbacks`; read once per document, kept on its
    memo)."""
    known = document.memo.get(SHOWN_MEMO)
    if known is None:
        known = dict(shown_dates(document))
        for field, found in (
            ("authors", shown_byline(document)),
            ("headline", shown_headline(document)),
        ):
            if found:
                known[field] = found
        document.memo[SHOWN_MEMO] = known
    return {field: list(values) for field, values in known.items()}
