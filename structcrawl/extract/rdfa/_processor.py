"""The RDFa Core 1.1 processing sequence (section 7.5) with the HTML+RDFa 1.1 host-language rules.

The tree is walked once, depth first, with an explicit stack (no recursion, so depth is bounded
only by memory). Elements without any RDFa-relevant attribute take a fast path that simply hands
the parent's evaluation context down, which is exactly what the processing sequence does for them
(they "skip" and change nothing). Step numbers in comments refer to RDFa Core 1.1, section 7.5.
"""

from __future__ import annotations

from collections.abc import Iterator

from lxml import etree

from ._context import INITIAL_PREFIX_MAP, PrefixMap, is_ncname, parse_prefix_attribute
from ._iri import resolve_iri
from ._literals import html_literal, temporal_datatype, text_content, xml_literal
from ._model import (
    IRI,
    RDF_FIRST,
    RDF_HTML,
    RDF_NIL,
    RDF_REST,
    RDF_TYPE,
    RDF_XMLLITERAL,
    RDFA_USES_VOCABULARY,
    BNode,
    Literal,
    Node,
    Resource,
    Triple,
)

__all__ = ["process"]

_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
# Attributes that make an element more than a pass-through. ``content``, ``datatype``,
# ``inlist`` and ``datetime`` only matter together with ``property``/``rel``, which are listed.
_RELEVANT = frozenset(
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
        _XML_LANG,
    }
)
# On an element without element children and without pending incomplete triples, these
# attributes cannot generate anything (they only shape the context handed to children).
_INERT_LEAF = frozenset(
    {"about", "resource", "href", "src", "prefix", "lang", "xml:lang", _XML_LANG}
)

# Incomplete-triple directions.
_FORWARD = 0
_REVERSE = 1
_LIST = 2

#: predicate -> list items, each with the element that contributed it (for provenance)
_ListMapping = dict[IRI, list[tuple[Node, etree._Element]]]
_Incomplete = tuple[IRI, int, "list[tuple[Node, etree._Element]] | None"]


class _Context:
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
        incomplete: tuple[_Incomplete, ...] | list[_Incomplete],
        list_mapping: _ListMapping,
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


def _has_xmlns(keys: list[str]) -> bool:
    for key in keys:
        if key.startswith("xmlns:"):
            return True
    return False


class _Processor:
    """State for one document: base IRI, output, blank node counter, IRI cache."""

    def __init__(self, root: etree._Element, base: str, max_elements: int | None = None) -> None:
        self.root = root
        self.max_elements = max_elements  # RDFa elements processed, at most (None: all)
        self.processed = 0
        self.truncated = False
        self.base = base
        self.base_iri = IRI(base)
        self.triples: list[Triple] = []
        self._iris: dict[str, IRI] = {}
        self._bnodes = 0

    # -- helpers ------------------------------------------------------------------------------

    def new_bnode(self) -> BNode:
        self._bnodes += 1
        return BNode(f"g{self._bnodes}")

    def iri(self, value: str) -> IRI:
        """``value`` (already stripped) resolved against the base, cached."""
        cached = self._iris.get(value)
        if cached is None:
            cached = IRI(resolve_iri(self.base, value))
            self._iris[value] = cached
        return cached

    def safe_curie_or_iri(self, value: str | None, prefixes: PrefixMap) -> Resource | None:
        """Resolve ``@about``/``@resource``; ``None`` when absent or to be ignored."""
        if value is None:
            return None
        value = value.strip()
        is_curie, resolved = prefixes.about(value)
        if is_curie:
            return resolved
        return self.iri(value)

    def emit(self, s: Resource, p: IRI, o: Node, element: etree._Element) -> None:
        self.triples.append(Triple(s, p, o, element))

    def emit_lists(self, subject: Resource, lists: _ListMapping, element: etree._Element) -> None:
        """Step 14: turn the lists created on ``element`` into rdf:first/rdf:rest chains."""
        for predicate, items in lists.items():
            if not items:
                self.emit(subject, predicate, RDF_NIL, element)
                continue
            heads = [self.new_bnode() for _ in items]
            rests: list[Resource] = [*heads[1:], RDF_NIL]
            for head, (item, source), rest in zip(heads, items, rests, strict=True):
                self.emit(head, RDF_FIRST, item, source)
                self.emit(head, RDF_REST, rest, source)
            self.emit(subject, predicate, heads[0], element)

    # -- traversal ----------------------------------------------------------------------------

    def run(self) -> list[Triple]:
        initial = _Context(self.base_iri, None, INITIAL_PREFIX_MAP, (), {}, None, None)
        pending_type = tuple[Resource, _ListMapping, etree._Element] | None
        stack: list[tuple[Iterator[etree._Element], _Context, pending_type]] = [
            (iter((self.root,)), initial, None)
        ]
        root = self.root
        relevant = _RELEVANT
        inert_leaf = _INERT_LEAF
        on_path = _generating_paths(root)
        while stack:
            children, ctx, pending = stack[-1]
            for element in children:
                if not isinstance(element.tag, str):
                    continue  # comment, processing instruction, entity
                if element not in on_path and not ctx.incomplete:
                    # Nothing below can generate a triple: no @property/@rel/@rev/@typeof/
                    # @vocab in the subtree, and no incomplete triple waiting for a subject.
                    continue
                keys = element.keys()
                if element is not root:
                    if not keys or (relevant.isdisjoint(keys) and not _has_xmlns(keys)):
                        # No RDFa here: the element skips and hands its context down unchanged.
                        if len(element):
                            stack.append((element.iterchildren(), ctx, None))
                            break
                        continue
                    if (
                        not ctx.incomplete
                        and not len(element)
                        and inert_leaf.issuperset(relevant.intersection(keys))
                    ):
                        # A leaf such as <a href> or <img src>: it would only set a subject
                        # nobody below uses, so there is nothing to generate.
                        continue
                self.processed += 1
                if self.max_elements is not None and self.processed > self.max_elements:
                    self.truncated = True  # bounded: the rest of the document is not read
                    return self.triples
                child_ctx, lists = self.element(element, ctx, element is root)
                if len(element):
                    stack.append((element.iterchildren(), child_ctx, lists))
                    break
                if lists is not None:
                    self.emit_lists(*lists)
            else:
                stack.pop()
                if pending is not None:
                    self.emit_lists(*pending)
        return self.triples

    # -- one element --------------------------------------------------------------------------

    def element(
        self, el: etree._Element, ctx: _Context, is_root: bool
    ) -> tuple[_Context, tuple[Resource, _ListMapping, etree._Element] | None]:
        """Process one element (steps 1-13); return the children's context and pending lists."""
        a = dict(el.items())
        tag = el.tag
        assert isinstance(tag, str)
        local = tag.rpartition("}")[2] if tag.startswith("{") else tag

        # Step 2: default vocabulary.
        vocab = ctx.vocab
        vocab_attr = a.get("vocab")
        if vocab_attr is not None:
            vocab_attr = vocab_attr.strip()
            if vocab_attr:
                vocab_iri = self.iri(vocab_attr)
                vocab = vocab_iri.value
                self.emit(self.base_iri, RDFA_USES_VOCABULARY, vocab_iri, el)
            else:
                vocab = None

        # Step 3: prefix mappings (xmlns: first, @prefix wins).
        prefixes = ctx.prefixes
        declared: dict[str, str] = {}
        for key, value in a.items():
            if key.startswith("xmlns:"):
                name = key[6:].lower()
                value = value.strip()
                if value and name != "_" and is_ncname(name):
                    declared[name] = value
        prefix_attr = a.get("prefix")
        if prefix_attr is not None:
            declared.update(parse_prefix_attribute(prefix_attr))
        if declared:
            prefixes = prefixes.extend(declared)

        # Step 4: language (xml:lang wins over lang).
        language = ctx.language
        lang_attr = a.get("xml:lang", a.get(_XML_LANG))
        if lang_attr is None:
            lang_attr = a.get("lang")
        if lang_attr is not None:
            language = lang_attr.strip().lower() or None

        rel = a.get("rel")
        rev = a.get("rev")
        prop = a.get("property")
        if prop is not None:
            # HTML+RDFa: with @property, @rel/@rev values that are not CURIEs/IRIs are dropped.
            if rel is not None:
                rel = " ".join(t for t in rel.split() if ":" in t) or None
            if rev is not None:
                rev = " ".join(t for t in rev.split() if ":" in t) or None
        typeof = a.get("typeof")
        content = a.get("content")
        datatype = a.get("datatype")
        about = self.safe_curie_or_iri(a.get("about"), prefixes)
        resource = self.safe_curie_or_iri(a.get("resource"), prefixes)
        href_attr = a.get("href")
        href = self.iri(href_attr.strip()) if href_attr is not None else None
        src_attr = a.get("src")
        src = self.iri(src_attr.strip()) if src_attr is not None else None

        # Step 1: local values.
        skip = False
        new_subject: Resource | None = None
        current_object: Resource | None = None
        typed: Resource | None = None
        parent_object = ctx.parent_object
        base_iri = self.base_iri

        if rel is None and rev is None:
            if prop is not None and content is None and datatype is None:
                # Step 5.1
                if about is not None:
                    new_subject = about
                elif is_root:
                    new_subject = base_iri
                else:
                    new_subject = parent_object
                if typeof is not None:
                    if about is not None:
                        typed = about
                    elif is_root:
                        typed = base_iri
                    else:
                        typed = resource or href or src or self.new_bnode()
                        current_object = typed
            else:
                # Step 5.2
                new_subject = about or resource or href or src
                if new_subject is None:
                    if is_root:
                        new_subject = base_iri
                    elif local in ("head", "body"):
                        new_subject = parent_object  # HTML+RDFa: head/body use the parent
                    elif typeof is not None:
                        new_subject = self.new_bnode()
                    elif parent_object is not None:
                        new_subject = parent_object
                        skip = prop is None
                if typeof is not None:
                    typed = new_subject
        else:
            # Step 6
            if about is not None:
                new_subject = about
            elif is_root:
                new_subject = base_iri
            if typeof is not None:
                typed = new_subject
            if new_subject is None:
                new_subject = parent_object
            current_object = resource or href or src
            if typeof is not None and "about" not in a:
                if current_object is None:
                    current_object = self.new_bnode()
                typed = current_object

        # Step 7: types.
        if typed is not None and typeof is not None:
            for type_iri in prefixes.tokens(typeof, vocab):
                self.emit(typed, RDF_TYPE, type_iri, el)

        # Step 8: a new subject starts a new list mapping.
        lists = ctx.list_mapping
        if new_subject is not None and new_subject != parent_object:
            lists = {}

        inlist = "inlist" in a
        incomplete: list[_Incomplete] = []
        rel_preds = _predicates(prefixes.tokens(rel, vocab)) if rel is not None else ()
        rev_preds = _predicates(prefixes.tokens(rev, vocab)) if rev is not None else ()
        if current_object is not None:
            # Step 9
            assert new_subject is not None
            for predicate in rel_preds:
                if inlist:
                    lists.setdefault(predicate, []).append((current_object, el))
                else:
                    self.emit(new_subject, predicate, current_object, el)
            for predicate in rev_preds:
                self.emit(current_object, predicate, new_subject, el)
        elif rel_preds or rev_preds:
            # Step 10
            current_object = self.new_bnode()
            for predicate in rel_preds:
                if inlist:
                    incomplete.append((predicate, _LIST, lists.setdefault(predicate, [])))
                else:
                    incomplete.append((predicate, _FORWARD, None))
            for predicate in rev_preds:
                incomplete.append((predicate, _REVERSE, None))

        # Step 11: property values.
        if prop is not None and new_subject is not None:
            predicates = _predicates(prefixes.tokens(prop, vocab))
            if predicates:
                value = self.property_value(
                    el,
                    local,
                    a,
                    prefixes,
                    vocab,
                    language,
                    rel,
                    rev,
                    content,
                    datatype,
                    resource or href or src,
                    typed if typeof is not None and "about" not in a else None,
                )
                for predicate in predicates:
                    if inlist:
                        lists.setdefault(predicate, []).append((value, el))
                    else:
                        self.emit(new_subject, predicate, value, el)

        # Step 12: complete the parent's incomplete triples.
        if not skip and new_subject is not None:
            for predicate, direction, target in ctx.incomplete:
                if direction == _LIST:
                    assert target is not None
                    target.append((new_subject, el))
                elif direction == _FORWARD:
                    self.emit(ctx.parent_subject, predicate, new_subject, el)
                else:
                    self.emit(new_subject, predicate, ctx.parent_subject, el)

        # Step 13: the children's context.
        if skip:
            if language == ctx.language and prefixes is ctx.prefixes and vocab == ctx.vocab:
                child = ctx
            else:
                child = _Context(
                    ctx.parent_subject,
                    ctx.parent_object,
                    prefixes,
                    ctx.incomplete,
                    ctx.list_mapping,
                    language,
                    vocab,
                )
        else:
            subject = new_subject if new_subject is not None else ctx.parent_subject
            child = _Context(
                subject,
                current_object if current_object is not None else subject,
                prefixes,
                incomplete,
                lists,
                language,
                vocab,
            )

        # Step 14 happens after the children: only lists created here are emitted here.
        pending = None
        if lists is not ctx.list_mapping and new_subject is not None:
            pending = (new_subject, lists, el)
        return child, pending

    def property_value(
        self,
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


def _predicates(resolved: tuple[Resource, ...]) -> tuple[IRI, ...]:
    """Blank nodes are not allowed as predicates."""
    if all(isinstance(r, IRI) for r in resolved):
        return resolved  # type: ignore[return-value]
    return tuple(r for r in resolved if isinstance(r, IRI))


# attribute nodes, then their elements: ~4x faster in libxml2 than //*[@a or @b ...]. One
# XPath per attribute: libxml2 merges the node sets of a union (``a | b``) in quadratic time,
# which took minutes on a page of 100,000 RDFa elements.
_GENERATING = tuple(
    etree.XPath(f"//@{name}") for name in ("property", "rel", "rev", "typeof", "vocab")
)


def _generating_paths(root: etree._Element) -> set[etree._Element]:
    """Elements that generate triples themselves (@property, @rel, @rev, @typeof, @vocab) and
    their ancestors: the only subtrees the walk must enter while no incomplete triple is
    pending. On typical pages (navigation, text, a few Open Graph tags) this leaves most of
    the tree unvisited."""
    found: set[etree._Element] = set()
    for attribute in (a for xpath in _GENERATING for a in xpath(root)):
        node: etree._Element | None = attribute.getparent()
        while node is not None and node not in found:
            found.add(node)
            node = node.getparent()
    return found


def process(root: etree._Element, base: str) -> list[Triple]:
    """Run the processing sequence over ``root`` with base IRI ``base`` (raw, in order)."""
    return _Processor(root, base).run()


def process_bounded(
    root: etree._Element, base: str, max_elements: int | None
) -> tuple[list[Triple], bool]:
    """:func:`process`, stopping after ``max_elements`` elements carrying RDFa attributes;
    the flag says whether it stopped early."""
    processor = _Processor(root, base, max_elements)
    return processor.run(), processor.truncated
