"""The RDFa Core 1.1 processing sequence (section 7.5) with the HTML+RDFa 1.1 host-language rules.

The tree is walked once, depth first, with an explicit stack (no recursion, so depth is bounded
only by memory). Elements without any RDFa-relevant attribute take a fast path that simply hands
the parent's evaluation context down, which is exactly what the processing sequence does for them
(they "skip" and change nothing). Step numbers in comments refer to RDFa Core 1.1, section 7.5;
one method per group of steps, the state-free pieces in :mod:`._steps`.

Size: the processing sequence is one state machine over one walk; splitting its methods apart
would pass the walk's state between modules. Its import lists alone take 40 formatted lines.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from lxml import etree

from structcrawl.core._index import ElementIndex

from ._context import INITIAL_PREFIX_MAP, PrefixMap, is_ncname, parse_prefix_attribute
from ._iri import resolve_iri
from ._model import (
    IRI,
    RDF_FIRST,
    RDF_NIL,
    RDF_REST,
    RDF_TYPE,
    RDFA_USES_VOCABULARY,
    BNode,
    Node,
    Resource,
    Triple,
)
from ._steps import (
    FORWARD,
    INERT_LEAF,
    LIST,
    RELEVANT,
    REVERSE,
    XML_LANG,
    Context,
    Incomplete,
    ListMapping,
    Verdicts,
    child_context,
    curies_only,
    generating_paths,
    has_xmlns,
    only_skipped_properties,
    predicates,
    property_value,
)

__all__ = ["process", "process_bounded"]

_Pending = tuple[Resource, ListMapping, etree._Element] | None
#: Step 5/6 outcome: skip, new subject, current object, the resource @typeof types
_Subjects = tuple[bool, Resource | None, Resource | None, Resource | None]


class _Processor:
    """State for one document: base IRI, output, blank node counter, IRI cache."""

    def __init__(
        self,
        root: etree._Element,
        base: str,
        max_elements: int | None = None,
        index: ElementIndex | None = None,
        skip: Callable[[str], bool] | None = None,
    ) -> None:
        self.root = root
        self.index = index
        self.skip = skip  # predicates whose triples the caller drops (None: keep all)
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

    def emit_lists(self, subject: Resource, lists: ListMapping, element: etree._Element) -> None:
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
        initial = Context(self.base_iri, None, INITIAL_PREFIX_MAP, (), {}, None, None)
        stack: list[tuple[Iterator[etree._Element], Context, _Pending]] = [
            (iter((self.root,)), initial, None)
        ]
        root = self.root
        relevant = RELEVANT
        inert_leaf = INERT_LEAF
        on_path = generating_paths(root, self.index)
        skip = self.skip
        verdicts: Verdicts = {}
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
                    if not keys or (relevant.isdisjoint(keys) and not has_xmlns(keys)):
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
                if skip and not (ctx.incomplete or len(element) or element is root):
                    if only_skipped_properties(keys, element.get("property"), ctx, skip, verdicts):
                        continue  # it would only state values of predicates the caller drops
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

    def element(self, el: etree._Element, ctx: Context, is_root: bool) -> tuple[Context, _Pending]:
        """Process one element (steps 1-13); return the children's context and pending lists."""
        a = dict(el.items())
        tag = el.tag
        assert isinstance(tag, str)
        local = tag.rpartition("}")[2] if tag.startswith("{") else tag
        vocab, prefixes, language = self.local_context(el, a, ctx)  # steps 2-4
        rel, rev, prop = a.get("rel"), a.get("rev"), a.get("property")
        if prop is not None:
            rel, rev = curies_only(rel), curies_only(rev)
        typeof = a.get("typeof")
        about = self.safe_curie_or_iri(a.get("about"), prefixes)
        resource = self.safe_curie_or_iri(a.get("resource"), prefixes)
        href_attr = a.get("href")
        href = self.iri(href_attr.strip()) if href_attr is not None else None
        src_attr = a.get("src")
        src = self.iri(src_attr.strip()) if src_attr is not None else None
        target = resource or href or src
        skip, new_subject, current_object, typed = self.subjects(
            a, ctx, is_root, local, about, target, rel is None and rev is None
        )
        # Step 7: types.
        if typed is not None and typeof is not None:
            for type_iri in prefixes.tokens(typeof, vocab):
                self.emit(typed, RDF_TYPE, type_iri, el)
        # Step 8: a new subject starts a new list mapping.
        lists = ctx.list_mapping
        if new_subject is not None and new_subject != ctx.parent_object:
            lists = {}
        inlist = "inlist" in a
        rel_preds = predicates(prefixes.tokens(rel, vocab)) if rel is not None else ()
        rev_preds = predicates(prefixes.tokens(rev, vocab)) if rev is not None else ()
        current_object, incomplete = self.relations(
            el, new_subject, current_object, rel_preds, rev_preds, lists, inlist
        )
        # Step 11: property values.
        if prop is not None and new_subject is not None:
            props = predicates(prefixes.tokens(prop, vocab))
            if props:
                own = typed if typeof is not None and "about" not in a else None
                value = property_value(
                    el,
                    local,
                    a,
                    prefixes,
                    vocab,
                    language,
                    rel,
                    rev,
                    a.get("content"),
                    a.get("datatype"),
                    target,
                    own,
                )
                for predicate in props:
                    if inlist:
                        lists.setdefault(predicate, []).append((value, el))
                    else:
                        self.emit(new_subject, predicate, value, el)
        # Step 12: complete the parent's incomplete triples.
        if not skip and new_subject is not None:
            self.complete(el, ctx, new_subject)
        child = child_context(
            ctx, skip, new_subject, current_object, prefixes, incomplete, lists, language, vocab
        )
        # Step 14 happens after the children: only lists created here are emitted here.
        pending = None
        if lists is not ctx.list_mapping and new_subject is not None:
            pending = (new_subject, lists, el)
        return child, pending

    def local_context(
        self, el: etree._Element, a: dict[str, str], ctx: Context
    ) -> tuple[str | None, PrefixMap, str | None]:
        """Steps 2-4: the element's default vocabulary, prefix mappings and language."""
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
        lang_attr = a.get("xml:lang", a.get(XML_LANG))
        if lang_attr is None:
            lang_attr = a.get("lang")
        if lang_attr is not None:
            language = lang_attr.strip().lower() or None
        return vocab, prefixes, language

    def subjects(
        self,
        a: dict[str, str],
        ctx: Context,
        is_root: bool,
        local: str,
        about: Resource | None,
        target: Resource | None,
        no_rel: bool,
    ) -> _Subjects:
        """Steps 5-6: skip, the new subject, the current object and the typed resource.
        ``target`` is the first of @resource, @href, @src; ``no_rel``: neither @rel nor @rev."""
        skip = False
        new_subject: Resource | None = None
        current_object: Resource | None = None
        typed: Resource | None = None
        parent_object = ctx.parent_object
        typeof = "typeof" in a
        if not no_rel:  # Step 6
            new_subject = about if about is not None else (self.base_iri if is_root else None)
            if typeof:
                typed = new_subject
            if new_subject is None:
                new_subject = parent_object
            current_object = target
            if typeof and "about" not in a:
                if current_object is None:
                    current_object = self.new_bnode()
                typed = current_object
        elif "property" in a and "content" not in a and "datatype" not in a:  # Step 5.1
            if about is not None:
                new_subject = about
            else:
                new_subject = self.base_iri if is_root else parent_object
            if typeof:
                if about is not None:
                    typed = about
                elif is_root:
                    typed = self.base_iri
                else:
                    typed = current_object = target or self.new_bnode()
        else:  # Step 5.2
            new_subject = about or target
            if new_subject is None:
                if is_root:
                    new_subject = self.base_iri
                elif local in ("head", "body"):
                    new_subject = parent_object  # HTML+RDFa: head/body use the parent
                elif typeof:
                    new_subject = self.new_bnode()
                elif parent_object is not None:
                    new_subject = parent_object
                    skip = "property" not in a
            if typeof:
                typed = new_subject
        return skip, new_subject, current_object, typed

    def relations(
        self,
        el: etree._Element,
        new_subject: Resource | None,
        current_object: Resource | None,
        rel_preds: tuple[IRI, ...],
        rev_preds: tuple[IRI, ...],
        lists: ListMapping,
        inlist: bool,
    ) -> tuple[Resource | None, list[Incomplete]]:
        """Steps 9-10: @rel/@rev triples to the current object, or incomplete triples waiting
        for the children's subjects; returns the current object and the incomplete triples."""
        incomplete: list[Incomplete] = []
        if current_object is not None:  # Step 9
            assert new_subject is not None
            for predicate in rel_preds:
                if inlist:
                    lists.setdefault(predicate, []).append((current_object, el))
                else:
                    self.emit(new_subject, predicate, current_object, el)
            for predicate in rev_preds:
                self.emit(current_object, predicate, new_subject, el)
        elif rel_preds or rev_preds:  # Step 10
            current_object = self.new_bnode()
            for predicate in rel_preds:
                if inlist:
                    incomplete.append((predicate, LIST, lists.setdefault(predicate, [])))
                else:
                    incomplete.append((predicate, FORWARD, None))
            for predicate in rev_preds:
                incomplete.append((predicate, REVERSE, None))
        return current_object, incomplete

    def complete(self, el: etree._Element, ctx: Context, new_subject: Resource) -> None:
        """Step 12: the parent's incomplete triples get ``new_subject``."""
        for predicate, direction, target in ctx.incomplete:
            if direction == LIST:
                assert target is not None
                target.append((new_subject, el))
            elif direction == FORWARD:
                self.emit(ctx.parent_subject, predicate, new_subject, el)
            else:
                self.emit(new_subject, predicate, ctx.parent_subject, el)


def process(root: etree._Element, base: str) -> list[Triple]:
    """Run the processing sequence over ``root`` with base IRI ``base`` (raw, in order)."""
    return _Processor(root, base).run()


def process_bounded(
    root: etree._Element,
    base: str,
    max_elements: int | None,
    index: ElementIndex | None = None,
    skip: Callable[[str], bool] | None = None,
) -> tuple[list[Triple], bool]:
    """:func:`process`, stopping after ``max_elements`` elements carrying RDFa attributes;
    the flag says whether it stopped early. ``index``: the elements under ``root`` by
    attribute, if known. ``skip``: predicates the caller drops (a leaf that would only state
    their values is counted but not processed)."""
    processor = _Processor(root, base, max_elements, index, skip)
    return processor.run(), processor.truncated
