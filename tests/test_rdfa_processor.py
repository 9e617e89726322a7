"""Focused tests of :mod:`structcrawl.extract.rdfa` beyond the W3C suite."""

from __future__ import annotations

import sys

import lxml.html
import pytest

from structcrawl.core.document import parse_html
from structcrawl.extract.rdfa import IRI, BNode, Literal, Triple, rdfa_triples

URL = "http://example.test/dir/page.html"
OG = "http://ogp.me/ns#"
SCHEMA = "http://schema.org/"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
XSD = "http://www.w3.org/2001/XMLSchema#"
XHV = "http://www.w3.org/1999/xhtml/vocab#"
EX = "http://example.org/"
DOC = IRI(URL)


def extract(html: str, url: str = URL) -> list[Triple]:
    doc = parse_html(html.encode("utf-8"), url)
    return rdfa_triples(doc.root, url)


def spo(triples: list[Triple]) -> list[tuple[object, object, object]]:
    return [(t.subject, t.predicate, t.object) for t in triples]


def objects(triples: list[Triple], subject: object, predicate: str) -> list[object]:
    return [t.object for t in triples if t.subject == subject and t.predicate == IRI(predicate)]


def list_items(triples: list[Triple], head: object) -> list[object]:
    """Walk an rdf:first/rdf:rest chain."""
    items = []
    while head != IRI(RDF + "nil"):
        items.append(objects(triples, head, RDF + "first")[0])
        head = objects(triples, head, RDF + "rest")[0]
    return items


# -- Open Graph, the common case -------------------------------------------------------------

OG_HEAD = """
<meta property="og:title" content="The Title">
<meta property="og:type" content="article">
<meta property="og:image" content="http://example.test/a.png">
<meta name="description" content="not RDFa">
"""


def test_open_graph_with_prefix_declaration() -> None:
    html = f'<!DOCTYPE html><html prefix="og: {OG}"><head>{OG_HEAD}</head><body></body></html>'
    triples = extract(html)
    assert spo(triples) == [
        (DOC, IRI(OG + "title"), Literal("The Title")),
        (DOC, IRI(OG + "type"), Literal("article")),
        (DOC, IRI(OG + "image"), Literal("http://example.test/a.png")),
    ]
    tree = triples[0].element.getroottree()
    assert [tree.getpath(t.element) for t in triples] == [
        "/html/head/meta[1]",
        "/html/head/meta[2]",
        "/html/head/meta[3]",
    ]


def test_open_graph_without_prefix_uses_initial_context() -> None:
    html = f"<!DOCTYPE html><html><head>{OG_HEAD}</head><body><p>text</p></body></html>"
    assert spo(extract(html)) == [
        (DOC, IRI(OG + "title"), Literal("The Title")),
        (DOC, IRI(OG + "type"), Literal("article")),
        (DOC, IRI(OG + "image"), Literal("http://example.test/a.png")),
    ]


def test_open_graph_language_from_html_lang() -> None:
    html = '<html lang="en-GB"><head><meta property="og:title" content="Hi"></head></html>'
    assert spo(extract(html)) == [(DOC, IRI(OG + "title"), Literal("Hi", lang="en-gb"))]


def test_page_without_rdfa_yields_nothing() -> None:
    html = (
        '<html><head><link rel="stylesheet" href="/s.css"></head><body>'
        + ('<div class="x"><a href="/y" rel="nofollow">y</a><img src="/i.png"></div>' * 20)
        + "</body></html>"
    )
    assert extract(html) == []


# -- prefixes ------------------------------------------------------------------------------


def test_declared_prefix_overrides_initial_context() -> None:
    html = f'<html prefix="og: {EX}og#"><head><meta property="og:title" content="x"></head></html>'
    assert spo(extract(html)) == [(DOC, IRI(EX + "og#title"), Literal("x"))]


def test_prefix_is_local_to_its_subtree() -> None:
    html = f"""<html><body>
      <div prefix="ex: {EX}"><span property="ex:a">1</span></div>
      <div><span property="ex:b">2</span></div>
    </body></html>"""
    # Out of scope "ex:b" is no CURIE. RDFa 1.1 to the letter reads it as the absolute IRI
    # <ex:b>; an undeclared prefix is a mistake, not a scheme, so it is ignored (and the
    # records layer reports it: rdfa-undefined-prefix). "urn:" and "//" IRIs still pass.
    assert spo(extract(html)) == [(DOC, IRI(EX + "a"), Literal("1"))]
    kept = '<html><body><span property="urn:x:y">1</span><span property="zz://h/p">2</span>'
    assert spo(extract(kept + "</body></html>")) == [
        (DOC, IRI("urn:x:y"), Literal("1")),
        (DOC, IRI("zz://h/p"), Literal("2")),
    ]


def test_xmlns_declaration_and_case_insensitive_prefix() -> None:
    html = f"""<html xmlns:Foo="{EX}foo/"><body prefix="BAR: {EX}bar/">
      <span property="FOO:x">1</span><span property="bar:y">2</span>
    </body></html>"""
    assert spo(extract(html)) == [
        (DOC, IRI(EX + "foo/x"), Literal("1")),
        (DOC, IRI(EX + "bar/y"), Literal("2")),
    ]


def test_prefix_attribute_tolerates_garbage() -> None:
    html = f"""<html prefix="broken ex:{EX}nospace _: {EX}blank/ ok: {EX}ok/ dangling:">
      <body><span property="ok:p">v</span><span property="ex:q">w</span></body></html>"""
    # "ex:" was never declared (no whitespace after the colon), so ex:q is an undefined
    # prefix: ignored (not read as an IRI of the scheme "ex").
    assert spo(extract(html)) == [(DOC, IRI(EX + "ok/p"), Literal("v"))]


def test_malformed_curies_and_terms_are_ignored() -> None:
    html = f"""<html prefix="ex: {EX}"><body>
      <div about="[nope:thing]">
        <span property="[ex:p] _:b 1abc undefinedterm ex:good">v</span>
      </div>
      <span property="">empty</span>
      <span rel="nofollow" property="ex:other">o</span>
      <span property=":">default prefix</span>
    </body></html>"""
    triples = extract(html)
    assert spo(triples) == [
        (DOC, IRI(EX + "good"), Literal("v")),
        (DOC, IRI(EX + "other"), Literal("o")),
        (DOC, IRI(XHV), Literal("default prefix")),
    ]


def test_blank_node_predicates_are_rejected() -> None:
    html = '<html><body><span property="_:p" rel="_:q" href="/x">v</span></body></html>'
    assert extract(html) == []


# -- vocab and terms -------------------------------------------------------------------------


def test_vocab_emits_uses_vocabulary_and_resolves_terms() -> None:
    html = f"""<html><body>
      <div vocab="{SCHEMA}" typeof="Person"><span property="name">Ann</span>
        <div vocab=""><span property="name">ignored</span>
          <a rel="license" href="/lic">license is an initial-context term</a></div>
      </div>
    </body></html>"""
    triples = extract(html)
    person = triples[1].subject
    assert isinstance(person, BNode)
    assert spo(triples) == [
        (DOC, IRI("http://www.w3.org/ns/rdfa#usesVocabulary"), IRI(SCHEMA)),
        (person, IRI(RDF + "type"), IRI(SCHEMA + "Person")),
        (person, IRI(SCHEMA + "name"), Literal("Ann")),
        (person, IRI(XHV + "license"), IRI("http://example.test/lic")),
    ]


def test_vocab_overrides_initial_terms_and_terms_are_case_insensitive() -> None:
    html = f"""<html><body>
      <a rel="LICENSE" href="/a">a</a>
      <div vocab="{EX}"><a rel="license" href="/b">b</a></div>
    </body></html>"""
    pairs = [(t.predicate, t.object) for t in extract(html)]
    assert (IRI(XHV + "license"), IRI("http://example.test/a")) in pairs
    assert (IRI(EX + "license"), IRI("http://example.test/b")) in pairs


# -- subjects ----------------------------------------------------------------------------------


def test_subject_inherited_through_nested_elements() -> None:
    html = f"""<html prefix="ex: {EX}"><body>
      <div about="/thing">
        <section><div><p><span property="ex:name">Deep</span></p></div></section>
        <div resource="/other"><em><span property="ex:name">Other</span></em></div>
        <a href="/linked"><b property="ex:name">Linked</b></a>
        <span property="ex:after">Back</span>
      </div>
    </body></html>"""
    assert spo(extract(html)) == [
        (IRI("http://example.test/thing"), IRI(EX + "name"), Literal("Deep")),
        (IRI("http://example.test/other"), IRI(EX + "name"), Literal("Other")),
        (IRI("http://example.test/linked"), IRI(EX + "name"), Literal("Linked")),
        (IRI("http://example.test/thing"), IRI(EX + "after"), Literal("Back")),
    ]


def test_hanging_rel_is_completed_by_descendants() -> None:
    html = f"""<html prefix="ex: {EX}"><body>
      <div about="/a" rel="ex:knows">
        <p><a href="/b">B</a></p>
        <span typeof="ex:Person"><span property="ex:name">C</span></span>
      </div>
    </body></html>"""
    triples = extract(html)
    a = IRI("http://example.test/a")
    knows = objects(triples, a, EX + "knows")
    assert knows[0] == IRI("http://example.test/b")
    assert isinstance(knows[1], BNode)
    assert objects(triples, knows[1], RDF + "type") == [IRI(EX + "Person")]
    assert objects(triples, knows[1], EX + "name") == [Literal("C")]


def test_typeof_on_body_and_head_types_the_document() -> None:
    html = f"""<html><head typeof="{SCHEMA}WebSite"></head>
      <body vocab="{SCHEMA}" typeof="WebPage"><h1 property="name">Home</h1></body></html>"""
    triples = extract(html)
    assert (DOC, IRI(RDF + "type"), IRI(SCHEMA + "WebSite")) in spo(triples)
    assert (DOC, IRI(RDF + "type"), IRI(SCHEMA + "WebPage")) in spo(triples)
    assert (DOC, IRI(SCHEMA + "name"), Literal("Home")) in spo(triples)


def test_rel_without_curie_is_muted_next_to_property() -> None:
    html = f"""<html><body vocab="{SCHEMA}"><div typeof="Person">
      <a href="http://x.test/" property="url" rel="nofollow noopener">X</a>
      <a href="http://y.test/" property="url" rel="nofollow xhv:bookmark">Y</a>
    </div></body></html>"""
    triples = extract(html)
    person = triples[1].subject
    assert objects(triples, person, SCHEMA + "url") == [
        IRI("http://x.test/"),
        Literal("Y"),
    ]
    assert objects(triples, person, XHV + "bookmark") == [IRI("http://y.test/")]


# -- base ----------------------------------------------------------------------------------------


def test_base_href_is_applied_and_fragment_dropped() -> None:
    html = f"""<html prefix="ex: {EX}"><head><base href="/other/#frag"></head>
      <body><span property="ex:p">v</span><a about="x" rel="ex:q" href="y?">l</a>
      <span about="#me" property="ex:r">m</span></body></html>"""
    base = IRI("http://example.test/other/")
    assert spo(extract(html)) == [
        (base, IRI(EX + "p"), Literal("v")),
        (IRI("http://example.test/other/x"), IRI(EX + "q"), IRI("http://example.test/other/y?")),
        (IRI("http://example.test/other/#me"), IRI(EX + "r"), Literal("m")),
    ]


def test_javascript_base_is_ignored() -> None:
    html = (
        '<html><head><base href="javascript:alert(1)"></head><body about="">'
        '<span property="dc:title">t</span></body></html>'
    )
    assert spo(extract(html)) == [(DOC, IRI("http://purl.org/dc/terms/title"), Literal("t"))]


# -- literals ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("markup", "expected"),
    [
        ('datetime="2012-03-18">x</time>', Literal("2012-03-18", XSD + "date")),
        ('datetime="00:00:00">x</time>', Literal("00:00:00", XSD + "time")),
        (
            'datetime="2012-03-18T10:20:30-08:00">x</time>',
            Literal("2012-03-18T10:20:30-08:00", XSD + "dateTime"),
        ),
        ('datetime="P2DT3H">x</time>', Literal("P2DT3H", XSD + "duration")),
        ('datetime="2012">x</time>', Literal("2012", XSD + "gYear")),
        ('datetime="2012-03">x</time>', Literal("2012-03", XSD + "gYearMonth")),
        ('datetime="next week">x</time>', Literal("next week", lang="en")),
        (">2012-03-18</time>", Literal("2012-03-18", XSD + "date")),
        ("> 2012-03-18</time>", Literal(" 2012-03-18", lang="en")),
        ('datetime="2012" content="c">x</time>', Literal("c", lang="en")),
        ('datetime="2012" datatype="xsd:string">x</time>', Literal("2012", XSD + "string")),
    ],
)
def test_time_datetime_typing(markup: str, expected: Literal) -> None:
    html = f'<html lang="en" prefix="ex: {EX}"><body><time property="ex:v" {markup}</body></html>'
    assert [t.object for t in extract(html)] == [expected]


def test_datetime_on_other_elements() -> None:
    html = f'<html prefix="ex: {EX}"><body><del property="ex:v" datetime="2012-03-18">x</del>'
    assert [t.object for t in extract(html)] == [Literal("2012-03-18", XSD + "date")]


def test_language_rules() -> None:
    html = f"""<html lang="fr" prefix="ex: {EX}"><body>
      <p property="ex:a">un</p>
      <p xml:lang="de" lang="it" property="ex:b">zwei</p>
      <p lang="" property="ex:c">none</p>
      <p property="ex:d" datatype="xsd:string">typed</p>
      <p property="ex:e" datatype="" content="empty datatype">x</p>
    </body></html>"""
    assert [t.object for t in extract(html)] == [
        Literal("un", lang="fr"),
        Literal("zwei", lang="de"),
        Literal("none"),
        Literal("typed", XSD + "string"),
        Literal("empty datatype", lang="fr"),
    ]


def test_xml_and_html_literals_keep_markup() -> None:
    html = f"""<html prefix="ex: {EX}"><body>
      <p property="ex:x" datatype="rdf:XMLLiteral">E = mc<sup>2</sup> &amp; more</p>
      <p property="ex:h" datatype="rdf:HTML">a <b class="c">b</b><br></p>
      <p property="ex:t">E = mc<sup>2</sup> <!-- hidden --> &amp; more</p>
    </body></html>"""
    xml_lit, html_lit, text = (t.object for t in extract(html))
    assert xml_lit == Literal(
        'E = mc<sup xmlns="http://www.w3.org/1999/xhtml">2</sup> &amp; more', RDF + "XMLLiteral"
    )
    assert html_lit == Literal('a <b class="c">b</b><br>', RDF + "HTML")
    assert text == Literal("E = mc2  & more")


def test_property_resource_and_typed_resource_values() -> None:
    html = f"""<html prefix="ex: {EX}"><body about="/s">
      <a property="ex:link" href="/target">ignored text</a>
      <img property="ex:img" src="/i.png">
      <div property="ex:child" typeof="ex:Thing"><span property="ex:name">n</span></div>
    </body></html>"""
    triples = extract(html)
    s = IRI("http://example.test/s")
    assert objects(triples, s, EX + "link") == [IRI("http://example.test/target")]
    assert objects(triples, s, EX + "img") == [IRI("http://example.test/i.png")]
    (child,) = objects(triples, s, EX + "child")
    assert isinstance(child, BNode)
    assert objects(triples, child, EX + "name") == [Literal("n")]


# -- lists ---------------------------------------------------------------------------------------


def test_inlist_builds_ordered_lists() -> None:
    html = f"""<html prefix="ex: {EX}"><body><div about="/s">
      <span property="ex:items" inlist>one</span>
      <a rel="ex:items" inlist href="/two">two</a>
      <span property="ex:items" inlist>three</span>
      <ol rel="ex:links" inlist><li><a href="/a">a</a></li><li><a href="/b">b</a></li></ol>
      <span rel="ex:empty" inlist></span>
      <span property="ex:plain">not a list</span>
    </div></body></html>"""
    triples = extract(html)
    s = IRI("http://example.test/s")
    (items,) = objects(triples, s, EX + "items")
    assert list_items(triples, items) == [
        Literal("one"),
        IRI("http://example.test/two"),
        Literal("three"),
    ]
    (links,) = objects(triples, s, EX + "links")
    assert list_items(triples, links) == [
        IRI("http://example.test/a"),
        IRI("http://example.test/b"),
    ]
    assert objects(triples, s, EX + "empty") == [IRI(RDF + "nil")]
    assert objects(triples, s, EX + "plain") == [Literal("not a list")]


# -- property copying ------------------------------------------------------------------------------


def test_property_copying_replaces_pattern() -> None:
    html = f"""<html><body vocab="{SCHEMA}">
      <div resource="/p1" typeof="Product"><link property="rdfa:copy" href="#shared"></div>
      <div resource="/p2" typeof="Product"><link property="rdfa:copy" href="#shared"></div>
      <div resource="#shared" typeof="rdfa:Pattern"><span property="brand">ACME</span></div>
    </body></html>"""
    triples = extract(html)
    for product in ("http://example.test/p1", "http://example.test/p2"):
        assert objects(triples, IRI(product), SCHEMA + "brand") == [Literal("ACME")]
    shared = IRI(URL + "#shared")
    assert not [t for t in triples if shared in (t.subject, t.object)]
    assert not [t for t in triples if t.predicate == IRI("http://www.w3.org/ns/rdfa#copy")]


# -- output contract ---------------------------------------------------------------------------


def test_no_duplicates_and_document_order() -> None:
    html = f"""<html prefix="ex: {EX}"><body>
      <span property="ex:a">1</span><span property="ex:a">1</span><span property="ex:b">2</span>
    </body></html>"""
    triples = extract(html)
    assert spo(triples) == [(DOC, IRI(EX + "a"), Literal("1")), (DOC, IRI(EX + "b"), Literal("2"))]
    assert triples[0].element.getroottree().getpath(triples[0].element) == "/html/body/span[1]"


def test_terms_are_hashable_and_distinct() -> None:
    assert IRI("x") != BNode("x")
    assert Literal("x") != Literal("x", lang="en")
    assert len({IRI("a"), IRI("a"), BNode("a"), Literal("a"), Literal("a")}) == 3
    with pytest.raises(AttributeError):
        IRI("a").value = "b"  # type: ignore[misc]


def test_author_and_generated_blank_nodes_never_collide() -> None:
    html = f"""<html prefix="ex: {EX}"><body>
      <div about="_:g1" property="ex:author">a</div>
      <div typeof="ex:T" property="ex:generated">b</div>
      <div about="[_:g1]" property="ex:again">c</div>
    </body></html>"""
    triples = extract(html)
    author = [t.subject for t in triples if t.predicate == IRI(EX + "author")][0]
    generated = [t.subject for t in triples if t.predicate == IRI(RDF + "type")][0]
    again = [t.subject for t in triples if t.predicate == IRI(EX + "again")][0]
    assert author == again
    assert author != generated


def test_comments_and_processing_instructions_are_skipped() -> None:
    html = f"""<html prefix="ex: {EX}"><body><!-- c --><?pi x?>
      <p property="ex:p">a<!-- b -->c</p></body></html>"""
    assert [t.object for t in extract(html)] == [Literal("ac")]


def test_very_deep_nesting_does_not_recurse() -> None:
    depth = 5000
    root = lxml.html.Element("html")
    body = lxml.html.Element("body")
    body.set("vocab", SCHEMA)
    root.append(body)
    current = body
    for i in range(depth):
        div = lxml.html.Element("div")
        div.set("typeof", "Thing")
        current.append(div)
        span = lxml.html.Element("span")
        span.set("property", "name")
        span.text = str(i)
        div.append(span)
        current = div
    limit = sys.getrecursionlimit()
    triples = rdfa_triples(root, URL)
    assert sys.getrecursionlimit() == limit
    names = [t for t in triples if t.predicate == IRI(SCHEMA + "name")]
    assert len(names) == depth
    assert names[-1].object == Literal(str(depth - 1))
    deepest = names[-1].element.getroottree().getpath(names[-1].element)
    assert deepest.count("/div") == depth


_SKIP_CASES = [
    # Open Graph metas beside schema.org data, chained subjects, hanging rels and lists
    '<html prefix="og: http://ogp.me/ns#"><head><meta property="og:title" content="T">'
    '<meta property="og:image" content="/i.png"><meta property="og:title schema:name"'
    ' content="both"></head><body vocab="http://schema.org/" typeof="Article">'
    '<span property="name">A</span><div rel="author"><meta property="og:x" content="1">'
    '<span typeof="Person"><meta property="name" content="P"></span></div>'
    '<ul><li property="keywords" inlist>a</li><meta property="og:y" content="2"></ul>'
    "</body></html>",
    # a meta with more than @property/@content, twitter names read as IRIs, an rdfa:copy page
    '<html><head><meta property="og:url" about="#x" content="u"><meta property="twitter:card"'
    ' content="c"><meta property="og:locale" lang="de" content="de_DE"></head><body>'
    '<div typeof="rdfa:Pattern" resource="#p"><meta property="og:site" content="s">'
    '<span property="schema:name">N</span></div>'
    '<div resource="#t"><link property="rdfa:copy" href="#p"></div></body></html>',
]


@pytest.mark.parametrize("html", _SKIP_CASES)
def test_skipping_dropped_predicates_changes_no_record(html: str) -> None:
    """Records leave Open Graph and Twitter triples out, so the processor may skip the leaves
    that only state them: the records are the same as from every triple."""
    from structcrawl.extract.rdfa.records import records_from_triples, skipped_predicate
    from structcrawl.extract.rdfa.triples import rdfa_triples_bounded

    doc = parse_html(html.encode("utf-8"), URL)
    full, _ = rdfa_triples_bounded(doc.root, URL)
    kept, _ = rdfa_triples_bounded(doc.root, URL, index=doc.index(), skip=skipped_predicate)
    assert [t for t in full if not skipped_predicate(t.predicate.value)] == [
        t for t in kept if not skipped_predicate(t.predicate.value)
    ]
    assert any(skipped_predicate(t.predicate.value) for t in full)
    as_dicts = [r.to_dict() for r in records_from_triples(full, doc)]
    assert [r.to_dict() for r in records_from_triples(kept, doc)] == as_dicts
    assert as_dicts  # the pages carry records beside their Open Graph tags
