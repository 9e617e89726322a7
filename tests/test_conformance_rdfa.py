"""W3C RDFa 1.1 conformance suite, HTML5 host language, judged on what the product prints.

Each case's page goes through the graph export exactly as ``structcrawl extract PAGE
--base-url URL --format nquads --syntaxes rdfa`` runs it
(:func:`structcrawl.extract.graph.payload_graph`, then
:func:`~structcrawl.extract.graph.render_graph`); every quad of the printed N-Quads is read
into one rdflib graph, whatever its graph name, and the case's SPARQL ASK query must answer
``expected``. ``test_cli_prints_the_same_nquads`` checks that the command prints that text. The suite lives beside the checkout in ``../shared/conformance``
and is never copied into the repository; without it the tests skip (or fail under ``CI=true``).
"""

from __future__ import annotations

import functools
import json
import logging
import warnings
from pathlib import Path
from typing import Any

import pytest
import rdflib

from structcrawl.commandline import main
from structcrawl.extract.graph import payload_graph, render_graph
from tests._conformance import suite_dir

CONFORMANCE_ROOT = Path(__file__).resolve().parents[1].parent / "shared" / "conformance"
SUITE = CONFORMANCE_ROOT / "rdfa-html5"
MANIFEST = SUITE / "manifest.jsonl"
EXPECTED_CASES = 170

# Cases known to fail, by id, with the reason. Each is run as xfail(strict=True), so a fix shows
# up as an unexpected pass and the entry has to be removed.
KNOWN_FAILURES: dict[str, str] = {}

pytestmark = pytest.mark.conformance


def _load_cases() -> list[dict[str, Any]]:
    if not MANIFEST.is_file():
        return []
    with MANIFEST.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


CASES = _load_cases()


def _require_suite() -> None:
    suite_dir("rdfa-html5")  # fails under CI=true, skips elsewhere, when missing


def exported_nquads(case: dict[str, Any]) -> str:
    """The N-Quads ``structcrawl extract --format nquads --syntaxes rdfa`` prints for a case."""
    body = (SUITE / case["html"]).read_bytes()
    graph = payload_graph(body, case["base_url"], "text/html", syntaxes=["rdfa"])
    return render_graph(graph, "nquads")


def _graph_of(nquads: str) -> rdflib.Graph:
    """Every quad's triple in one graph (the graph names are the export's layers)."""
    dataset = rdflib.Dataset()
    normalize = rdflib.NORMALIZE_LITERALS
    rdflib.NORMALIZE_LITERALS = False  # keep each lexical form as printed ("...Z" stays "...Z")
    try:
        dataset.parse(data=nquads, format="nquads")
    finally:
        rdflib.NORMALIZE_LITERALS = normalize
    graph = rdflib.Graph()
    for s, p, o, _ in dataset.quads((None, None, None, None)):
        graph.add((s, p, o))
    return graph


@functools.cache
def _evaluate(case_id: str) -> tuple[bool, str]:
    """Run one case; return (passed, detail). Cached so the summary reuses the results."""
    case = next(c for c in CASES if c["id"] == case_id)
    nquads = exported_nquads(case)
    rdflib_logger = logging.getLogger("rdflib")
    level = rdflib_logger.level
    rdflib_logger.setLevel(logging.ERROR)  # ill-typed literals are expected in some cases
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            graph = _graph_of(nquads)
    finally:
        rdflib_logger.setLevel(level)
    query = (SUITE / case["sparql"]).read_text(encoding="utf-8")
    rdflib_logger = logging.getLogger("rdflib")
    level = rdflib_logger.level
    rdflib_logger.setLevel(logging.ERROR)  # ill-typed literals are expected in some cases
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            answer = bool(graph.query(query, base=case["base_url"]).askAnswer)
    finally:
        rdflib_logger.setLevel(level)
    passed = answer is bool(case["expected"])
    detail = (
        f"{case_id} ({case['title']}): ASK gave {answer}, expected {case['expected']}\n"
        f"extracted:\n{graph.serialize(format='nt')}"
    )
    return passed, detail


def _params() -> list[Any]:
    if not CASES:
        return [pytest.param(None, id="suite-missing")]
    params = []
    for case in CASES:
        marks = []
        if case["id"] in KNOWN_FAILURES:
            marks.append(pytest.mark.xfail(reason=KNOWN_FAILURES[case["id"]], strict=True))
        params.append(pytest.param(case["id"], id=case["id"], marks=marks))
    return params


@pytest.mark.parametrize("case_id", _params())
def test_rdfa_html5_case(case_id: str | None) -> None:
    _require_suite()
    assert case_id is not None
    passed, detail = _evaluate(case_id)
    assert passed, detail


def test_rdfa_html5_summary(conformance_report) -> None:
    """Run every case (reusing cached results) and report the pass count."""
    _require_suite()
    assert len(CASES) == EXPECTED_CASES, f"manifest has {len(CASES)} cases"
    failed = sorted(case["id"] for case in CASES if not _evaluate(case["id"])[0])
    passed = len(CASES) - len(failed)
    conformance_report(
        "rdfa-html5", passed, len(CASES), {f: KNOWN_FAILURES.get(f, "NEW") for f in failed}
    )
    assert set(failed) == set(KNOWN_FAILURES), (
        f"failing cases {failed} differ from KNOWN_FAILURES {sorted(KNOWN_FAILURES)}"
    )


def test_cli_prints_the_same_nquads(tmp_path, capsys) -> None:
    """The command line prints exactly the text the cases are judged on."""
    _require_suite()
    case = next(c for c in CASES if c["id"] == "0001") if CASES else None
    assert case is not None
    page = tmp_path / "page.html"
    page.write_bytes((SUITE / case["html"]).read_bytes())
    argv = ["extract", str(page), "--base-url", case["base_url"], "--format", "nquads"]
    assert main([*argv, "--syntaxes", "rdfa"]) == 0
    assert capsys.readouterr().out == exported_nquads(case)
