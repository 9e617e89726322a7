"""Fidelity of schema.org Microdata and RDFa facts, judged through structcrawl's records
(issue 23), beside extruct on the same pages.

    python -m bench.bench_fidelity [--show]

The pages and their truth are the conformance examples of ``../shared/conformance/extruct-samples``
(``STRUCTCRAWL_CONFORMANCE_DIR`` elsewhere):

* Microdata: ``schema.org/*.html``, ``w3c/*.html`` and ``websites/*.html`` with their expected
  items (``<name>.json``);
* RDFa: ``w3crdfa/*.html`` (the W3C RDFa Lite, RDFa Primer and RDF 1.1 Primer examples) with
  their expected graphs (``<name>.expanded.json``).

The truth files were recorded by extruct's authors (its own output, reviewed; the suite's README
says it is not always right), so extruct's score here is an upper reference rather than an
independent baseline; structcrawl is read exactly as ``structcrawl extract`` reads a page
(``extract_payload``: its records, nested records and references).

A fact is ``(subject, property, object)`` with schema.org terms only (``rdf:type`` facts of
schema.org types included): http and https schema.org IRIs are one; a subject without an IRI
is named by the path from its top-level item (``{Event}/location{Place}``); literals are
compared with their whitespace collapsed (language and datatype aside); URLs under the pages'
base are compared relative to it. Scores are micro-averaged over the pages of a syntax.

Ends with one line: ``microdata_f1= microdata_p= microdata_r= extruct_microdata_f1=
rdfa_f1= rdfa_p= rdfa_r= extruct_rdfa_f1= pages=``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from bench.fidelity_fixtures import FidelityCase, compared, fidelity_cases, read_facts
from structcrawl.core.document import parse_html
from structcrawl.extract import extract_payload
from structcrawl.extract._actions import is_action_constraint

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = (
    Path(os.environ.get("STRUCTCRAWL_CONFORMANCE_DIR") or ROOT.parent / "shared" / "conformance")
    / "extruct-samples"
)
BASE = "http://www.example.com/index.html"
#: The base URL each sample was recorded with (extruct's tests/test_microdata.py), else BASE.
BASES = {
    "microdata.7.1.html": "http://blog.example.com/progress-report",
    "microdata.object.html": "http://www.example.com/microdata/test",
}
_WHITESPACE = re.compile(r"\s+")
_SCHEMA = re.compile(r"^https?://(?:www\.)?schema\.org/")
RDF_TYPE = "rdf:type"
Fact = tuple[str, str, str]


def term(iri: str) -> str:
    """``schema:Name`` for a schema.org IRI (http or https), the IRI otherwise."""
    return _SCHEMA.sub("schema:", iri.strip())


class _Base:
    url = BASE


def literal(value: Any) -> str:
    """A value as compared: a single token resolved against the page's base (the truth keeps
    some URLs as written, the tools resolve them; text tokens are changed alike on both
    sides), whitespace removed (tools differ on the spaces between block elements)."""
    text = str(value).strip()
    if text and not _WHITESPACE.search(text):
        text = urljoin(_Base.url, text)
    return _WHITESPACE.sub("", text)


def _types(value: Any) -> list[str]:
    items = value if isinstance(value, list) else [value]
    return sorted(term(t) for t in items if isinstance(t, str) and t)


def _key(parent: str, prop: str, types: list[str]) -> str:
    return f"{parent}/{prop}{{{','.join(types)}}}"


def _schema_facts(facts: set[Fact]) -> set[Fact]:
    return {
        f
        for f in facts
        if f[1].startswith("schema:") or (f[1] == RDF_TYPE and f[2].startswith("schema:"))
    }


#: PropertyValueSpecification properties by the word of the textual form that states them
#: (schema.org/docs/actions.html: "required maxlength=100 name=q" is the same specification).
_CONSTRAINT_WORDS = (
    ("valueRequired", "required"),
    ("readonlyValue", "readonly"),
    ("multipleValues", "multiple"),
    ("valueMinLength", "minlength"),
    ("valueMaxLength", "maxlength"),
    ("minValue", "min"),
    ("maxValue", "max"),
    ("stepValue", "step"),
    ("valuePattern", "pattern"),
    ("valueName", "name"),
)


def constraint_text(spec: dict[str, Any]) -> str:
    """An action constraint given as its properties (extruct's ``{"valueRequired": true,
    "valueName": "q"}``), in its textual form (``"required name=q"``), as records write it."""
    words = []
    for prop, word in _CONSTRAINT_WORDS:
        value = spec.get(prop)
        if value is True:
            words.append(word)
        elif value not in (None, False, ""):
            words.append(f"{word}={value}")
    return " ".join(words)


# -- extruct's Microdata items (the truth files and extruct's own output) ---------------------


def microdata_facts(items: list[dict[str, Any]]) -> set[Fact]:
    facts: set[Fact] = set()

    def walk(item: dict[str, Any], key: str, inherited: bool = False) -> None:
        types = _types(item.get("type"))
        for t in types:
            facts.add((key, RDF_TYPE, t))
        # an untyped item's names are its enclosing item's vocabulary's (Microdata to RDF)
        schema = any(t.startswith("schema:") for t in types) or (inherited and not types)
        for prop, values in (item.get("properties") or {}).items():
            for value in values if isinstance(values, list) else [values]:
                name = term(prop) if "/" in prop or not schema else f"schema:{prop}"
                if isinstance(value, dict) and {"type", "id", "properties"} & value.keys():
                    iri = value.get("id")
                    child = literal(iri) if iri else _key(key, prop, _types(value.get("type")))
                    facts.add((key, name, child))
                    walk(value, child, schema)
                elif isinstance(value, str | int | float):
                    facts.add((key, name, literal(value)))
                elif isinstance(value, dict) and is_action_constraint(prop):
                    facts.add((key, name, literal(constraint_text(value))))

    for item in items:
        iri = item.get("id")
        walk(item, literal(iri) if iri else _key("", "", _types(item.get("type"))))
    return _schema_facts(facts)


# -- expanded JSON-LD graphs (the RDFa truth files and extruct's RDFa output) -----------------


def _members(values: Any) -> list[Any]:
    """The values of one property, an RDF list's items among them (the records write an
    ``inlist`` collection as a list value, its items facts of the property)."""
    out: list[Any] = []
    for value in values if isinstance(values, list) else [values]:
        items = value.get("@list") if isinstance(value, dict) else None
        out.extend(items if isinstance(items, list) else [value])
    return out


def graph_facts(nodes: list[dict[str, Any]]) -> set[Fact]:
    """Facts of an expanded JSON-LD graph, read as the records nest it: every IRI node is a
    subject of its own; a blank node is described under each subject that names it (a blank
    node two subjects share, an ``rdfa:copy`` pattern's, under both), by the path from that
    subject (``<subject>/<local name>{<types>}``); a top-level blank node is ``/{<types>}``."""
    by_id = {n["@id"]: n for n in nodes if isinstance(n, dict) and "@id" in n}
    used = {
        o["@id"]
        for n in nodes
        for k, vs in n.items()
        if not k.startswith("@")
        for o in _members(vs)
        if isinstance(o, dict) and "@id" in o
    }
    facts: set[Fact] = set()

    def walk(node_id: str, key: str, path: frozenset[str]) -> None:
        node = by_id.get(node_id, {})
        for t in _types(node.get("@type")):
            facts.add((key, RDF_TYPE, t))
        for p, values in node.items():
            if p.startswith("@"):
                continue
            for value in _members(values):
                if isinstance(value, dict) and "@value" in value:
                    facts.add((key, term(p), literal(value["@value"])))
                elif isinstance(value, dict) and str(value.get("@id", "")).startswith("_:"):
                    child_id = value["@id"]
                    types = _types(by_id.get(child_id, {}).get("@type"))
                    child = _key(key, term(p).removeprefix("schema:"), types)
                    facts.add((key, term(p), child))
                    if child_id not in path:  # a cycle of blank nodes ends here
                        walk(child_id, child, path | {child_id})
                elif isinstance(value, dict) and "@id" in value:
                    facts.add((key, term(p), literal(value["@id"])))

    for node_id in by_id:
        if not node_id.startswith("_:"):
            walk(node_id, literal(node_id), frozenset())
        elif node_id not in used:
            walk(node_id, _key("", "", _types(by_id[node_id].get("@type"))), frozenset([node_id]))
    return _schema_facts(facts)


# -- structcrawl's records ---------------------------------------------------------------------


def record_facts(records: list[dict[str, Any]], fmt: str) -> set[Fact]:
    facts: set[Fact] = set()

    def walk(record: dict[str, Any], key: str, inherited: bool = False) -> None:
        types = [t if ":" in t else f"schema:{t}" for t in _types(record.get("type"))]
        for t in types:
            facts.add((key, RDF_TYPE, t))
        # records write schema.org properties by their short names; Microdata's untyped items
        # keep names as written (no vocabulary) or in their enclosing item's vocabulary, RDFa's
        # short names are schema.org's
        schema = fmt == "rdfa" or any(t.startswith("schema:") for t in types)
        schema = schema or (inherited and not types)
        for prop, values in (record.get("properties") or {}).items():
            name = term(prop) if "/" in prop or not schema else f"schema:{prop}"
            for value in values if isinstance(values, list) else [values]:
                if isinstance(value, dict) and "properties" in value:
                    types = [t if ":" in t else f"schema:{t}" for t in _types(value.get("type"))]
                    iri = value.get("id")
                    child = literal(iri) if iri and not iri.startswith("_:") else None
                    child = child or _key(key, name.removeprefix("schema:"), sorted(types))
                    facts.add((key, name, child))
                    walk(value, child, schema)
                elif isinstance(value, dict) and str(value.get("@id", "")).startswith("_:"):
                    # a blank node with no statements of its own, named as the truth names it
                    facts.add((key, name, _key(key, name.removeprefix("schema:"), [])))
                elif isinstance(value, dict) and ("@id" in value or "@value" in value):
                    facts.add((key, name, literal(value.get("@id", value.get("@value")))))
                elif isinstance(value, str | int | float) and not isinstance(value, bool):
                    facts.add((key, name, literal(value)))

    for record in records:
        if record.get("kind") != "entity" or record.get("format") != fmt:
            continue
        types = [t if ":" in t else f"schema:{t}" for t in _types(record.get("type"))]
        iri = record.get("id")
        key = literal(iri) if iri and not str(iri).startswith("_:") else _key("", "", types)
        walk(record, key)
    return _schema_facts(facts)


def structcrawl_facts(html: bytes, fmt: str) -> set[Fact]:
    doc = parse_html(html, _Base.url)
    result = extract_payload(html, _Base.url, "text/html", document=doc)
    return record_facts([r.to_dict() for r in result.records], fmt)


def extruct_facts(html: bytes, fmt: str) -> set[Fact] | None:
    try:
        import extruct
    except ImportError:
        return None
    data = extruct.extract(
        html.decode("utf-8", "replace"), base_url=_Base.url, syntaxes=[fmt], uniform=False
    )
    found = data.get(fmt) or []
    return microdata_facts(found) if fmt == "microdata" else graph_facts(found)


# -- cases and scores --------------------------------------------------------------------------


def cases() -> Iterator[tuple[str, Path, Path]]:
    """``(syntax, page, truth file)`` of every sample with a truth file."""
    for folder in ("schema.org", "w3c", "websites"):
        for page in sorted((SAMPLES / folder).glob("*.html")):
            if page.with_suffix(".json").exists():
                yield "microdata", page, page.with_suffix(".json")
    for page in sorted((SAMPLES / "w3crdfa").glob("*.html")):
        truth = page.with_name(page.stem + ".expanded.json")
        if truth.exists():
            yield "rdfa", page, truth


def true_facts(fmt: str, truth: Path) -> set[Fact]:
    data = json.loads(truth.read_text(encoding="utf-8"))
    return microdata_facts(data) if fmt == "microdata" else graph_facts(data)


def prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


Counts = dict[tuple[str, str], list[int]]


def _score(counts: Counts, fmt: str, name: str, html: bytes, truth: set[Fact], show: bool) -> None:
    for tool, got in (
        ("ours", structcrawl_facts(html, fmt)),
        ("extruct", extruct_facts(html, fmt)),
    ):
        if got is None:
            continue
        c = counts[(tool, fmt)]
        c[0] += len(truth & got)
        c[1] += len(got - truth)
        c[2] += len(truth - got)
        if show and tool == "ours" and got != truth:
            print(f"{fmt} {name}: missed {sorted(truth - got)}")
            print(f"{' ' * len(fmt)} {name}: extra  {sorted(got - truth)}")


def _new_counts() -> Counts:
    return {(tool, fmt): [0, 0, 0] for tool in ("ours", "extruct") for fmt in ("microdata", "rdfa")}


def sample_counts(show: bool = False) -> tuple[Counts, int]:
    """Counts over the conformance examples, and the number of pages scored."""
    counts, pages = _new_counts(), 0
    for fmt, page, truth_file in cases():
        _Base.url = BASES.get(page.name, BASE)
        truth = true_facts(fmt, truth_file)
        if not truth:  # no schema.org facts on this page
            continue
        pages += 1
        _score(counts, fmt, page.name, page.read_bytes(), truth, show)
    return counts, pages


def fixture_facts(case: FidelityCase) -> set[Fact]:
    """A hand-written case's facts as compared (the base set to its page's URL)."""
    url, rows = read_facts(case.facts_file)
    _Base.url = url
    return _schema_facts(compared(rows, literal))


def fixture_counts(show: bool = False) -> tuple[Counts, int]:
    """Counts over the hand-written cases of ``fixtures/fidelity``, and their number."""
    counts, pages = _new_counts(), 0
    for case in fidelity_cases():
        truth = fixture_facts(case)
        pages += 1
        _score(counts, case.syntax, case.name, case.page.read_bytes(), truth, show)
    return counts, pages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="store_true", help="print each page's misses")
    args = parser.parse_args(argv)
    if not SAMPLES.is_dir():
        print(f"no conformance samples at {SAMPLES}")
        return 2
    line = []
    for label, (counts, pages) in (
        ("", sample_counts(args.show)),
        ("fixtures_", fixture_counts(args.show)),
    ):
        for fmt in ("microdata", "rdfa"):
            p, r, f1 = prf(*counts[("ours", fmt)])
            _, _, ef1 = prf(*counts[("extruct", fmt)])
            where = "hand-written cases" if label else "conformance examples"
            print(
                f"{fmt} ({where}): structcrawl P {p:.3f} R {r:.3f} F1 {f1:.3f}; extruct F1 {ef1:.3f}"
            )
            line += [f"{label}{fmt}_f1={f1:.3f}"]
            if not label:
                line += [f"{fmt}_p={p:.3f}", f"{fmt}_r={r:.3f}"]
            line += [f"{label}extruct_{fmt}_f1={ef1:.3f}"]
        line.append(f"{label}pages={pages}")
    print(" ".join(line))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
