"""Pieces of the RDFa processing sequence (:mod:`._processor`) that need no processor state: the
evaluation context handed to children, which elements can generate triples, and the current
property value of step 11 (with the HTML5 ``@datetime``/``<time>`` rules).
"""

from __future__ import annotations

from collections.abc import Callable

from lxml import etree

from structcrawl.core._index import ElementIndex

from ._context import TERMS_LOWER, PrefixMap
from ._literals import html_literal, temporal_datatype, text_content, xml_literal
from ._model import IRI, RDF_HTML, RDF_XMLLITERAL, Literal, Node, Resource

__all__ = [
    "FORWARD",
    "INERT_LEAF",
    "LIST",
    "RELEVANT",
    "REVERSE",
    "XML_LANG",
    "Context",
    "Incomplete",
    "ListMapping",
    "Verdicts",
    "child_context",
    "curies_only",
    "generating_paths",
    "has_xmlns",
    "only_skipped_properties",
    "predicates",
    "property_value",
]

XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
# Attributes that make an element more than a pass-through. ``content``, ``datatype``,
# ``inlist`` and ``datetime`` only matter together with ``property``/``rel``, which are listed.
RELEVANT = frozenset(
    {
        "about",
        "resource",
        "href",
        "src",
        "typeof",
        "property",
        "rel",
        "rev",
        "vocab",
        "prefix",
        "lang",
        "xml:lang",
        XML_LANG,
    }
)
# On an element without element children and without pending incomplete triples, these
# attributes cannot generate anything (they only shape the context handed to children).
INERT_LEAF = frozenset({"about", "resource", "href", "src", "prefix", "lang", "xml:lang", XML_LANG})

# Incomplete-triple directions.
FORWARD = 0
REVERSE = 1
LIST = 2

#: predicate -> list items, each with the element that contributed it (for provenance)
ListMapping = dict[IRI, list[tuple[Node, etree._Element]]]
Incomplete = tuple[IRI, int, "list[tuple[Node, etree._Element]] | None"]


class Context:
    """The evaluation context handed from an element to its children."""

    __slots__ = (
        "parent_subject",
        "parent_object",
        "prefixes",
        "incomplete",
        "list_mapping",
        "language",
        "vocab",
    )

    def __init__(
        self,
        parent_subject: Resource,
        parent_object: Resource | None,
        prefixes: PrefixMap,
        incomplete: tuple[Incomplete, ...] | list[Incomplete],
        list_mapping: ListMapping,
        language: str | None,
        vocab: str | None,
    ) -> None:
        self.parent_subject = parent_subject
        self.parent_object = parent_object
        self.prefixes = prefixes
        self.incomplete = incomplete
        self.list_mapping = list_mapping
        self.language = language
        self.vocab = vocab


def has_xmlns(keys: list[str]) -> bool:
    for key in keys:
        if key.startswith("xmlns:"):
            return True
    return False


def curies_only(value: str | None) -> str | None:
    """HTML+RDFa: beside @property, the @rel/@rev tokens that are not CURIEs or IRIs drop out.

    >>> curies_only("nofollow schema:url"), curies_only("nofollow")
    ('schema:url', None)
    """
    if value is None:
        return None
    return " ".join(t for t in value.split() if ":" in t) or None


def property_value(
    el: etree._Element,
    local: str,
    a: dict[str, str],
    prefixes: PrefixMap,
    vocab: str | None,
    language: str | None,
    rel: str | None,
    rev: str | None,
    content: str | None,
    datatype: str | None,
    resource: Resource | None,
    typed: Resource | None,
) -> Node:
    """Step 11: the current property value (with the HTML5 ``@datetime``/``<time>`` rules)."""
    datatype_iri: str | None = None
    if datatype is not None:
        datatype_iri = ""
        for candidate in prefixes.tokens(datatype, vocab):
            if isinstance(candidate, IRI):
                datatype_iri = candidate.value
                break
    datetime = a.get("datetime")
    if datatype_iri:
        if datatype_iri == RDF_XMLLITERAL:
            return Literal(xml_literal(el), RDF_XMLLITERAL)
        if datatype_iri == RDF_HTML:
            return Literal(html_literal(el), RDF_HTML)
        lexical = content if content is not None else datetime
        return Literal(lexical if lexical is not None else text_content(el), datatype_iri)
    if datatype_iri == "":
        lexical = content if content is not None else datetime
        return Literal(lexical if lexical is not None else text_content(el), None, language)
    if content is not None:
        return Literal(content, None, language)
    if datetime is not None or local == "time":
        lexical = datetime if datetime is not None else text_content(el)
        temporal = temporal_datatype(lexical)
        if temporal is not None:
            return Literal(lexical, temporal)
        return Literal(lexical, None, language)
    if rel is None and rev is None and resource is not None:
        return resource
    if typed is not None:
        return typed
    return Literal(text_content(el), None, language)


def predicates(resolved: tuple[Resource, ...]) -> tuple[IRI, ...]:
    """Blank nodes are not allowed as predicates."""
    if all(isinstance(r, IRI) for r in resolved):
        return resolved  # type: ignore[return-value]
    return tuple(r for r in resolved if isinstance(r, IRI))


#: Attributes that make an element generate triples itself (@rel/@rev unless dead, below).
_GENERATING = ("property", "typeof", "vocab")
_LINKING = ("rel", "rev")


def _dead_links(value: str | None) -> bool:
    """Whether a @rel/@rev value can never give a predicate when no @vocab is in scope: every
    token is a plain word (no CURIE, no IRI) that is not an initial-context term
    (``nofollow``, ``stylesheet``, ``noopener noreferrer``...)."""
    if value is None:
        return True
    return all(":" not in t and t.lower() not in TERMS_LOWER for t in value.split())


def generating_paths(
    root: etree._Element, index: ElementIndex | None = None
) -> set[etree._Element]:
    """Elements that generate triples themselves (@property, @rel, @rev, @typeof, @vocab) and
    their ancestors: the only subtrees the walk must enter while no incomplete triple is
    pending. On typical pages (navigation, text, a few Open Graph tags) this leaves most of
    the tree unvisited. ``index``: the elements of the tree under ``root`` by attribute, when
    the caller has them (else one walk finds them).

    On a page without @vocab, an element whose only such attributes are @rel/@rev of plain
    words that are not terms (``<a rel="nofollow">``, ``<link rel="stylesheet">``) generates
    nothing: its @rel gives no predicate, so no triple and no incomplete triple; what it
    changes for its children (their subject) matters only if one of them generates, which
    puts it on a path anyway.
    """
    if index is None:
        index = ElementIndex(root)
    found: set[etree._Element] = set()
    generating = [el for name in _GENERATING for el in index.having(name)]
    if index.having("vocab"):
        generating.extend(el for name in _LINKING for el in index.having(name))
    else:
        dead: dict[str | None, bool] = {None: True}  # verdicts by value (pages repeat them)
        any_rev = bool(index.having("rev"))
        for name in _LINKING:
            for el in index.having(name):
                links = [el.get("rel"), el.get("rev")] if any_rev else [el.get("rel")]
                for value in links:
                    verdict = dead.get(value)
                    if verdict is None:
                        verdict = dead[value] = _dead_links(value)
                    if not verdict:
                        generating.append(el)
                        break
    for el in generating:
        node: etree._Element | None = el
        while node is not None and node not in found:
            found.add(node)
            node = node.getparent()
    return found


#: The RDFa attributes of a leaf that only states property values (any other one changes a
#: subject, an object, the evaluation context or a value's datatype or language).
_PROPERTY_ONLY = frozenset({"property", "content"})
_RDFA_ATTRIBUTES = RELEVANT | {"content", "datatype", "inlist", "datetime"}
#: verdicts of :func:`only_skipped_properties` by @property value, prefix map, vocabulary
Verdicts = dict[tuple[str, PrefixMap, str | None], bool]


def only_skipped_properties(
    keys: list[str],
    value: str | None,
    ctx: Context,
    skip: Callable[[str], bool],
    verdicts: Verdicts,
) -> bool:
    """Whether a leaf (no element children, not the root, no incomplete triple pending from
    ``ctx``) with attribute names ``keys`` and @property ``value`` would do nothing but emit
    triples whose predicates all satisfy ``skip``: its only RDFa attributes are @property and
    @content (so its subject is the parent object, it makes no blank node, changes no list,
    completes nothing), and every predicate @property resolves to is skipped. ``verdicts``
    caches the answer per value, prefix map and vocabulary."""
    if value is None:
        return False
    for key in keys:
        if (key in _RDFA_ATTRIBUTES or key.startswith("xmlns:")) and key not in _PROPERTY_ONLY:
            return False
    cache_key = (value, ctx.prefixes, ctx.vocab)
    verdict = verdicts.get(cache_key)
    if verdict is None:
        resolved = predicates(ctx.prefixes.tokens(value, ctx.vocab))
        verdict = verdicts[cache_key] = all(skip(p.value) for p in resolved)
    return verdict


def child_context(
    ctx: Context,
    skip: bool,
    new_subject: Resource | None,
    current_object: Resource | None,
    prefixes: PrefixMap,
    incomplete: list[Incomplete],
    lists: ListMapping,
    language: str | None,
    vocab: str | None,
) -> Context:
    """Step 13: the evaluation context handed to the children."""
    if skip:
        if language == ctx.language and prefixes is ctx.prefixes and vocab == ctx.vocab:
            return ctx
        return Context(
            ctx.parent_subject,
            ctx.parent_object,
            prefixes,
            ctx.incomplete,
            ctx.list_mapping,
            language,
            vocab,
        )
    subject = new_subject if new_subject is not None else ctx.parent_subject
    return Context(
        subject,
        current_object if current_object is not None else subject,
        prefixes,
        incomplete,
        lists,
        language,
        vocab,
    )
