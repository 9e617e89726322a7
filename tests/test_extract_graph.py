"""The graph export: N-Quads and expanded JSON-LD of a page's structured layers."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import rdflib

from structcrawl.commandline import main
from structcrawl.core.document import parse_html
from structcrawl.crawl.exporters import GraphNQuadsExporter
from structcrawl.crawl.items import PageItem
from structcrawl.extract.graph import LAYER_GRAPHS, page_graph, render_graph, to_nquads
from structcrawl.extract.jsonld_html import offline_document_loader

pytestmark = pytest.mark.filterwarnings(
    "ignore:Dataset.default_context is deprecated:DeprecationWarning"  # rdflib's own parser
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
XSD = "http://www.w3.org/2001/XMLSchema#"
S = "http://schema.org/"


def dataset(text: str) -> rdflib.Dataset:
    ds = rdflib.Dataset()
    ds.parse(data=text, format="nquads")
    return ds


def quads_of(html: str, url: str = "https://a.example/p/1", **kw) -> str:
    return to_nquads(page_graph(parse_html(html.encode(), url), **kw).quads)


def test_value_model_page_in_all_three_layers() -> None:
    body = (FIXTURES / "mixed/value-model/page.html").read_bytes()
    graph = page_graph(parse_html(body, "https://press.example/books/atlas"))
    ds = dataset(to_nquads(graph.quads))
    book = rdflib.URIRef("https://press.example/books/atlas#book")
    names = {str(g.identifier) for g in ds.graphs() if len(g)}
    assert {v.value for v in LAYER_GRAPHS.values()} <= names
    by_layer = {layer: ds.graph(rdflib.URIRef(iri.value)) for layer, iri in LAYER_GRAPHS.items()}
    pages = rdflib.URIRef(S + "numberOfPages")
    typed = rdflib.Literal("212", datatype=rdflib.URIRef(XSD + "integer"))
    assert (book, pages, typed) in by_layer["json-ld"] and (book, pages, typed) in by_layer["rdfa"]
    name = rdflib.Literal("Atlas des marées", lang="fr")
    assert (book, rdflib.URIRef(S + "name"), name) in by_layer["json-ld"]
    author = rdflib.URIRef("https://press.example/people/ines#me")
    for layer in by_layer.values():  # a reference is an IRI in every layer
        assert (book, rdflib.URIRef(S + "author"), author) in layer
        # url (a URL property, a string in records) is an IRI in the graph, resolved
        url = rdflib.URIRef("https://press.example/books/atlas")
        assert (book, rdflib.URIRef(S + "url"), url) in layer
    assert graph.problems == []


def test_blank_nodes_are_stable_within_a_page() -> None:
    html = (
        '<script type="application/ld+json">{"@context": "https://schema.org", "@type": "Product",'
        '"offers": {"@type": "Offer", "price": "3"}}</script><div itemscope '
        'itemtype="https://schema.org/Thing"><span itemprop="name">x</span></div>'
    )
    first, second = quads_of(html), quads_of(html)
    assert first == second
    assert "_:b0 " in first and "_:b1 " in first and "_:b2 " in first


def test_jsonld_resolves_relative_iris_against_base_and_never_fetches() -> None:
    html = (
        '<base href="https://cdn.example/x/"><script type="application/ld+json">'
        '{"@context": "https://schema.org", "@id": "#it", "@type": "Thing", "image": "a.png"}'
        '</script><script type="application/ld+json">{"@context": "https://ctx.example/c.jsonld",'
        ' "@type": "Thing"}</script>'
    )
    graph = page_graph(parse_html(html.encode(), "https://a.example/p/1"), ["json-ld"])
    text = to_nquads(graph.quads)
    assert (
        "<https://cdn.example/x/#it> <http://schema.org/image> <https://cdn.example/x/a.png>"
        in text
    )
    ((layer, _element, message),) = graph.problems  # the remote context is refused
    assert layer == "json-ld" and "loading remote context failed" in message
    with pytest.raises(Exception, match="never fetches"):
        offline_document_loader("https://ctx.example/c.jsonld")


def test_microdata_mapping() -> None:
    text = quads_of(
        '<html lang="en"><body><div itemscope itemtype="https://schema.org/Event" itemid="#e">'
        '<span itemprop="name">Gig</span><time itemprop="startDate" datetime="2025-03-01">March'
        '</time><a itemprop="url" href="/e">e</a><div itemprop="location" itemscope '
        'itemtype="https://schema.org/Place"><span itemprop="name" lang="de">Halle</span></div>'
        '</div><div itemscope itemtype="http://purl.org/goodrelations/v1#Offering">'
        '<span itemprop="name">O</span></div></body></html>',
        syntaxes=["microdata"],
    )
    g = f"<{LAYER_GRAPHS['microdata'].value}>"
    assert f'<https://a.example/p/1#e> <{S}name> "Gig"@en {g} .' in text
    assert f'<{S}startDate> "2025-03-01"^^<{XSD}date>' in text
    assert f"<https://a.example/p/1#e> <{S}url> <https://a.example/e>" in text
    assert f"<{S}location> _:b0" in text and f'_:b0 <{S}name> "Halle"@de' in text
    assert "<http://purl.org/goodrelations/v1#name>" in text
    assert f"<{S}Event>" in text and "https://schema.org/" not in text  # one spelling


def test_rdfa_keeps_every_triple() -> None:
    text = quads_of(
        '<html prefix="og: http://ogp.me/ns#"><head><meta property="og:title" content="T">'
        '</head><body vocab="http://schema.org/" typeof="WebPage"><span property="name">N</span>'
        "</body></html>",
        syntaxes=["rdfa"],
    )
    assert "<http://www.w3.org/ns/rdfa#usesVocabulary> <http://schema.org/>" in text
    assert '<http://ogp.me/ns#title> "T"' in text  # left to the opengraph layer in records


def test_expanded_jsonld_output_and_cli(tmp_path: Path, capsys) -> None:
    page = tmp_path / "page.html"
    page.write_bytes((FIXTURES / "rdfa/datatype/page.html").read_bytes())
    url = "https://shop.example/p/linen-apron/offer"
    assert main(["extract", str(page), "--base-url", url, "--format", "jsonld"]) == 0
    doc = json.loads(capsys.readouterr().out)
    (rdfa,) = [g for g in doc if g["@id"] == LAYER_GRAPHS["rdfa"].value]
    offer = next(n for n in rdfa["@graph"] if n["@id"].endswith("#offer"))
    assert offer["https://schema.org/price"] == [{"@value": "28.00", "@type": XSD + "decimal"}]
    assert main(["extract", str(page), "--base-url", url, "--format", "nquads"]) == 0
    printed = capsys.readouterr().out
    graph = page_graph(parse_html(page.read_bytes(), url))
    assert printed == render_graph(graph, "nquads")


def test_graph_feed_labels_blank_nodes_per_page() -> None:
    html = b'<div itemscope itemtype="https://schema.org/Thing"><b itemprop="name">x</b></div>'
    buf = io.BytesIO()
    exporter = GraphNQuadsExporter(buf)
    exporter.start_exporting()
    for n in (1, 2):
        url = f"https://a.example/{n}"
        item = PageItem(url=url, final_url=url, body=html, content_type="text/html")
        exporter.export_item(item)
    exporter.finish_exporting()
    lines = buf.getvalue().decode().splitlines()
    assert len(lines) == 4
    assert {line.split()[0] for line in lines} == {"_:p0b0", "_:p1b0"}
    assert len(dataset("\n".join(lines) + "\n")) == 4
