"""extruct's sample pages (``extruct-samples/``) run through structcrawl, extruct as reference.

Every ``.html`` page goes through :func:`structcrawl.extract.extract_payload`, which must not
raise, must return records, and must not report a crashed extractor. Every expected output file
(``.jsonld``, ``.json``, ``*.flat.json``, ``*.expanded.json``, ...) then gives one comparison
per syntax it holds (JSON-LD, microdata, RDFa, Open Graph, microformats, Dublin Core; extruct's
all-syntax dicts give one per syntax key, ``<file>#<syntax>``), or is listed in
:data:`NOT_COMPARED` with the reason.

A comparison is made on *values*: both sides are read into multisets of facts
``(subject, property path, value)`` by :mod:`tests._extruct_facts`, whose two documented
functions (``normalise`` and ``match_relative``) remove the legitimate representational
differences (whitespace, a single value versus a one-item list, value objects, relative URLs
extruct leaves unresolved when called without a base URL). Every fact only one side has is a
disagreement; each must match an entry of :data:`DISAGREEMENTS` (comparison key + path pattern
-> reason), and each entry must still match a disagreement (so the list stays honest).

extruct's output is a reference, not the truth: an entry says why structcrawl's value rightly
differs (or, in :data:`KNOWN_BUGS`, that it is our bug).

Pages are extracted at the URL extruct's own tests use for that expected file
(:data:`EXTRUCT_URLS`), else at ``https://extruct-samples.test/<folder>/<file name>`` (a
reserved ``.test`` host, so no resolved URL can be mistaken for a real one).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from structcrawl.extract import PageExtraction, extract_payload
from tests._conformance import suite_dir
from tests._extruct_facts import Fact, extruct_facts, match_references, match_relative, our_facts

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

#: The URL extruct's own tests (tests/test_*.py in scrapinghub/extruct) pass as base URL when
#: producing the expected file, by expected file or by folder.
_EXAMPLE_INDEX = "http://www.example.com/index.html"
EXTRUCT_URLS = {
    "w3crdfa/": _EXAMPLE_INDEX,
    "wikipedia/": _EXAMPLE_INDEX,
    "misc/expanded_OG_support_test.json": _EXAMPLE_INDEX,
    "misc/Portfolio_Niels_Lubberman.json": "http://nielslubberman.nl/drupal/",
    "w3c/microdata.7.1.json": "http://blog.example.com/progress-report",
    "w3c/microdata.7.1.flat.json": "http://blog.example.com/progress-report",
    "w3c/microdata.object.json": "http://www.example.com/microdata/test",
    "schema.org/product_custom_url.json": "http://some-example.com",
    "schema.org/product_custom_url_and_node_id.json": "http://some-example.com",
    "songkick/elysianfields.json": "http://www.songkick.com/artists/236156-elysian-fields",
    # not in extruct's tests: read off the subject of the file's RDFa triples
    "songkick/elysianfields_1.json": "http://www.songkick.com/artists/236156-elysian-fields",
    "songkick/tovestyrke.json": (
        "https://www.songkick.com/concerts/30166884-tove-styrke-at-hoxton-square-bar-and-kitchen"
    ),
}

#: Expected file -> why it gives no comparison at all (none today: every file is compared).
NOT_COMPARED: dict[str, str] = {}

_INVENTED_VALUE = (
    "extruct's uniform output gives an item that is a property value (or has an itemid but no"
    " itemprop) an invented `value` (its text); WHATWG microdata gives an item only its"
    " itemprop properties, and so does structcrawl"
)
_OG_IN_RDFA = (
    "structcrawl's RDFa records leave out Open Graph predicates (ogp.me namespaces): the"
    " opengraph extractor reports them once, as the page's opengraph record"
    " (extract/rdfa/records.py _META_PREDICATE), instead of twice"
)
_USES_VOCABULARY = (
    "rdfa:usesVocabulary is the processor's note that @vocab was used, about the markup, not"
    " the page's data: structcrawl's RDFa records skip it on purpose (records.py"
    " _SKIP_PREDICATES)"
)
_FB_TAGS = (
    "fb:admins / fb:app_id are tags Facebook's Open Graph parser reads; extruct's opengraph"
    " output leaves them out here (it keeps fb: only when the page declares it in a prefix"
    " attribute), structcrawl always reads the fb: prefix with the og: ones"
)
_DC_BARE_NAME = (
    "extruct's Dublin Core reader takes a <meta name=description> (no DC./DCTERMS. prefix)"
    " as dc:description; that is HTML's own description meta, not Dublin Core"
)
_MF2_NESTED_VALUE = (
    "mf2 gives an embedded microformat a `value` (here the author h-card's name text, which"
    " is also its `name`); parse_mf2 produces it (the mf2 conformance suite checks it) but"
    " structcrawl's records keep a nested item's properties only"
)

_UNDECLARED_PREFIX = (
    "al:ios:url (App Links) uses the prefix al:, which the page never declares and the RDFa"
    " initial context does not define; rdflib reads it as an IRI of the scheme 'al', structcrawl"
    " treats an undeclared prefix as the mistake it is (no triple, an rdfa-undefined-prefix"
    " warning); only registered schemes such as urn: and mailto: are IRIs without '//'"
)

#: (comparison key, path pattern) -> why the facts at matching paths differ from extruct's.
#: The pattern is an :func:`fnmatch.fnmatchcase` pattern over the fact's property path
#: (``"offers.*"``, ``"http://ogp.me/ns*"``; ``"*"`` matches every path of the comparison).
DISAGREEMENTS: dict[tuple[str, str], str] = {
    ("schema.org/CreativeWork.001.json", "*value"): _INVENTED_VALUE,
    ("schema.org/CreativeWork_flat.001.json#microdata", "*value"): _INVENTED_VALUE,
    ("schema.org/CreativeWork_flat_with_node_id.001.json#microdata", "*value"): _INVENTED_VALUE,
    ("schema.org/product-ref.json", "*"): (
        "extruct follows itemref='more-properties' into an element that has its own itemscope"
        " and adds that item's `prop3` (and image) to the Product; the WHATWG 'crawl the"
        " properties' algorithm does not descend into a referenced element with itemscope, and"
        " that element has no itemprop, so it adds nothing (it stays a top-level item of its own)"
    ),
    ("schema.org/SearchAction.001.json", "potentialAction.query-input*"): (
        "<input itemprop=query-input name=search_term_string required>: extruct writes the"
        " specification as valueName/valueRequired properties, structcrawl as its textual form"
        " 'required name=search_term_string' (schema.org/docs/actions.html, the form its JSON-LD"
        " examples use); one specification, two shapes"
    ),
    ("w3c/microdata.4.2.strings.unclean.json", "*"): (
        "WHATWG microdata: the value is the element's textContent, which includes the text of"
        " its <style> and <script> children; extruct's strict mode drops that text"
    ),
    ("websites/microdata-with-description.json", "description"): (
        "the value is textContent ('Pack' directly followed by 'For' across a <br>/<p>);"
        " extruct's text extraction puts a space between block elements"
    ),
    ("misc/Portfolio_Niels_Lubberman.json", "http://purl.org/rss/1.0/modules/content/encoded"): (
        "the page declares XHTML+RDFa 1.0, where a property on an element with child elements"
        " is an XMLLiteral; structcrawl processes RDFa 1.1 (HTML+RDFa), where it is the text"
    ),
    ("misc/Portfolio_Niels_Lubberman.json", "http://www.w3.org/1999/xhtml/vocab#*"): (
        "rel=alternate / rel=icon give xhv: triples only in the XHTML host language (RDFa 1.0"
        " and XHTML+RDFa); in HTML+RDFa 1.1, which structcrawl processes, such rel values are"
        " not CURIEs and give no triple"
    ),
    ("misc/expanded_OG_support_test.json", "http*://ogp.me/ns*"): _OG_IN_RDFA,
    ("songkick/elysianfields.json#rdfa", "http*://ogp.me/ns*"): _OG_IN_RDFA,
    ("songkick/elysianfields_1.json#rdfa", "http*://ogp.me/ns*"): _OG_IN_RDFA,
    ("songkick/tovestyrke.json#rdfa", "http*://ogp.me/ns*"): _OG_IN_RDFA,
    ("songkick/elysianfields.json#rdfa", "al:*"): _UNDECLARED_PREFIX,
    ("songkick/elysianfields_1.json#rdfa", "al:*"): _UNDECLARED_PREFIX,
    ("songkick/tovestyrke.json#rdfa", "al:*"): _UNDECLARED_PREFIX,
    **{
        (f"w3crdfa/w3c.{name}.expanded.json", "http://www.w3.org/ns/rdfa#usesVocabulary"): (
            _USES_VOCABULARY
        )
        for name in (
            "rdfalite.example003",
            "rdfalite.example004",
            "rdfalite.example005",
            "rdfaprimer.example006",
            "rdfaprimer.example007",
            "rdfaprimer.example008",
            "rdfaprimer.example009",
            "rdfaprimer.example010",
            "rdfaprimer.example011",
            "rdfaprimer.example015",
        )
    },
    ("misc/opengraph_test.json", "fb:admins"): _FB_TAGS,
    ("misc/opengraph_flat_test.json", "fb:admins"): _FB_TAGS,
    ("misc/opengraph_ns_product_test.json", "fb:app_id"): _FB_TAGS,
    ("songkick/elysianfields_1.json#opengraph", "test[12]:image"): (
        "test1:/test2: are prefixes the page declares for http://example.org/testN#, not Open"
        " Graph namespaces: structcrawl reads those tags as RDFa (they agree in this file's"
        " rdfa comparison); extruct's opengraph output also lists every declared prefix"
    ),
    ("songkick/elysianfields.json#dublincore", "dc:description"): _DC_BARE_NAME,
    ("songkick/tovestyrke.json#dublincore", "dc:description"): _DC_BARE_NAME,
    ("misc/microformat_test.json", "author.value"): _MF2_NESTED_VALUE,
    ("misc/microformat_flat_test.json", "author.value"): _MF2_NESTED_VALUE,
}

#: (comparison key, path pattern) -> a structcrawl bug that makes it differ.
KNOWN_BUGS: dict[tuple[str, str], str] = {}

SYNTAXES = ("json-ld", "microdata", "rdfa", "opengraph", "microformat", "dublincore")


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


def url_for(expected: str) -> str:
    """The URL the page of ``expected`` is extracted at (see :data:`EXTRUCT_URLS`)."""
    for key in (expected, expected.split("/", 1)[0] + "/"):
        if key in EXTRUCT_URLS:
            return EXTRUCT_URLS[key]
    return page_url(page_of(expected))


@cache
def extraction(page: str, url: str) -> PageExtraction:
    return extract_payload((SUITE / page).read_bytes(), url, "text/html")


# --- which syntax an expected file holds ------------------------------------------------------------


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _classify_list(expected: str, data: list[Any]) -> str | None:
    """The syntax of a list-shaped expected file (extruct writes one syntax per file)."""
    if expected.endswith(".jsonld"):
        return "json-ld"
    dicts = [i for i in data if isinstance(i, dict)]
    if not dicts or len(dicts) != len(data):
        return None
    first = dicts[0]
    if "namespaces" in first and ("elements" in first or "terms" in first):
        return "dublincore"
    if "namespace" in first or any(k.startswith("og:") for k in first):
        return "opengraph"
    types = first.get("type", first.get("@type", []))
    if any(isinstance(t, str) and t.startswith("h-") for t in _as_list(types)):
        return "microformat"
    if all("@id" in d and all(k in ("@id", "@type") or "://" in k for k in d) for d in dicts):
        return "rdfa"  # expanded JSON-LD: @id plus full-IRI predicates
    if all("properties" in d or "@type" in d or "value" in d for d in dicts):
        return "microdata"
    return None


def expected_syntaxes(expected: str, data: Any) -> dict[str, list[Any]]:
    """The outputs an expected file holds, by (extruct's) syntax name."""
    if isinstance(data, dict) and isinstance(data.get("items"), list):  # old JSON-LD form
        return {"json-ld": data["items"]}
    if isinstance(data, dict):
        return {s: data[s] for s in SYNTAXES if isinstance(data.get(s), list)}
    if isinstance(data, list):
        syntax = _classify_list(expected, data)
        return {syntax: data} if syntax else {}
    return {}


# --- comparisons ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Comparison:
    key: str  # folder/file, or folder/file#syntax for extruct's all-syntax outputs
    expected_file: str
    page: str
    syntax: str

    @property
    def url(self) -> str:
        return url_for(self.expected_file)

    def expected_items(self) -> list[Any]:
        data = json.loads((SUITE / self.expected_file).read_text("utf-8"))
        return expected_syntaxes(self.expected_file, data)[self.syntax]

    def disagreements(self) -> tuple[list[Fact], list[Fact], int]:
        """``(facts only extruct has, facts only structcrawl has, extruct's facts agreed)``."""
        result = extraction(self.page, self.url)
        base = result.base_url or self.url
        theirs = extruct_facts(self.expected_items(), self.syntax, base)
        ours = our_facts([r.to_dict() for r in result.records], self.syntax, base)
        only_extruct, only_ours = theirs - ours, ours - theirs
        match_relative(only_extruct, only_ours, base)
        match_references(only_extruct, only_ours, base)
        agreed = sum(theirs.values()) - sum(only_extruct.values())
        return sorted(only_extruct.elements()), sorted(only_ours.elements()), agreed


def listed(table: dict[tuple[str, str], str], key: str, path: str) -> tuple[str, str] | None:
    """The entry of ``table`` that covers a disagreement at ``path`` in comparison ``key``."""
    for entry_key, pattern in table:
        if entry_key == key and fnmatchcase(path, pattern):
            return entry_key, pattern
    return None


def _comparisons() -> list[Comparison]:
    found = []
    for expected in EXPECTED_FILES:
        data = json.loads((SUITE / expected).read_text("utf-8"))
        all_syntax = isinstance(data, dict) and "items" not in data
        for syntax in expected_syntaxes(expected, data):
            key = f"{expected}#{syntax}" if all_syntax else expected
            found.append(Comparison(key, expected, page_of(expected), syntax))
    return found


COMPARISONS = _comparisons()


# --- tests ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("page", PAGES)
def test_page_extracts(page: str) -> None:
    """Every sample page extracts without raising, into records, with no extractor crash."""
    result = extraction(page, page_url(page))
    assert result.payload_kind == "html"
    assert result.records, f"{page}: no records"
    crashed = [
        r.error.to_dict() for r in result.records if r.error and r.error.code == "extractor-failed"
    ]
    assert not crashed, f"{page}: extractor crashed: {crashed}"


def test_every_expected_file_has_a_page_and_a_comparison() -> None:
    assert PAGES and EXPECTED_FILES
    compared = {c.expected_file for c in COMPARISONS}
    for expected in EXPECTED_FILES:
        assert page_of(expected) in PAGES, expected
        assert (expected in compared) != (expected in NOT_COMPARED), expected


def _unlisted(comparison: Comparison) -> list[str]:
    only_extruct, only_ours, _ = comparison.disagreements()
    return [
        f"only {side}: {fact}"
        for side, facts in (("extruct", only_extruct), ("structcrawl", only_ours))
        for fact in facts
        if listed(DISAGREEMENTS, comparison.key, fact[1]) is None
        and listed(KNOWN_BUGS, comparison.key, fact[1]) is None
    ]


@pytest.mark.parametrize("comparison", COMPARISONS, ids=[c.key for c in COMPARISONS])
def test_matches_extruct(comparison: Comparison) -> None:
    """Every fact extruct and structcrawl disagree on is listed with its reason."""
    unlisted = _unlisted(comparison)
    assert not unlisted, "\n".join(unlisted[:60])


def test_extruct_samples_summary(conformance_report) -> None:
    """Counts, each listed disagreement with its reason; no stale entry in the lists."""
    keys = {c.key for c in COMPARISONS}
    used: dict[tuple[str, str], int] = {}
    facts = agreed = 0
    unlisted: list[str] = []
    for c in COMPARISONS:
        only_extruct, only_ours, ok = c.disagreements()
        agreed += ok
        facts += ok + len(only_extruct)
        for fact in only_extruct + only_ours:
            entry = listed(DISAGREEMENTS, c.key, fact[1]) or listed(KNOWN_BUGS, c.key, fact[1])
            if entry is None:
                unlisted.append(f"{c.key}: {fact}")
            else:
                used[entry] = used.get(entry, 0) + 1
    reasons = {**DISAGREEMENTS, **{k: "BUG: " + v for k, v in KNOWN_BUGS.items()}}
    conformance_report(
        "extruct-samples",
        agreed,
        facts,
        {f"{k} {p} ({n} facts)": reasons[k, p][:100] for (k, p), n in used.items()},
        what=(
            f"of extruct's facts agreed ({len(COMPARISONS)} comparisons from"
            f" {len(EXPECTED_FILES) - len(NOT_COMPARED)} of {len(EXPECTED_FILES)} expected"
            f" files, {len(PAGES)} pages extracted)"
        ),
    )
    entries = set(DISAGREEMENTS) | set(KNOWN_BUGS)
    assert {k for k, _ in entries} <= keys, {k for k, _ in entries} - keys
    assert not set(DISAGREEMENTS) & set(KNOWN_BUGS)
    assert entries <= set(used), f"listed but no longer different: {entries - set(used)}"
    assert not unlisted, unlisted[:20]
