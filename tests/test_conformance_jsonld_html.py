"""JSON-LD 1.1 API conformance, HTML cases (``jsonld-html/html-manifest.jsonld``).

The suite tests the HTML Content Algorithms of the JSON-LD 1.1 API (§9.5 "Process HTML" and
§9.5.2 "Extract Script Content"): which ``<script type="application/ld+json">`` elements are
read, what the document base is, and which errors are raised. Those parts are structcrawl's:

* the page is parsed with :func:`structcrawl.core.document.parse_html`;
* the JSON-LD document is :func:`structcrawl.extract.jsonld_html.load_html_jsonld`: the first
  script by default, all of them with ``extractAllScripts``, the one with the ``#fragment`` id
  when the input URL has one; strict JSON; the errors ``invalid script element`` and
  ``loading document failed`` (:class:`~structcrawl.extract.jsonld_html.JsonLdHtmlError`);
* the base IRI is ``Document.base_url``: ``<base href>`` resolved against the document URL,
  where the test's ``base`` option, when given, stands in for the document URL (te019-te021:
  an absolute ``<base href>`` wins over the option, a relative one resolves against it);
* expansion and RDF run with the product's options
  (:func:`~structcrawl.extract.jsonld_html.expand_options`: JSON-LD 1.1, the offline document
  loader), and toRdf cases are judged on the product's graph export
  (:func:`structcrawl.extract.graph.jsonld_document_nquads`).

The JSON-LD algorithms themselves (expansion, compaction, flattening, RDF conversion) are
PyLD's, as in the product; their output is compared with the expected documents using the suite's "JSON-LD object
comparison" (arrays unordered except ``@list``, compacted results also compared re-expanded)
and, for N-Quads, RDF dataset isomorphism via rdflib.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
import rdflib
from pyld import jsonld
from rdflib.compare import isomorphic
from rdflib.graph import DATASET_DEFAULT_GRAPH_ID

from structcrawl.core.document import Document, parse_html
from structcrawl.extract import jsonld as structcrawl_jsonld
from structcrawl.extract.graph import jsonld_document_nquads
from structcrawl.extract.jsonld_html import JsonLdHtmlError, expand_options, load_html_jsonld
from tests._conformance import suite_dir

pytestmark = [
    pytest.mark.conformance,
    # rdflib's own N-Quads parser trips its own deprecation; nothing for this project to fix
    pytest.mark.filterwarnings("ignore:Dataset.default_context is deprecated:DeprecationWarning"),
]

SUITE = suite_dir("jsonld-html")
MANIFEST: dict[str, Any] = json.loads((SUITE / "html-manifest.jsonld").read_text("utf-8"))
BASE_IRI: str = MANIFEST["baseIri"]
CASES: list[dict[str, Any]] = MANIFEST["sequence"]

#: The manifest this file was written against lists 50 tests; a different count means the
#: suite changed and the expectations below need a look.
EXPECTED_CASE_COUNT = 50

#: Test id -> why structcrawl (with PyLD) does not pass it yet. Each is ``xfail(strict=True)``,
#: so a case that starts passing must be taken off this list.
KNOWN_FAILURES: dict[str, str] = {}

#: ``extractAllScripts`` when a test does not set it. JsonLdOptions defaults it to false, and
#: "tf004 Flattens first script element by default" holds flatten() to that. toRdf() extracts
#: all scripts by default: "tr006 Expands as empty with no embedded JSON-LD script elements" is
#: a positive test without the option (it would be "loading document failed" with false); the
#: REC text says nothing of it, w3c/json-ld-api#603 asks for toRdf() to default to true.
EXTRACT_ALL_DEFAULT = {"expand": False, "compact": False, "flatten": False, "toRdf": True}

_TEST_KINDS = {
    "jld:ExpandTest": "expand",
    "jld:CompactTest": "compact",
    "jld:FlattenTest": "flatten",
    "jld:ToRDFTest": "toRdf",
}


# --- one case -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    id: str
    kind: str  # expand | compact | flatten | toRdf
    positive: bool
    name: str
    input: str
    expect: str | None
    error: str | None
    context: str | None
    options: dict[str, Any]

    @classmethod
    def from_manifest(cls, entry: dict[str, Any]) -> Case:
        types = entry["@type"]
        (kind,) = [_TEST_KINDS[t] for t in types if t in _TEST_KINDS]
        return cls(
            id=entry["@id"],
            kind=kind,
            positive="jld:PositiveEvaluationTest" in types,
            name=entry["name"],
            input=entry["input"],
            expect=entry.get("expect"),
            error=entry.get("expectErrorCode"),
            context=entry.get("context"),
            options=dict(entry.get("option", {})),
        )

    @property
    def extract_all_scripts(self) -> bool:
        return bool(self.options.get("extractAllScripts", EXTRACT_ALL_DEFAULT[self.kind]))


def parse_case_document(case: Case) -> tuple[Document, str | None]:
    """Parse the case's HTML as structcrawl would: ``(document, fragment)``.

    The document URL is the manifest's ``baseIri`` plus the input path (without the fragment,
    which never takes part in resolution), or the test's ``base`` option when it has one.
    """
    scheme, netloc, path, query, fragment = urlsplit(case.input)
    local = urlunsplit((scheme, netloc, path, query, ""))
    url = case.options.get("base") or BASE_IRI + local
    body = (SUITE / local).read_bytes()
    doc = parse_html(body, url, content_type=case.options.get("contentType"))
    return doc, fragment or None


def _load_json(relative: str) -> Any:
    return json.loads((SUITE / relative).read_text("utf-8"))


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def jsonld_equal(a: Any, b: Any, *, ordered: bool = False) -> bool:
    """The suite's JSON-LD object comparison: arrays are unordered except under ``@list``."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(
            jsonld_equal(a[k], b[k], ordered=k == "@list") for k in a
        )
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return False
        if ordered:
            return all(jsonld_equal(x, y) for x, y in zip(a, b, strict=True))
        remaining = list(b)
        for x in a:
            for i, y in enumerate(remaining):
                if jsonld_equal(x, y):
                    del remaining[i]
                    break
            else:
                return False
        return True
    if _number(a) and _number(b):
        return a == b
    return type(a) is type(b) and a == b


_Q = rdflib.Namespace("urn:x-structcrawl-test:quad#")
_DEFAULT_GRAPH = rdflib.URIRef("urn:x-structcrawl-test:default-graph")


def nquads_graph(text: str) -> rdflib.Graph:
    """An RDF dataset as one graph (each quad reified) so rdflib can test isomorphism.

    Two sets of quads are isomorphic datasets exactly when their reifications are isomorphic
    graphs; reifying keeps blank-node graph names in play, which ``rdflib.compare`` alone
    would not.
    """
    dataset = rdflib.Dataset()
    dataset.parse(data=text, format="nquads")
    graph = rdflib.Graph()
    for s, p, o, g in dataset.quads((None, None, None, None)):
        name = _DEFAULT_GRAPH if g is None or g == DATASET_DEFAULT_GRAPH_ID else g
        quad = rdflib.BNode()
        graph.add((quad, _Q.s, s))
        graph.add((quad, _Q.p, p))
        graph.add((quad, _Q.o, o))
        graph.add((quad, _Q.g, name))
    return graph


def _dump(value: Any) -> str:
    return json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False)


def check_case(case: Case) -> None:
    """Run one manifest entry; AssertionError (or JsonLdHtmlError) when it does not pass."""
    doc, fragment = parse_case_document(case)
    if not case.positive:
        try:
            document = load_html_jsonld(doc, fragment, extract_all_scripts=case.extract_all_scripts)
        except JsonLdHtmlError as exc:
            assert exc.code == case.error, f"{case.id}: raised {exc.code!r}, want {case.error!r}"
            return
        raise AssertionError(f"{case.id}: expected error {case.error!r}, loaded {_dump(document)}")

    document = load_html_jsonld(doc, fragment, extract_all_scripts=case.extract_all_scripts)
    options = expand_options(doc.base_url)
    assert case.expect is not None
    if case.kind == "toRdf":
        actual = jsonld_document_nquads(document, doc.base_url)
        expected = (SUITE / case.expect).read_text("utf-8")
        assert isomorphic(nquads_graph(actual), nquads_graph(expected)), (
            f"{case.id}: N-Quads differ\n--- actual\n{actual}--- expected\n{expected}"
        )
        return
    expected = _load_json(case.expect)
    if case.kind == "expand":
        actual = jsonld.expand(document, options)
    else:
        assert case.context is not None
        context = _load_json(case.context)
        if case.kind == "compact":
            actual = jsonld.compact(document, context, options)
        else:
            actual = jsonld.flatten(document, context, options)
    assert jsonld_equal(actual, expected), (
        f"{case.id}: output differs\n--- actual\n{_dump(actual)}\n--- expected\n{_dump(expected)}"
    )
    if case.kind in ("compact", "flatten"):
        # compacted arrays of @list terms are ordered: compare the re-expanded forms too
        actual_expanded = jsonld.expand(actual, {"base": doc.base_url})
        expected_expanded = jsonld.expand(expected, {"base": doc.base_url})
        assert jsonld_equal(actual_expanded, expected_expanded), (
            f"{case.id}: re-expanded output differs\n--- actual\n{_dump(actual_expanded)}"
            f"\n--- expected\n{_dump(expected_expanded)}"
        )


ALL_CASES = [Case.from_manifest(entry) for entry in CASES]


def _param(case: Case) -> Any:
    marks = []
    if case.id in KNOWN_FAILURES:
        marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_FAILURES[case.id]))
    return pytest.param(case, id=case.id.lstrip("#"), marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in ALL_CASES])
def test_jsonld_html_case(case: Case) -> None:
    check_case(case)


def test_jsonld_html_summary(conformance_report) -> None:
    """All cases at once: the pass count, and exactly the known failures failing."""
    assert len(ALL_CASES) == EXPECTED_CASE_COUNT, (
        f"manifest lists {len(ALL_CASES)} tests, this file expects {EXPECTED_CASE_COUNT}"
    )
    failed: dict[str, str] = {}
    for case in ALL_CASES:
        try:
            check_case(case)
        except Exception as exc:  # noqa: BLE001 - any failure of a case counts
            failed[case.id] = f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
    passed = len(ALL_CASES) - len(failed)
    conformance_report(
        "jsonld-html",
        passed,
        len(ALL_CASES),
        {k: ("known: " if k in KNOWN_FAILURES else "NEW: ") + v for k, v in failed.items()},
    )
    unknown_ids = set(KNOWN_FAILURES) - {c.id for c in ALL_CASES}
    assert not unknown_ids, f"KNOWN_FAILURES names tests not in the manifest: {unknown_ids}"
    assert set(failed) == set(KNOWN_FAILURES), (
        f"failing {sorted(failed)} but KNOWN_FAILURES lists {sorted(KNOWN_FAILURES)}"
    )


# --- structcrawl's own extractor on the same pages -----------------------------------------


_ID_CASES = [
    c
    for c in ALL_CASES
    if c.kind == "expand"
    and c.positive
    and any("@id" in node for node in _load_json(c.expect or "") if isinstance(node, dict))
]


@pytest.mark.parametrize("case", _ID_CASES, ids=[c.id.lstrip("#") for c in _ID_CASES])
def test_extractor_resolves_ids_like_expansion(case: Case) -> None:
    """structcrawl's JSON-LD records resolve ``@id`` to the same IRIs JSON-LD expansion does."""
    doc, _ = parse_case_document(case)
    expected_ids = {n["@id"] for n in _load_json(case.expect or "") if "@id" in n}
    records = structcrawl_jsonld.extract(doc)
    record_ids = {r.id for r in records if r.kind == "entity"}
    assert expected_ids <= record_ids, f"record ids {record_ids}, expanded ids {expected_ids}"


def test_suite_files_are_read_in_place() -> None:
    """The suite is read from ../shared/conformance, never from a copy inside the repo."""
    repo_root = Path(__file__).resolve().parents[1]
    assert not SUITE.resolve().is_relative_to(repo_root)
    assert (SUITE / "html-manifest.jsonld").is_file()
