"""extruct's sample pages (``extruct-samples/``) run through structcrawl, extruct as reference.

Every ``.html`` page goes through :func:`structcrawl.extract.extract_payload`, which must not
raise, must return records, and must not report a crashed extractor. Where extruct's expected
output (``.jsonld``, ``.json``, ``*.flat.json``, ``*_flat*.json``, ...) has JSON-LD or microdata
items, the top-level entities are compared:

* JSON-LD: the multiset of ``(@type, @id)`` of top-level entities. extruct lists each top-level
  object of each script (arrays split, ``@graph`` kept whole, ``@id`` as written); structcrawl
  makes one record per ``@graph`` node (plus the container when it carries more than
  ``@context``/``@graph``) and resolves relative ``@id`` against the document base. extruct's
  side is put through the same two steps before comparing. Types are compared after
  :func:`~structcrawl.core.records.short_schema_name`, as structcrawl stores them.
* microdata: the multiset of ``(itemtype, property names)`` of top-level items, extruct's
  names put in the item's vocabulary as structcrawl names them
  (:func:`structcrawl.extract.microdata.property_name`). extruct's
  nested form (``type``/``properties``), its flat form (``iid``/``iid_ref``: top-level items are
  the ones no other item refers to) and its "uniform" form (``@type`` plus properties as keys)
  are all read. extruct gives an item without properties a ``value`` (a property, in the uniform
  form); structcrawl invents nothing, so those cases are expected differences.

extruct's output is a reference, not the truth: where structcrawl is right and extruct is not,
the case is listed in ``EXPECTED_DIFFERENCES`` with the reason, and the test checks that the
difference is still there (so the list stays honest). Other syntaxes in the expected files
(RDFa, Open Graph, microformats, Dublin Core) are only covered by the no-crash check here.

Pages are extracted as ``https://extruct-samples.test/<folder>/<file name>``: a reserved
``.test`` host, so no resolved URL can be mistaken for a real one. The URL matters only for
resolving ``@id``, and both sides are resolved against the same document base.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import quote, urljoin

import pytest

from structcrawl.core.records import Record, short_schema_name
from structcrawl.extract import PageExtraction, extract_payload, microdata
from tests._conformance import suite_dir

pytestmark = pytest.mark.conformance

SUITE = suite_dir("extruct-samples")
PAGE_URL_ROOT = "https://extruct-samples.test/"

#: Expected files whose page is not simply ``<stem>.html`` (or ``<stem>.html`` after dropping
#: a ``.flat``/``.withtext``/``.expanded`` suffix): the extruct tests pair them by hand.
PAGE_OF = {
    "schema.org/CreativeWork_flat.001.json": "schema.org/CreativeWork.001.html",
    "schema.org/CreativeWork_flat_with_node_id.001.json": "schema.org/CreativeWork.001.html",
    "schema.org/product_custom_url.json": "schema.org/product.html",
    "schema.org/product_custom_url_and_node_id.json": "schema.org/product.html",
    "misc/microformat_flat_test.json": "misc/microformat_test.html",
    "misc/opengraph_flat_test.json": "misc/opengraph_test.html",
}

#: Comparison key (``folder/file``, with ``#syntax`` for extruct's all-syntax dict outputs) ->
#: why structcrawl's output rightly differs from extruct's. Checked: each difference must
#: still be present.
_INVENTED_VALUE = (
    "extruct's uniform output gives the two Person items that have an itemid but no itemprop"
    " an invented `value` property (their text); structcrawl gives an item without itemprop"
    " elements no properties (WHATWG microdata: an item's properties are its itemprop elements)"
)
EXPECTED_DIFFERENCES: dict[str, str] = {
    "schema.org/CreativeWork_flat.001.json#microdata": _INVENTED_VALUE,
    "schema.org/CreativeWork_flat_with_node_id.001.json#microdata": _INVENTED_VALUE,
    "schema.org/product-ref.json": (
        "extruct follows itemref='more-properties' into an element that has its own itemscope"
        " and adds that item's `prop3` (and image) to the Product; the WHATWG 'crawl the"
        " properties' algorithm does not descend into a referenced element with itemscope, and"
        " that element has no itemprop, so it adds nothing (it stays a top-level item of its own)"
    ),
}

#: Comparison key -> a structcrawl bug that makes it differ (``xfail(strict=True)``).
KNOWN_BUGS: dict[str, str] = {}

_ITEM_META_KEYS = frozenset({"@type", "@context", "id", "_nodeId_", "iid"})


def page_url(page: str) -> str:
    return PAGE_URL_ROOT + quote(page)


def _rel(path: Path) -> str:
    return path.relative_to(SUITE).as_posix()


PAGES = sorted(_rel(p) for p in SUITE.rglob("*.html"))
EXPECTED_FILES = sorted(_rel(p) for p in SUITE.rglob("*") if p.suffix in (".json", ".jsonld"))


def page_of(expected: str) -> str:
    """The page an expected-output file belongs to."""
    if expected in PAGE_OF:
        return PAGE_OF[expected]
    stem = expected.rsplit(".", 1)[0]
    for candidate in (stem, stem.rsplit(".", 1)[0]):
        if (SUITE / f"{candidate}.html").is_file():
            return f"{candidate}.html"
    raise LookupError(f"no page for {expected}")


@cache
def extraction(page: str) -> PageExtraction:
    return extract_payload((SUITE / page).read_bytes(), page_url(page), "text/html")


# --- reading extruct's outputs ------------------------------------------------------------------


def _is_microdata_item(item: Any) -> bool:
    if not isinstance(item, dict):
        return False
    types = item.get("type", item.get("@type", []))
    types = [types] if isinstance(types, str) else types
    if any(isinstance(t, str) and t.startswith("h-") for t in types):
        return False  # microformats2 (extruct's mf2 output has the same type/properties shape)
    return isinstance(item.get("properties"), dict) or "value" in item


def expected_syntaxes(expected: str, data: Any) -> dict[str, list[Any]]:
    """The JSON-LD and microdata outputs an expected file holds, by syntax."""
    if isinstance(data, dict):
        return {s: data[s] for s in ("json-ld", "microdata") if isinstance(data.get(s), list)}
    if not isinstance(data, list):
        return {}
    if expected.endswith(".jsonld"):
        return {"json-ld": data}
    if data and all(_is_microdata_item(i) for i in data):
        return {"microdata": data}
    return {}


Key = tuple[tuple[str, ...], Any]


def _types(value: Any) -> tuple[str, ...]:
    values = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    return tuple(sorted({short_schema_name(v) for v in values if isinstance(v, str)}))


def _resolve_id(base: str, value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    return value if value.startswith("_:") else urljoin(base, value.strip())


def jsonld_entities(items: list[Any], base: str) -> Counter[Key]:
    """extruct's top-level JSON-LD objects as structcrawl's top-level records would key them."""
    found: Counter[Key] = Counter()

    def visit(node: Any) -> None:
        if isinstance(node, list):
            for item in node:
                visit(item)
            return
        if not isinstance(node, dict):
            return
        graph = node.get("@graph")
        if graph is not None:
            visit(graph)
            if not any(k not in ("@context", "@graph") for k in node):
                return
        found[(_types(node.get("@type")), _resolve_id(base, node.get("@id")))] += 1

    visit(items)
    return found


def _microdata_key(item: dict[str, Any]) -> Key:
    if "properties" in item or "type" in item or "@type" not in item:  # nested or flat form
        typ: Any = item.get("type")
        names = set(item.get("properties", {}))
    else:  # extruct's "uniform" form: @type (local name) + @context, properties as keys
        typ, context = item["@type"], item.get("@context")
        if isinstance(typ, str) and isinstance(context, str) and ":" not in typ:
            typ = f"{context.rstrip('/')}/{typ}"
        names = {k for k in item if k not in _ITEM_META_KEYS}
    # structcrawl names a property in its item's vocabulary (W3C Microdata to RDF): a type
    # outside schema.org makes its names full IRIs (extruct keeps them as written)
    in_order = [t for t in (typ if isinstance(typ, list) else [typ]) if isinstance(t, str)]
    vocab = microdata.vocabulary(in_order, None)
    return _types(typ), tuple(sorted(microdata.property_name(n, vocab) for n in names))


def microdata_items(items: list[Any]) -> Counter[Key]:
    """extruct's top-level microdata items keyed by (types, property names)."""
    referenced: set[Any] = set()

    def refs(value: Any) -> None:
        if isinstance(value, dict):
            if "iid_ref" in value:
                referenced.add(value["iid_ref"])
            for v in value.values():
                refs(v)
        elif isinstance(value, list):
            for v in value:
                refs(v)

    for item in items:
        refs(item.get("properties", {}))
    return Counter(
        _microdata_key(item)
        for item in items
        if isinstance(item, dict) and ("iid" not in item or item["iid"] not in referenced)
    )


# --- structcrawl's side -------------------------------------------------------------------------


def _entities(records: list[Record], fmt: str) -> list[Record]:
    return [r for r in records if r.format == fmt and r.kind == "entity"]


def structcrawl_jsonld(result: PageExtraction) -> Counter[Key]:
    return Counter((tuple(sorted(set(r.type))), r.id) for r in _entities(result.records, "json-ld"))


def structcrawl_microdata(result: PageExtraction) -> Counter[Key]:
    return Counter(
        (tuple(sorted(set(r.type))), tuple(sorted(r.properties)))
        for r in _entities(result.records, "microdata")
    )


# --- comparisons ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Comparison:
    key: str  # folder/file, or folder/file#syntax for extruct's all-syntax outputs
    expected_file: str
    page: str
    syntax: str  # json-ld | microdata

    @property
    def folder(self) -> str:
        return self.expected_file.split("/", 1)[0]

    def expected_items(self) -> list[Any]:
        data = json.loads((SUITE / self.expected_file).read_text("utf-8"))
        return expected_syntaxes(self.expected_file, data)[self.syntax]

    def counters(self) -> tuple[Counter[Key], Counter[Key]]:
        """``(extruct, structcrawl)`` keyed entities."""
        result = extraction(self.page)
        if self.syntax == "json-ld":
            base = result.base_url or page_url(self.page)
            return jsonld_entities(self.expected_items(), base), structcrawl_jsonld(result)
        return microdata_items(self.expected_items()), structcrawl_microdata(result)

    def difference(self) -> str | None:
        """None when both sides agree, else what only one side has."""
        extruct, ours = self.counters()
        if extruct == ours:
            return None
        only_extruct = sorted((extruct - ours).elements(), key=repr)
        only_ours = sorted((ours - extruct).elements(), key=repr)
        return f"only extruct: {only_extruct}; only structcrawl: {only_ours}"


def _comparisons() -> list[Comparison]:
    found = []
    for expected in EXPECTED_FILES:
        data = json.loads((SUITE / expected).read_text("utf-8"))
        syntaxes = expected_syntaxes(expected, data)
        for syntax in syntaxes:
            key = f"{expected}#{syntax}" if isinstance(data, dict) else expected
            found.append(Comparison(key, expected, page_of(expected), syntax))
    return found


COMPARISONS = _comparisons()


def _comparison_param(c: Comparison) -> Any:
    marks = []
    if c.key in KNOWN_BUGS:
        marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[c.key]))
    return pytest.param(c, id=c.key, marks=marks)


# --- tests ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("page", PAGES)
def test_page_extracts(page: str) -> None:
    """(a) Every sample page extracts without raising, into records, with no extractor crash."""
    result = extraction(page)
    assert result.payload_kind == "html"
    assert result.records, f"{page}: no records"
    crashed = [
        r.error.to_dict() for r in result.records if r.error and r.error.code == "extractor-failed"
    ]
    assert not crashed, f"{page}: extractor crashed: {crashed}"


def test_every_expected_file_has_a_page() -> None:
    assert PAGES and EXPECTED_FILES
    for expected in EXPECTED_FILES:
        assert page_of(expected) in PAGES, expected


@pytest.mark.parametrize("comparison", [_comparison_param(c) for c in COMPARISONS])
def test_matches_extruct(comparison: Comparison) -> None:
    """(b, c) structcrawl's top-level JSON-LD / microdata entities match extruct's."""
    difference = comparison.difference()
    if comparison.key in EXPECTED_DIFFERENCES:
        assert difference is not None, (
            f"{comparison.key} now matches extruct: remove it from EXPECTED_DIFFERENCES"
            f" ({EXPECTED_DIFFERENCES[comparison.key]})"
        )
        return
    assert difference is None, f"{comparison.key} ({comparison.syntax}): {difference}"


def test_extruct_samples_summary(conformance_report) -> None:
    """Per-folder counts; the difference lists name real comparisons and stay disjoint."""
    keys = {c.key for c in COMPARISONS}
    assert set(EXPECTED_DIFFERENCES) <= keys, set(EXPECTED_DIFFERENCES) - keys
    assert set(KNOWN_BUGS) <= keys, set(KNOWN_BUGS) - keys
    assert not set(EXPECTED_DIFFERENCES) & set(KNOWN_BUGS)
    unexpected = []
    differences: dict[str, str] = {}
    for c in COMPARISONS:
        if c.difference() is None:
            continue
        if c.key in EXPECTED_DIFFERENCES:
            differences[c.key] = "expected: " + EXPECTED_DIFFERENCES[c.key][:80]
        elif c.key in KNOWN_BUGS:
            differences[c.key] = "bug: " + KNOWN_BUGS[c.key][:80]
        else:
            differences[c.key] = "UNEXPECTED"
            unexpected.append(c.key)
    conformance_report(
        "extruct-samples",
        len(COMPARISONS) - len(differences),
        len(COMPARISONS),
        differences,
        what=f"json-ld/microdata comparisons agree with extruct ({len(PAGES)} pages extracted)",
    )
    assert not unexpected, f"differences not listed anywhere: {unexpected}"
