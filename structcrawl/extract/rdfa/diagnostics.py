"""RDFa markup that the processor has to ignore, named: warning records for the page.

The processor (:mod:`._processor`) follows RDFa Core 1.1 and drops what does not resolve
without a word; a publisher needs to hear of it. This pass reads the same attributes with the
same resolution (:meth:`PrefixMap.tokens`, the prefixes and ``vocab`` in scope of each
element) and reports:

* ``rdfa-undefined-prefix``: a ``property``/``typeof``/``rel``/``rev``/``datatype`` token
  ``pfx:name`` whose prefix is declared nowhere in scope (nor in the RDFa initial context),
  and which is not an absolute IRI either (:func:`._context.is_absolute_iri`):
  ``undefinedpfx:colour``;
* ``rdfa-unresolved-term``: a term (``property="name"``, ``typeof="Product"``,
  ``datatype="Date"``) with no ``vocab`` in scope and not one of the initial context's terms
  (``rel``/``rev`` terms are not reported: HTML link types such as ``rel="nofollow"`` are
  meant for browsers, not for RDFa);
* ``rdfa-unresolved-subject``: a safe CURIE in ``about``/``resource`` (``[pfx:x]``) whose
  prefix is not declared: the subject it should name cannot be resolved, so the attribute is
  ignored and the statements go to another subject.

Open Graph and Twitter prefixes (``twitter:card`` on ``<meta property>``) are left to the
``opengraph`` layer, which reads them without a declaration; they are not reported.

>>> from structcrawl.core.document import parse_html
>>> doc = parse_html(b'<div typeof="Product"><b property="name">K</b>'
...     b'<i property="undefinedpfx:colour">red</i></div>', "https://s.example/")
>>> [(r.error.code, r.source_element) for r in diagnostics(doc)]
... # doctest: +NORMALIZE_WHITESPACE
[('rdfa-unresolved-term', '/html/body/div'), ('rdfa-unresolved-term', '/html/body/div/b'),
 ('rdfa-undefined-prefix', '/html/body/div/i')]
"""

from __future__ import annotations

import re

from lxml import etree

from structcrawl.core.document import Document
from structcrawl.core.records import Record, error_record

from ._context import INITIAL_PREFIX_MAP, PrefixMap, is_ncname, parse_prefix_attribute

__all__ = ["diagnostics"]

_FORMAT = "rdfa"
_PARSER = "structcrawl.extract.rdfa"
_MAX_PER_CODE = 20  # per page; one more record counts the rest
#: Prefixes the opengraph layer reads without a declaration.
_META_PREFIXES = re.compile(
    r"^(?:og|article|product|book|books|profile|music|video|fb|business|place|restaurant"
    r"|fitness|game|twitter|al):",
    re.I,
)
_Scope = tuple[str | None, PrefixMap]
_TERM = "rdfa-unresolved-term"
#: attributes read besides typeof and property (each from the page's element index)
_ALSO_READ = ("about", "resource", "datatype", "rel", "rev")
_LINKS = frozenset({"rel", "rev"})


class _Scopes:
    """The ``vocab`` and prefix mappings in scope of each element (memoized up the tree)."""

    def __init__(self) -> None:
        self._memo: dict[etree._Element, _Scope] = {}

    def of(self, el: etree._Element) -> _Scope:
        chain = []
        node: etree._Element | None = el
        while node is not None and node not in self._memo:
            chain.append(node)
            node = node.getparent()
        scope: _Scope = self._memo[node] if node is not None else (None, INITIAL_PREFIX_MAP)
        for item in reversed(chain):
            scope = self._memo[item] = _local(item, scope)
        return scope


def _local(el: etree._Element, scope: _Scope) -> _Scope:
    vocab, prefixes = scope
    value = el.get("vocab")
    if value is not None:
        vocab = value.strip() or None
    declared = {
        key[6:].lower(): v.strip()
        for key, v in el.items()
        if key.startswith("xmlns:") and v.strip() and is_ncname(key[6:])
    }
    prefix_attr = el.get("prefix")
    if prefix_attr is not None:
        declared.update(parse_prefix_attribute(prefix_attr))
    return vocab, prefixes.extend(declared) if declared else prefixes


def _token_problem(token: str, vocab: str | None, prefixes: PrefixMap) -> str | None:
    if prefixes.tokens(token, vocab) or _META_PREFIXES.match(token):
        return None
    if ":" not in token:
        return _TERM
    prefix = token.partition(":")[0]
    return None if prefix == "_" else "rdfa-undefined-prefix"


def _attribute_problems(el: etree._Element, scope: _Scope) -> list[tuple[str, str, str]]:
    """``(code, attribute, token)`` for what does not resolve on one element."""
    vocab, prefixes = scope
    found = []
    for attribute in ("typeof", "property", "datatype", "rel", "rev"):
        for token in (el.get(attribute) or "").split():
            code = _token_problem(token, vocab, prefixes)
            if code is not None and not (attribute in _LINKS and code == _TERM):
                found.append((code, attribute, token))
    for attribute in ("about", "resource"):
        value = (el.get(attribute) or "").strip()
        if value.startswith("[") and value.endswith("]") and len(value) > 2:
            curie = value[1:-1].strip()
            if prefixes.curie(curie) is None:
                found.append(("rdfa-unresolved-subject", attribute, value))
    return found


def _message(code: str, attribute: str, token: str) -> str:
    if code == "rdfa-unresolved-term":
        return (
            f"{attribute}={token!r}: the term resolves to no IRI (no vocab in scope, and it "
            "is not a term of the RDFa initial context): it was ignored"
        )
    if code == "rdfa-undefined-prefix":
        prefix = token.partition(":")[0]
        return (
            f"{attribute}={token!r}: the prefix {prefix!r} is declared nowhere in scope, so "
            "this is neither a CURIE nor an IRI: it was ignored"
        )
    return (
        f"{attribute}={token!r}: the safe CURIE's prefix is not declared, so the subject "
        "cannot be resolved: the attribute was ignored"
    )


def diagnostics(doc: Document) -> list[Record]:
    """Warning records for the RDFa attributes of ``doc`` that do not resolve, in document
    order (at most 20 per code; one more record counts the rest).

    The elements come from the page's element index (no walk of the tree: on a large page the
    XPath ``//*[@typeof or @property or @about or @resource ...]`` cost more than the rest of the
    RDFa layer); only the elements with a problem, few on most pages, are put in document
    order."""
    index = doc.index()
    typeof, prop = index.having("typeof"), index.having("property")
    if not (typeof or prop or index.having("vocab")):
        return []
    scopes = _Scopes()
    found: list[tuple[etree._Element, list[tuple[str, str, str]]]] = []
    read = [*typeof, *prop]
    for attribute in _ALSO_READ:
        read.extend(index.having(attribute))
    for el in dict.fromkeys(read):
        problems = _attribute_problems(el, scopes.of(el))
        if problems:
            found.append((el, problems))
    if len(found) > 1:
        order = _DocumentOrder()
        found.sort(key=lambda pair: order.key(pair[0]))
    out: list[Record] = []
    counts: dict[str, int] = {}
    for el, problems in found:
        for code, attribute, token in problems:
            counts[code] = counts.get(code, 0) + 1
            if counts[code] <= _MAX_PER_CODE:
                out.append(_warning(doc, code, _message(code, attribute, token), doc.path_of(el)))
    for code, count in counts.items():
        if count > _MAX_PER_CODE:
            more = f"{count - _MAX_PER_CODE:,} more like the above (not listed)"
            out.append(_warning(doc, code, more, ""))
    return out


class _DocumentOrder:
    """A sort key giving elements of one tree their document order: the positions of the
    element and its ancestors among their siblings, root first (memoized up the tree)."""

    def __init__(self) -> None:
        self._memo: dict[etree._Element, tuple[int, ...]] = {}

    def key(self, el: etree._Element) -> tuple[int, ...]:
        chain = []
        node: etree._Element | None = el
        while node is not None and node not in self._memo:
            chain.append(node)
            node = node.getparent()
        key = self._memo[node] if node is not None else ()
        for item in reversed(chain):
            parent = item.getparent()
            key = self._memo[item] = (*key, parent.index(item) if parent is not None else 0)
        return key


def _warning(doc: Document, code: str, message: str, element: str) -> Record:
    return error_record(
        source_url=doc.url,
        format=_FORMAT,
        code=code,
        message=message,
        source_element=element,
        parser=_PARSER,
        kind="warning",
    )
