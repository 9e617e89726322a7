"""RDFa 1.1: triples from :mod:`structcrawl.extract.rdfa`, grouped into records by subject.

Every IRI subject becomes a record; a blank node becomes a record of its own only when no
other subject points at it, and is nested as a record value where one does. An IRI object
is a reference (``{"@id": iri}``), except under schema.org properties whose range includes
``URL`` or is only datatypes (``url``, ``image``, ``telephone``...: a plain string); typed and
language-tagged literals keep their datatype and language (``{"@value", "@type"}`` /
``{"@value", "@language"}``), the value model of :mod:`structcrawl.core.values`. schema.org
types and properties are shortened to local names; other vocabularies keep full IRIs. RDF
collections (``inlist``) become lists. ``raw`` holds the subject's triples in N-Triples form;
each property's provenance is the XPath of the element that produced the triple.

Open Graph and Twitter properties (``og:``, ``article:``, ``twitter:``... which RDFa also reads
from ``<meta property>``) are left to the ``opengraph`` layer, which keeps their structure
(which width belongs to which image); repeating them here would only pool those details.

Nothing is dropped: a blank node no record reaches (a cycle of blank nodes) gets a record of
its own. Bounds (``doc.limits``): a blank node nested deeper than ``max_nesting``
(``rdfa-too-deep``), already nested ``max_shared`` times over (blank nodes shared by several
subjects are nested in each), or met after ``max_items`` records (nested ones included) were
built or ``max_visits`` values placed in them (``rdfa-too-complex``), becomes a record of its
own, referenced by ``{"@id": "_:..."}``;
subjects after the ``max_items``-th top-level record are not read (``rdfa-too-many-items``).
"""

from __future__ import annotations

import re
from typing import Any

from structcrawl.core.document import Document
from structcrawl.core.records import Provenance, Record, error_record, short_schema_name
from structcrawl.core.values import make_literal, make_ref
from structcrawl.extract._actions import action_constraint
from structcrawl.extract._schemacontext import iri_as_string
from structcrawl.extract.rdfa._model import IRI, BNode, Literal, Triple
from structcrawl.extract.rdfa.diagnostics import diagnostics
from structcrawl.extract.rdfa.triples import document_triples

__all__ = [
    "FORMAT",
    "PARSER",
    "extract",
    "records_from_triples",
    "skipped_predicate",
    "value_attribute",
]

FORMAT = "rdfa"
PARSER = "structcrawl.extract.rdfa"
_RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDF_TYPE = _RDF + "type"
_SKIP_PREDICATES = frozenset({"http://www.w3.org/ns/rdfa#usesVocabulary"})
#: Open Graph namespaces, and the OG/Twitter prefixes pages use without declaring them.
_META_PREDICATE = re.compile(
    r"^(?:https?://ogp\.me/ns|https?://dev\.twitter\.com/cards"
    r"|(?:og|article|product|book|profile|music|video|fb|business|twitter):)"
)


def skipped_predicate(predicate: str) -> bool:
    """Whether records leave out triples with this predicate (``rdfa:usesVocabulary``, Open
    Graph and Twitter properties: the ``opengraph`` layer reports those)."""
    return predicate in _SKIP_PREDICATES or bool(_META_PREDICATE.match(predicate))


def _nt(term: Any) -> str:
    if isinstance(term, IRI):
        return f"<{term.value}>"
    if isinstance(term, BNode):
        return f"_:{term.id}"
    text = term.value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    if term.lang:
        return f'"{text}"@{term.lang}'
    if term.datatype:
        return f'"{text}"^^<{term.datatype}>'
    return f'"{text}"'


_OBJECT_ATTRIBUTES = ("resource", "href", "src", "data")


def value_attribute(triple: Triple) -> str:
    """The attribute of ``triple.element`` its object was read from: ``content``,
    ``datetime`` or ``property`` (the element's text) for a literal; ``resource``, ``href``,
    ``src``, ``data`` for an IRI; ``typeof`` for a new typed resource; ``about`` for a
    subject a hanging ``rel`` was completed with.

    >>> from lxml import etree
    >>> el = etree.fromstring('<a property="url" href="https://x.example/">x</a>')
    >>> value_attribute(Triple(IRI("s"), IRI("p"), IRI("https://x.example/"), el))
    'href'
    >>> value_attribute(Triple(IRI("s"), IRI("p"), Literal("x"), el))
    'property'
    """
    el = triple.element
    if isinstance(triple.object, Literal):
        if el.get("content") is not None:
            return "content"
        if el.get("datetime") is not None:
            return "datetime"
        return "property"
    for name in _OBJECT_ATTRIBUTES:
        if el.get(name) is not None:
            return name
    return "typeof" if el.get("typeof") is not None else "about"


def _constraint(prop: str, triple: Triple) -> str | None:
    """An action's ``query-input`` written on a form control (its text is always empty): the
    shorthand its attributes state (:mod:`structcrawl.extract._actions`)."""
    obj = triple.object
    if not isinstance(obj, Literal) or obj.value or obj.datatype:
        return None
    if triple.element.get("content") is not None:
        return None
    return action_constraint(prop, triple.element)


def _literal_raw(term: Literal) -> Any:
    return make_literal(term.value, term.datatype, term.lang)


class _Grouper:
    """Builds the records of one page's triples (see the module docstring)."""

    def __init__(self, triples: list[Triple], doc: Document):
        self.doc = doc
        self.limits = doc.limits
        self.by_subject: dict[Any, list[Triple]] = {}
        self.referenced: set[Any] = set()
        for t in triples:
            if skipped_predicate(t.predicate.value):
                continue
            self.by_subject.setdefault(t.subject, []).append(t)
            if isinstance(t.object, BNode) and t.object != t.subject:
                self.referenced.add(t.object)
        self.reached: set[Any] = set()  # subjects whose triples are in some record
        self.promoted: list[Any] = []  # blank nodes cut from nesting: records of their own
        self.counts = dict.fromkeys(
            ("built", "rebuilt", "placed", "too_deep", "too_complex", "shared"), 0
        )

    def as_list(self, node: Any) -> list[Triple] | None:
        """The ``rdf:first`` triples of a well-formed RDF collection at ``node``, else None."""
        items: list[Triple] = []
        seen: list[Any] = []
        while not (isinstance(node, IRI) and node.value == _RDF + "nil"):
            group = self.by_subject.get(node)
            if not isinstance(node, BNode) or node in seen or group is None or len(group) != 2:
                return None
            seen.append(node)
            preds = {t.predicate.value: t for t in group}
            if set(preds) != {_RDF + "first", _RDF + "rest"}:
                return None
            items.append(preds[_RDF + "first"])
            node = preds[_RDF + "rest"].object
        self.reached.update(seen)
        return items

    def nested(self, obj: BNode, inner: frozenset[Any], depth: int) -> Record | None:
        """The record of a blank node object nested in place, or None when a bound says it
        must be a record of its own (it is then promoted)."""
        limits, counts = self.limits, self.counts
        again = obj in self.reached and counts["rebuilt"] >= limits.max_shared
        if (
            depth < limits.max_nesting
            and not again
            and counts["built"] < limits.max_items
            and counts["placed"] < limits.max_visits
        ):
            return self.build(obj, inner, False, depth + 1)
        reason = "too_deep" if depth >= limits.max_nesting else "too_complex"
        counts["shared" if again and reason == "too_complex" else reason] += 1
        self.promoted.append(obj)
        return None

    def value(self, prop: str, obj: Any, inner: frozenset[Any], depth: int) -> tuple[Any, Any]:
        """``(value, raw)`` of one object term, in the value model of
        :mod:`structcrawl.core.values`."""
        if isinstance(obj, Literal):
            lit = _literal_raw(obj)
            return lit, lit
        if isinstance(obj, BNode):
            if obj in self.by_subject and obj not in inner:
                rec = self.nested(obj, inner, depth)
                if rec is not None:
                    return rec, None
            return make_ref(f"_:{obj.id}"), _nt(obj)
        if obj.value == _RDF + "nil":
            return [], []
        if iri_as_string(prop):
            return obj.value, obj.value
        return make_ref(obj.value), obj.value

    def build(self, subject: Any, building: frozenset[Any], top: bool, depth: int) -> Record:
        doc = self.doc
        group = self.by_subject[subject]
        if subject in self.reached:
            self.counts["rebuilt"] += 1
        self.reached.add(subject)
        self.counts["built"] += 1
        self.counts["placed"] += len(group)
        first = next((t for t in group if t.predicate.value == RDF_TYPE), group[0])
        rec = Record(
            source_url=doc.url,
            format=FORMAT,
            source_element=doc.path_of(first.element),
            provenance=Provenance(parser=PARSER),
            id=subject.value if isinstance(subject, IRI) else None,
            raw=[" ".join((_nt(t.subject), _nt(t.predicate), _nt(t.object))) for t in group]
            if top
            else None,
        )
        inner = building | {subject}
        for t in group:
            obj = t.object
            if t.predicate.value == RDF_TYPE and isinstance(obj, IRI):
                rec.type.append(short_schema_name(obj.value))
                continue
            prop = short_schema_name(t.predicate.value)
            items = self.as_list(obj) if isinstance(obj, BNode) else None
            if items is None:
                val, raw = self.value(prop, obj, inner, depth)
                shorthand = _constraint(prop, t)
                if shorthand:
                    val = raw = shorthand
                rec.add_value(prop, val, doc.path_of(t.element), raw)
                rec.provenance.fields[prop][-1].attribute = (
                    " ".join(w.partition("=")[0] for w in shorthand.split())
                    if shorthand
                    else value_attribute(t)
                )
                continue
            # an RDF collection (inlist): a list value, each item with its own element
            values = [self.value(prop, item.object, inner, depth) for item in items]
            current = rec.properties.get(prop, [])
            rec.properties[prop] = (current if isinstance(current, list) else [current]) + [
                v for v, _ in values
            ]
            for item, (_, raw) in zip(items, values, strict=True):
                rec.provenance.add(prop, doc.path_of(item.element), raw)
                rec.provenance.fields[prop][-1].attribute = value_attribute(item)
        return rec


def records_from_triples(triples: list[Triple], doc: Document) -> list[Record]:
    """Records of ``triples``: tops first (IRI subjects and unreferenced blank nodes), then
    blank nodes cut from nesting (the list grows while it is read), then any subject no
    record reached (blank nodes that only point at each other); these last two kinds carry
    their blank node label as id, so references to them resolve."""
    grouper = _Grouper(triples, doc)
    by_subject, limits = grouper.by_subject, doc.limits
    records: list[Record] = []
    tops = [s for s in by_subject if isinstance(s, IRI) or s not in grouper.referenced]
    emitted: set[Any] = set()
    unread = 0
    for queue in (tops, grouper.promoted, list(by_subject)):
        i = 0
        while i < len(queue):
            subject = queue[i]
            i += 1
            if subject in emitted or (queue is not grouper.promoted and subject in grouper.reached):
                continue
            emitted.add(subject)
            if len(records) >= limits.max_items:
                unread += 1
                continue
            rec = grouper.build(subject, frozenset(), True, 0)
            if queue is not tops:
                rec.id = f"_:{subject.id}"
            records.append(rec)
    return records + _bound_records(doc, grouper.counts, unread)


def _bound_records(doc: Document, counts: dict[str, int], unread: int) -> list[Record]:
    limits = doc.limits
    out = []
    if counts["too_deep"]:
        out.append(
            _error(
                doc,
                "rdfa-too-deep",
                f"{counts['too_deep']:,} blank nodes nested deeper than {limits.max_nesting} "
                "levels (max_nesting) are records of their own, referenced by @id",
            )
        )
    if counts["too_complex"]:
        out.append(
            _error(
                doc,
                "rdfa-too-complex",
                f"after {limits.max_items:,} records built (max_items, nested ones included) "
                f"or {limits.max_visits:,} values placed in them (max_visits; shared blank "
                f"nodes are nested in each subject), {counts['too_complex']:,} nested blank "
                "nodes became records of their own, referenced by @id",
            )
        )
    if counts["shared"]:
        out.append(
            _error(
                doc,
                "rdfa-too-complex",
                f"blank nodes shared by several subjects were nested again {limits.max_shared:,} "
                f"times (max_shared); {counts['shared']:,} more uses are references to records "
                "of their own",
            )
        )
    if unread:
        out.append(
            _error(
                doc,
                "rdfa-too-many-items",
                f"more than {limits.max_items:,} RDFa records (max_items): {unread:,} subjects "
                "were not read",
            )
        )
    return out


def _error(doc: Document, code: str, message: str) -> Record:
    return error_record(
        source_url=doc.url, format=FORMAT, code=code, message=message, parser=PARSER
    )


def extract(doc: Document) -> list[Record]:
    limits = doc.limits
    # records leave the Open Graph / Twitter triples out anyway
    triples, reached = document_triples(doc, skip=skipped_predicate)
    records = records_from_triples(triples, doc) + diagnostics(doc)
    if "max_elements" in reached:
        records.append(
            _error(
                doc,
                "rdfa-too-many-items",
                f"more than {limits.max_rdfa_elements:,} elements carry RDFa attributes "
                "(max_rdfa_elements): the page was read only up to there",
            )
        )
    if "max_copies" in reached:
        records.append(
            _error(
                doc,
                "rdfa-too-complex",
                f"rdfa:copy patterns would copy more than {limits.max_visits:,} triples "
                "(max_visits): the copies after that were left out",
            )
        )
    return records
