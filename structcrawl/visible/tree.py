"""What "visible" means, once for every reader of the page (pure).

An element is visible when it is inside ``<body>`` and neither it nor an ancestor is a
non-rendered element (``script``, ``style``, ``template``, ``noscript``, ``head``) or marked
hidden (``hidden``, ``<input type="hidden">``, an inline ``display: none`` / ``visibility:
hidden`` style; stylesheets are not evaluated). ``aria-hidden="true"`` is not hidden: it hides
from assistive technology only, and shops put the price on screen in such an element beside a
screen-reader copy, or mark a whole product panel so while a dialog is open. Visible text
is not all alike: readers are told, not left to decide by a walk of their own, when a piece
of it sits in navigation, an aside, a footer, a form control or an SVG drawing
(:func:`region_of`), or is struck through (:func:`struck`).

>>> from lxml import html
>>> root = html.fromstring("<body><nav><a>Home</a></nav><p hidden>x</p><p>Shown</p>"
...     "<p aria-hidden='true'>On screen</p></body>")
>>> [rendered(p) for p in root.iter("p")], hidden(root.find(".//p")), region_of(root[0])
([False, True, True], True, 'nav')

The text of an element a reader sees is :func:`structcrawl.visible.text.visible_text`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from lxml import etree

from structcrawl.core.document import Document
from structcrawl.visible.words import HIDDEN_STYLE, OLD_CLASS, STRUCK, STRUCK_STYLE

__all__ = [
    "CONTROL_ROLES",
    "NOT_RENDERED",
    "REGIONS",
    "bodies",
    "element_at",
    "element_path",
    "element_places",
    "element_text",
    "hidden",
    "is_control",
    "region_of",
    "rendered",
    "struck",
    "walk_marks",
]

#: Elements whose content is never rendered as text.
NOT_RENDERED = frozenset({"script", "style", "template", "noscript", "head"})
#: Elements whose text is visible but not the page's content: region name by tag.
REGIONS = {
    "nav": "nav", "aside": "aside", "footer": "footer", "select": "control",
    "option": "control", "svg": "svg",
}  # fmt: skip
#: ARIA roles of form controls drawn by scripts (their text is a choice, not the content).
CONTROL_ROLES = frozenset({"combobox", "listbox", "option"})
_TEXT = etree.XPath(".//text()[not(ancestor::script) and not(ancestor::style)]")


def bodies(document: Document) -> list[etree._Element]:
    """The page's ``<body>`` elements, in document order (what ``//body`` selects), from the
    document's element index: no walk of the tree."""
    return document.index().named("body")


def hidden(el: etree._Element) -> bool:
    """Whether ``el`` is marked hidden (not whether an ancestor is)."""
    tag, get = el.tag, el.get
    kind = get("type") if tag == "input" else None
    return _hidden(tag, get("hidden") is not None, kind, get("style"))


def _hidden(tag: Any, flagged: bool, kind: str | None, style: str | None) -> bool:
    """Whether an element is marked hidden, of its tag and its ``hidden`` (whether there),
    ``type`` and ``style`` attributes."""
    if flagged or tag == "input" and (kind or "").lower() == "hidden":
        return True
    return bool(style and HIDDEN_STYLE.search(style))


_BUTTON_TYPES = ("submit", "button", "image")


def is_control(el: etree._Element) -> bool:
    """Whether ``el`` is a control a reader clicks: a link, a button, a button input (submit,
    button, image), an image with ``alt`` (a picture button's words) or ``role="button"``."""
    tag, get = el.tag, el.get
    alt = tag == "img" and get("alt") is not None  # read only where _control reads it
    return _control(tag, get("role"), alt, get("type") if tag == "input" else None)


def _control(tag: Any, role: str | None, alt: bool, kind: str | None) -> bool:
    """:func:`is_control` of an element's tag, ``role``, ``alt`` (whether there), ``type``."""
    return (
        tag == "a"
        or tag == "button"
        or role == "button"
        or (tag == "img" and alt)
        or (tag == "input" and kind in _BUTTON_TYPES)
    )


def rendered(el: etree._Element) -> bool:
    """Whether ``el`` itself may render text (an element, not a non-rendered or hidden one)."""
    return isinstance(el.tag, str) and el.tag not in NOT_RENDERED and not hidden(el)


def region_of(el: etree._Element) -> str:
    """The region an element opens (``nav``, ``aside``, ``footer``, ``control``, ``svg``), or
    ``""`` for content. A scripted select (``role="combobox"``, ``listbox``, ``option``: a
    warranty or size picker showing its choices' prices) is a control like ``<select>``."""
    tag = el.tag
    if not isinstance(tag, str):
        return ""
    return _tag_region(tag) or ("control" if el.get("role") in CONTROL_ROLES else "")


def _tag_region(tag: str) -> str:
    """The region an element opens by its tag alone."""
    return REGIONS.get(tag.rpartition("}")[2] if tag[:1] == "{" else tag, "")


#: The words of :data:`~structcrawl.visible.words.OLD_CLASS` alone, for casefolded text (the
#: dotless i folded too: ``re.I`` matches it with ``i``, as it does ``ſ`` and the Kelvin sign,
#: which casefolding turns into ``s`` and ``k``): a class or id in which none occurs cannot
#: match it, and is not searched with its lookbehinds at every position (the words are
#: OLD_CLASS's; a word added there is added here).
_OLD_HINT = re.compile(
    r"old|was|compare|strike|crossed|uvp|rrp|msrp|list-?price|price-?list|before|original"
    r"|sav(?:e|ing)|instal|klarna|shipping|related|recommend|upsell|cross-?sell|teaser"
    r"|sidebar|widget"
)


def struck(el: etree._Element) -> bool:
    """Whether ``el`` strikes its text through or names it an old, compare-at or unrelated
    price (``del``/``s``/``strike``, such a class or id, a ``line-through`` style)."""
    get = el.get
    return _struck(el.tag, get("class"), get("id"), get("style"), None)


def _struck(
    tag: Any,
    names: str | None,
    ident: str | None,
    style: str | None,
    said_old: dict[str, bool] | None,
) -> bool:
    """:func:`struck` of an element's tag and ``class``, ``id`` and ``style`` attributes;
    ``said_old``: the class and id words already read, and whether they name an old price (a
    page repeats its class names: each is searched once)."""
    if tag in STRUCK:
        return True
    if names or ident:
        said = f"{names or ''} {ident or ''}"
        old = said_old.get(said) if said_old is not None else None
        if old is None:
            old = bool(
                _OLD_HINT.search(said.casefold().replace("ı", "i")) and OLD_CLASS.search(said)
            )
            if said_old is not None:
                said_old[said] = old
        if old:
            return True
    return bool(style and STRUCK_STYLE.search(style))


def walk_marks(el: etree._Element, said_old: dict[str, bool]) -> tuple[bool, bool, bool]:
    """What a walk of the visible tree reads of an element, its attributes read in one call:
    whether it enters it (a rendered element, not hidden, no region: :func:`rendered`,
    :func:`region_of`), whether it strikes its text (:func:`struck`, ``said_old`` as there)
    and whether it is a control (:func:`is_control`; read only of an element entered).

    >>> from lxml import html
    >>> root = html.fromstring("<div><p style='display:none'>a</p><nav>b</nav><s>c</s><a>d</a>")
    >>> [walk_marks(el, {}) for el in root]
    [(False, False, False), (False, False, False), (True, True, False), (True, False, True)]
    """
    tag = el.tag
    if not isinstance(tag, str) or tag in NOT_RENDERED:
        return False, False, False
    attributes = el.items()
    if not attributes:  # what the tag alone says: no hidden, role, class, id or style
        if tag in REGIONS or tag[:1] == "{" and _tag_region(tag):
            return False, False, False
        return True, tag in STRUCK, tag == "a" or tag == "button"
    names = ident = style = role = kind = None
    flagged = alt = False
    for key, value in attributes:  # the attributes read here, in one pass
        if key == "class":
            names = value
        elif key == "id":
            ident = value
        elif key == "style":
            style = value
        elif key == "role":
            role = value
        elif key == "type":
            kind = value
        elif key == "hidden":
            flagged = True
        elif key == "alt":
            alt = True
    if _hidden(tag, flagged, kind, style) or _tag_region(tag) or role in CONTROL_ROLES:
        return False, False, False
    return True, _struck(tag, names, ident, style, said_old), _control(tag, role, alt, kind)


def element_text(element: etree._Element) -> str:
    """The text content of an element, scripts and styles left out."""
    return "".join(str(t) for t in _TEXT(element))  # type: ignore[union-attr]


def element_places(
    root: etree._Element, elements: Iterable[etree._Element | None]
) -> dict[etree._Element, int]:
    """Each of ``elements``' place among ``root``'s elements in document order (found in one
    pass, stopped at the last of them; one not under ``root`` has none).

    >>> root = etree.fromstring("<html><body><p>a</p><b>b</b></body></html>")
    >>> sorted(element_places(root, [root.find(".//b"), None, root]).values())
    [0, 3]
    """
    wanted = {el for el in elements if el is not None}
    places: dict[etree._Element, int] = {}
    if wanted:
        for place, el in enumerate(root.iter(etree.Element)):
            if el in wanted:
                places[el] = place
                if len(places) == len(wanted):
                    break
    return places


def element_path(root: etree._Element, el: etree._Element) -> list[int] | None:
    """Where ``el`` is under ``root``: the place of it and of each of its ancestors among their
    parent's children (comments and processing instructions counted, as ``parent[i]`` counts
    them), from the top; None where ``el`` is not under ``root``. Found from the element up,
    not by a walk of the tree.

    >>> root = etree.fromstring("<html><body><!-- c --><p>a</p><b>b</b></body></html>")
    >>> element_path(root, root.find(".//b")), element_path(root, root)
    ([0, 2], [])
    """
    path: list[int] = []
    while el is not root:
        parent = el.getparent()
        if parent is None:
            return None
        path.append(parent.index(el))
        el = parent
    path.reverse()
    return path


def element_at(root: etree._Element, path: list[int]) -> etree._Element | None:
    """The element at ``path`` under ``root`` (the inverse of :func:`element_path`), or None
    where the tree has no element there (no such place, or a comment).

    >>> root = etree.fromstring("<html><body><!-- c --><p>a</p><b>b</b></body></html>")
    >>> element_at(root, [0, 2]).tag, element_at(root, [0, 5]), element_at(root, [0, 0])
    ('b', None, None)
    """
    el = root
    for place in path:
        if not 0 <= place < len(el):
            return None
        el = el[place]
    return el if isinstance(el.tag, str) else None
