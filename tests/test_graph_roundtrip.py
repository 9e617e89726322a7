"""Records -> graph gives back the RDFa processor's triples, except what records leave out.

The list of what records leave out is written in :mod:`structcrawl.extract.graph._records`
and applied by :func:`~structcrawl.extract.graph._records.kept_by_records`; everything else
must come back: the RDFa records of a page, mapped back to RDF by
:func:`structcrawl.extract.graph.record_quads`, are isomorphic to the processor's triples as
records keep them. Pages: the RDFa fixtures and the W3C RDFa 1.1 HTML5 suite (pages where a
blank node is the object of several triples are left out: records nest it in each subject).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
import rdflib
from rdflib.compare import isomorphic

from structcrawl.core.document import parse_html
from structcrawl.extract.graph import LAYER_GRAPHS, Quad, page_graph, record_quads
from structcrawl.extract.graph._records import kept_by_records
from structcrawl.extract.rdfa import BNode, extract
from tests._conformance import CONFORMANCE_ROOT

ROOT = Path(__file__).resolve().parents[1] / "fixtures"
FIXTURES = sorted(p.parent for p in ROOT.glob("rdfa/*/page.html")) + [
    ROOT / "mixed" / "value-model",
    ROOT / "mixed" / "all-layers",
]
SUITE = CONFORMANCE_ROOT / "rdfa-html5"


def _graph(quads: list[Quad]) -> rdflib.Graph:
    graph = rdflib.Graph()
    for q in quads:
        terms = []
        for t in (q.subject, q.predicate, q.object):
            if isinstance(t, BNode):
                terms.append(rdflib.BNode(t.id))
            elif hasattr(t, "datatype"):
                terms.append(
                    rdflib.Literal(t.value, lang=t.lang, datatype=t.datatype, normalize=False)
                )
            else:
                terms.append(rdflib.URIRef(t.value))
        graph.add(tuple(terms))  # type: ignore[arg-type]
    return graph


def _round_trip(body: bytes, url: str) -> tuple[bool, str]:
    """(isomorphic, detail) for one page; None-like skip when blank nodes are shared."""
    doc = parse_html(body, url)
    processor = page_graph(doc, ["rdfa"]).quads
    records = [r.to_dict() for r in extract(doc) if r.kind == "entity"]
    expected = kept_by_records(processor)
    shared = Counter(q.object for q in expected if isinstance(q.object, BNode))
    if any(n > 1 for n in shared.values()):
        return True, "shared blank node"
    back = record_quads(records, LAYER_GRAPHS["rdfa"])
    a, b = _graph(expected), _graph(back)
    ok = isomorphic(a, b)
    return ok, f"processor:\n{a.serialize(format='nt')}\nrecords:\n{b.serialize(format='nt')}"


@pytest.mark.parametrize("case", FIXTURES, ids=[f"{p.parent.name}/{p.name}" for p in FIXTURES])
def test_fixture_records_give_back_the_triples(case: Path) -> None:
    meta = json.loads((case / "meta.json").read_text("utf-8"))
    ok, detail = _round_trip((case / "page.html").read_bytes(), meta["url"])
    assert ok, detail


def test_conformance_pages_round_trip(conformance_report) -> None:
    """Every W3C RDFa HTML5 page whose blank nodes are not shared round-trips."""
    if not (SUITE / "manifest.jsonl").is_file():
        pytest.skip("RDFa suite missing")
    cases = [json.loads(line) for line in (SUITE / "manifest.jsonl").read_text().splitlines()]
    failed, skipped = [], 0
    for case in cases:
        ok, detail = _round_trip((SUITE / case["html"]).read_bytes(), case["base_url"])
        skipped += detail == "shared blank node"
        if not ok:
            failed.append(case["id"])
    conformance_report(
        "rdfa-html5 round trip (records -> graph)",
        len(cases) - len(failed) - skipped,
        len(cases) - skipped,
        {f: "differs" for f in failed},
    )
    assert not failed, failed
