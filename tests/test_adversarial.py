"""The adversarial corpus (``fixtures/adversarial/<case>/``): bad input never crashes, never
hangs, stays bounded in memory, and still yields the page's valid data.

Every case is also checked record by record against its ``expected.json`` by
``tests/test_fixtures.py``. Here, on top of that:

* each committed page extracts in bounded time, with no ``extractor-failed`` record, every
  record strict JSON (no NaN/Infinity, valid UTF-8), and the facts in ``meta.json``'s
  ``expect`` hold (error codes present, entity records present or absent, labels, substrings);
* cases with a ``generate`` recipe are rebuilt at test time at full size (a 20 MB JSON-LD
  block, 10,000-deep DOMs, 200,000 elements, a gzip bomb...) from the committed page, and
  ``generated_expect`` is checked the same way, plus the peak memory growth of the
  extraction, measured in a fresh Python process (RSS high-water mark);
* the whole adversarial corpus, committed and generated, extracts within a time budget,
  measured by a test of its own (in a fresh process), whatever the other tests did.

``generate`` recipes: ``{"repeat": [[text, n], ...], "numbered": [[template, n], ...],
"replace": [[old, new], ...]}`` repeats each ``text`` (found exactly once in the page) ``n``
times in place, replaces each ``template`` written with ``{i}``=1 and ``{j}``=2 (found once)
by its copies for ``i`` = 1..n (``j`` = i+1), then applies the replacements;
``{"gzip_of": [[text, n], ...]}`` makes the body the gzip of the repeated texts.
"""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from structcrawl.core.document import ElementPaths, parse_html
from structcrawl.core.limits import DEFAULT_LIMITS, Limits, json_depth_exceeds
from structcrawl.extract import extract_payload
from structcrawl.extract._jsonparse import parse_json
from tests._checks import case_failures
from tests._fixtures import ROOT, Case

CASES = [Case(p.parent) for p in sorted((ROOT / "adversarial").glob("*/meta.json"))]
GENERATED = [c for c in CASES if "generate" in c.meta]
MAX_SECONDS = 5.0  # per case, committed or generated (generous on this 2-CPU machine)
SUITE_SECONDS = 90.0  # every case above, committed and generated, together
DEFAULT_MAX_RSS_MB = 200


# -- helpers -----------------------------------------------------------------------------------


def _status_kb(field: str) -> int | None:
    try:
        text = Path("/proc/self/status").read_text()
    except OSError:
        return None
    match = re.search(rf"^{field}:\s+(\d+) kB", text, re.M)
    return int(match.group(1)) if match else None


def _measure(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    """``(result, seconds, peak memory growth in MB)``: the RSS high-water mark (reset through
    /proc/self/clear_refs) where Linux allows it, else the Python heap peak (tracemalloc)."""
    rss_before = _status_kb("VmRSS")
    try:
        Path("/proc/self/clear_refs").write_text("5")
        use_rss = rss_before is not None
    except OSError:
        use_rss = False
    if not use_rss:
        tracemalloc.start()
    start = time.perf_counter()
    result = fn()
    seconds = time.perf_counter() - start
    if use_rss:
        peak = ((_status_kb("VmHWM") or 0) - (rss_before or 0)) / 1024
    else:
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    return result, seconds, peak


def _generate(case: Case) -> bytes:
    recipe = case.meta["generate"]
    if "gzip_of" in recipe:
        raw = b"".join(text.encode("utf-8") * n for text, n in recipe["gzip_of"])
        return gzip.compress(raw, compresslevel=9, mtime=0)
    text = case.page.read_bytes().decode("utf-8")
    for piece, times in recipe.get("repeat", []):
        assert text.count(piece) == 1, f"{case.name}: {piece[:40]!r} must occur once in the page"
        text = text.replace(piece, piece * times)
    for template, times in recipe.get("numbered", []):
        first = _number(template, 1)
        assert text.count(first) == 1, f"{case.name}: {first[:40]!r} must occur once in the page"
        text = text.replace(first, "".join(_number(template, k) for k in range(1, times + 1)))
    for old, new in recipe.get("replace", []):
        text = text.replace(old, new)
    return text.encode("utf-8")


def _number(template: str, k: int) -> str:
    return template.replace("{i}", str(k)).replace("{j}", str(k + 1))


def _entity_key(rec: dict[str, Any]) -> tuple[str, str]:
    return rec["format"], (rec["type"][0] if rec["type"] else "")


def _check(name: str, records: list[dict[str, Any]], kind: str, expect: dict[str, Any]) -> None:
    """The checks every adversarial extraction must pass, then the case's own ``expect``."""
    dumped = json.dumps(records, allow_nan=False, ensure_ascii=False)
    dumped.encode("utf-8")  # no lone surrogates anywhere
    # warnings (kind "warning": itemprop outside items, itemref to a missing id) are not errors
    codes = Counter(r["error"]["code"] for r in records if r["error"] and r["kind"] != "warning")
    assert "extractor-failed" not in codes, f"{name}: an extractor raised: {records}"
    for rec in records:
        if rec["kind"] in ("error", "skip"):
            assert rec["error"]["code"] and rec["error"]["message"], f"{name}: {rec}"
    assert kind == expect.get("kind", "html"), f"{name}: payload kind {kind}"
    for code in expect.get("codes", []):
        assert code in codes, f"{name}: no {code} record; codes: {dict(codes)}"
    if expect.get("codes") == [] and "kind" not in expect:
        errors = {c: n for c, n in codes.items() if c not in ("json-ld-null", "json-ld-empty")}
        assert not errors, f"{name}: unexpected error records {errors}"
    for code, count in expect.get("count_codes", {}).items():
        assert codes[code] == count, f"{name}: {codes[code]} {code} records, expected {count}"
    entities = Counter(_entity_key(r) for r in records if r["kind"] == "entity")
    for fmt, type_ in expect.get("entities", []):
        assert entities[(fmt, type_)], f"{name}: no {fmt} {type_!r} entity; {dict(entities)}"
    for fmt, type_ in expect.get("no_entities", []):
        assert not entities[(fmt, type_)], f"{name}: unexpected {fmt} {type_!r} entity"
    by_format = Counter(r["format"] for r in records if r["kind"] == "entity")
    for fmt, count in expect.get("entity_count", {}).items():
        assert by_format[fmt] == count, f"{name}: {by_format[fmt]} {fmt} entities, not {count}"
    labels = {label for r in records for label in r["repairs"]}
    for label in expect.get("repairs", []):
        assert label in labels, f"{name}: no record labelled {label}; labels: {labels}"
    for text in expect.get("contains", []):
        assert text in dumped, f"{name}: {text!r} missing from the output"
    for text in expect.get("absent", []):
        assert text not in dumped, f"{name}: {text!r} must not appear in the output"
    if "message_contains" in expect:
        messages = [r["error"]["message"] for r in records if r["error"]]
        assert any(expect["message_contains"] in m for m in messages), f"{name}: {messages}"


# -- the corpus --------------------------------------------------------------------------------


def test_corpus_has_at_least_60_cases_with_expectations() -> None:
    assert len(CASES) >= 60, f"only {len(CASES)} adversarial cases"
    for case in CASES:
        meta = case.meta
        assert {"url", "description", "checks", "expect"} <= set(meta), case.name
        assert "content_type" in meta, case.name
        assert case.page.stat().st_size < 12_000, f"{case.name}: keep committed pages small"
        assert case.expected_path.exists(), f"{case.name}: run make fixtures-regen and review"
    assert len(GENERATED) >= 15


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_committed_page(case: Case) -> None:
    meta = case.meta
    result, seconds, _ = _measure(
        lambda: extract_payload(case.page.read_bytes(), meta["url"], meta.get("content_type"))
    )
    assert seconds < min(meta["expect"].get("max_seconds", MAX_SECONDS), MAX_SECONDS), (
        f"{case.name}: {seconds:.2f}s"
    )
    records = [r.to_dict() for r in result.records]
    _check(case.name, records, result.payload_kind, meta["expect"])


def _extract_generated(folder: str) -> dict[str, Any]:
    """Build a case's generated body and extract it, measuring time and memory (run in a
    fresh process by :func:`test_generated_page`, so freed memory of earlier tests does not
    hide this one's peak)."""
    case = Case(Path(folder))
    body = _generate(case)
    meta = case.meta
    result, seconds, peak = _measure(
        lambda: extract_payload(body, meta["url"], meta.get("content_type"))
    )
    return {
        "bytes": len(body),
        "seconds": seconds,
        "peak_mb": peak,
        "kind": result.payload_kind,
        "records": [r.to_dict() for r in result.records],
    }


_CHILD = (
    "import json, sys\n"
    "from tests.test_adversarial import _extract_generated\n"
    "json.dump(_extract_generated(sys.argv[1]), sys.stdout)\n"
)


@pytest.mark.parametrize("case", GENERATED, ids=[c.name for c in GENERATED])
def test_generated_page(case: Case) -> None:
    expect = case.meta["generated_expect"]
    child = subprocess.run(
        [sys.executable, "-c", _CHILD, str(case.folder)],
        capture_output=True,
        cwd=ROOT.parent,
        timeout=120,
        check=False,
    )
    assert child.returncode == 0, child.stderr.decode("utf-8", "replace")[-3000:]
    out = json.loads(child.stdout)
    seconds, peak_mb = out["seconds"], out["peak_mb"]
    assert seconds < min(expect.get("max_seconds", MAX_SECONDS), MAX_SECONDS), (
        f"{case.name} ({out['bytes']:,} bytes): {seconds:.2f}s"
    )
    max_mb = expect.get("max_rss_mb", DEFAULT_MAX_RSS_MB)
    assert peak_mb < max_mb, f"{case.name}: peak memory grew {peak_mb:.0f} MB (bound {max_mb})"
    _check(case.name + " (generated)", out["records"], out["kind"], expect)
    failures = case_failures(out["records"], case.meta["checks"], on="generated")
    assert not failures, f"{case.name} (generated):\n" + "\n".join(failures)


# -- case-specific facts beyond meta.json ------------------------------------------------------


def _records(name: str, *, generated: bool = False) -> list[dict[str, Any]]:
    case = Case(ROOT / "adversarial" / name)
    body = _generate(case) if generated else case.page.read_bytes()
    result = extract_payload(body, case.meta["url"], case.meta.get("content_type"))
    return [r.to_dict() for r in result.records]


def test_huge_jsonld_block_keeps_only_an_excerpt() -> None:
    records = _records("jsonld-huge-string-head-first", generated=True)
    (too_large,) = [r for r in records if (r["error"] or {}).get("code") == "json-ld-too-large"]
    assert len(too_large["raw"]) == 2_000
    assert "max_json_chars" in too_large["error"]["message"]
    (cut,) = [r for r in records if (r["error"] or {}).get("code") == "document-too-large"]
    assert cut["format"] == "page" and "max_body_bytes" in cut["error"]["message"]
    assert records[0]["error"]["code"] == "document-too-large"  # page problems come first


def test_deep_dom_is_rebuilt_not_truncated() -> None:
    records = _records("dom-deep-nesting", generated=True)
    (item,) = [r for r in records if r["format"] == "microdata"]
    assert item["properties"]["name"] == "Bottom item"  # the item keeps its own structure
    assert item["source_element"].count("/") <= DEFAULT_LIMITS.max_dom_depth
    (deep,) = [r for r in records if r["error"]]
    assert deep["error"]["code"] == "document-too-deep" and deep["format"] == "page"


def test_huge_attribute_value_is_kept_whole() -> None:
    records = _records("attr-10mb-value", generated=True)
    (item,) = [r for r in records if r["format"] == "microdata"]
    assert len(item["properties"]["description"]) == 2_000_000
    assert not [r for r in records if r["error"]]


def test_lone_surrogates_and_overflow_become_safe_values() -> None:
    (product,) = _records("jsonld-lone-surrogate")
    assert product["properties"]["name"] == "Emoji Socks \U0001f9e6"
    assert product["properties"]["description"] == "broken \ufffd escape and \ufffd too"
    (big,) = _records("jsonld-number-overflow")
    assert big["properties"]["width"] is None and big["properties"]["height"] == 12.5
    assert "1e999" in big["raw"]


def test_fanouts_stay_small() -> None:
    """A 3 KB page that would fan out into 2^31 nested records gives a few megabytes at most."""
    md = _records("microdata-itemref-fanout", generated=True)
    assert sum(1 for r in md if r["kind"] == "entity") == 1
    (cut,) = [r for r in md if r["kind"] == "error"]
    assert cut["error"]["code"] == "microdata-too-complex"
    assert "max_shared" in cut["error"]["message"]
    assert len(json.dumps(md)) < 10_000_000
    rdfa = _records("rdfa-shared-bnode-dag", generated=True)
    ids = {r["id"] for r in rdfa if r["kind"] == "entity"}
    assert "https://dag.example/root" in ids
    assert len(json.dumps(rdfa)) < 10_000_000
    # nodes cut from nesting are records of their own, so their references resolve
    refs = set(re.findall(r'"@id": "(_:[^"]+)"', json.dumps(rdfa)))
    assert refs and refs - ids == {"_:un31"}  # the last node has no triples of its own


def test_bnode_cycle_loses_no_triples() -> None:
    records = _records("rdfa-bnode-cycle")
    # names are language-tagged literals (the value model): {"@value": "A", "@language": ...}
    dumped = json.dumps([r["properties"] for r in records])
    names = re.findall(r'"name": \{"@value": "([AB])"', dumped)
    assert set(names) == {"A", "B"}


def test_xhtml_entities_are_never_expanded() -> None:
    dumped = json.dumps(_records("xhtml-external-entity-file"))
    assert "&xxe;" in dumped and "root:" not in dumped
    laughs = _records("xhtml-billion-laughs")
    assert len(json.dumps(laughs)) < 10_000


# -- the bounds themselves ---------------------------------------------------------------------


def test_limits_are_honoured_when_passed() -> None:
    tight = Limits(max_items=2, max_blocks=3, max_json_depth=2)
    block = '<script type="application/ld+json">{"@type": "Thing", "a": [1]}</script>'
    result = extract_payload((block * 5).encode(), "https://t.example/", "text/html", limits=tight)
    codes = [r.error.code for r in result.records if r.error]
    assert codes == ["json-ld-too-many-items"]
    assert sum(r.kind == "entity" for r in result.records) == 2
    deep = '<script type="application/ld+json">{"@type": "Thing", "a": [[1]]}</script>'
    result = extract_payload(deep.encode(), "https://t.example/", "text/html", limits=tight)
    assert [r.error.code for r in result.records if r.error] == ["json-ld-too-deep"]


def test_body_is_cut_by_bytes_then_by_start_tags() -> None:
    doc = parse_html(b"<p>1</p>" * 10, "https://t.example/", limits=Limits(max_elements=4))
    assert len(doc.root.findall(".//p")) == 4
    assert [code for code, _ in doc.problems] == ["document-too-large"]
    doc = parse_html(b"<p>1</p>" * 10, "https://t.example/", limits=Limits(max_body_bytes=20))
    assert len(doc.root.findall(".//p")) == 3  # the third is cut mid-element
    assert "max_body_bytes" in doc.problems[0][1]


def test_over_deep_pages_keep_everything_after_the_depths() -> None:
    body = "<div>" * 3000 + "<b>deep</b>" + "</div>" * 3000 + "<p id=after>after</p>"
    doc = parse_html(body.encode(), "https://t.example/")
    assert doc.root.find(".//b").text == "deep"
    assert doc.root.find(".//p").text == "after"
    assert [code for code, _ in doc.problems] == ["document-too-deep"]
    deepest, stack = 0, [(doc.root, 1)]
    while stack:
        el, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in el)
    assert deepest <= DEFAULT_LIMITS.max_dom_depth


def test_element_paths_are_linear_on_wide_pages() -> None:
    body = "<html><head>" + '<meta property="og:x" content="1">' * 50_000 + "</head></html>"
    doc = parse_html(body.encode(), "https://t.example/")
    metas = list(doc.root.iter("meta"))
    start = time.perf_counter()
    paths = [doc.path_of(el) for el in metas]
    assert time.perf_counter() - start < 2.0
    assert paths[-1] == "/html/head/meta[50000]"
    assert paths[7] == doc.root.getroottree().getpath(metas[7])
    paths_again = ElementPaths(doc.root)
    assert [paths_again(el) for el in metas[:20]] == paths[:20]


@pytest.mark.parametrize(
    "text",
    [
        "<!-- -->" * 200 + "x",
        '{"a": 1}' + "<!---->" * 200 + "<!--",
        "<!--" * 5000,
        "[" * 200_000,
        '{"a":' * 50_000,
        "/*" * 100_000,
        '"' + "\\" * 100_001,
    ],
)
def test_json_repairs_run_in_linear_time(text: str) -> None:
    start = time.perf_counter()
    parsed = parse_json(text, max_depth=100, max_repair_chars=1_000_000)
    assert time.perf_counter() - start < 2.0
    assert not parsed.ok


def test_json_depth_is_measured_without_recursion() -> None:
    value: Any = 1
    for _ in range(100_000):
        value = [value]
    assert json_depth_exceeds(value, 100)
    assert not json_depth_exceeds(value, 100_001)


# -- the whole suite ---------------------------------------------------------------------------


def _time_every_case() -> dict[str, float]:
    """Extract every committed page and every generated body once, in this process, and
    return the seconds each extraction took (run in a fresh process by
    :func:`test_whole_adversarial_suite_in_bounded_time`)."""
    durations: dict[str, float] = {}
    for case in CASES:
        meta = case.meta
        for label, body in [("committed", case.page.read_bytes())] + (
            [("generated", _generate(case))] if "generate" in meta else []
        ):
            start = time.perf_counter()
            extract_payload(body, meta["url"], meta.get("content_type"))
            durations[f"{case.name}/{label}"] = time.perf_counter() - start
    return durations


_TIMING_CHILD = (
    "import json, sys\n"
    "from tests.test_adversarial import _time_every_case\n"
    "json.dump(_time_every_case(), sys.stdout)\n"
)


@pytest.mark.timeout(SUITE_SECONDS * 3)
def test_whole_adversarial_suite_in_bounded_time() -> None:
    """Every committed and generated case, extracted back to back in a fresh process, takes
    ``SUITE_SECONDS`` at most. Measured here on its own, so it is checked whatever the other
    tests of this file did (ran, failed or were deselected)."""
    child = subprocess.run(
        [sys.executable, "-c", _TIMING_CHILD],
        capture_output=True,
        cwd=ROOT.parent,
        timeout=SUITE_SECONDS * 2,
        check=False,
    )
    assert child.returncode == 0, child.stderr.decode("utf-8", "replace")[-3000:]
    durations: dict[str, float] = json.loads(child.stdout)
    assert len(durations) == len(CASES) + len(GENERATED)
    total = sum(durations.values())
    slowest = max(durations.items(), key=lambda kv: kv[1])
    assert total < SUITE_SECONDS, f"{total:.1f}s in all; slowest {slowest}"


def test_a_failed_rebuild_says_what_it_lost(monkeypatch) -> None:
    """A parser error while rebuilding a too-deep page is not swallowed: the page says where
    the rebuild stopped and no longer claims that all content was kept (issue 15)."""
    from lxml import etree

    from structcrawl.core import _deep

    real = _deep._CappedBuilder.data

    def failing(self, text):
        if text == "deep":
            raise etree.ParserError("simulated parser failure")
        real(self, text)

    monkeypatch.setattr(_deep._CappedBuilder, "data", failing)
    body = "<div>" * 3000 + "<b>deep</b>" + "</div>" * 3000 + "<p id=after>after</p>"
    doc = parse_html(body.encode(), "https://t.example/")
    codes = [code for code, _ in doc.problems]
    assert codes == ["document-too-deep", "document-rebuild-failed"]
    messages = dict(doc.problems)
    assert "all content was kept" not in messages["document-too-deep"]
    failed = messages["document-rebuild-failed"]
    assert "ParserError: simulated parser failure" in failed
    assert "after 3,002 elements, inside <b>" in failed  # <body>, 3,000 <div>, <b>
    assert doc.root.find(".//b").text is None and doc.root.find(".//p") is None  # indeed lost
