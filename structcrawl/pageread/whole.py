"""A page read whole in a worker process, before the crawl parses it (pure; asked by the
download handler through :class:`structcrawl.crawl.pageworkers.PageWorkers`).

A page's two parses (the crawl's and its worker's) cost a fifth of the work of a large page
(docs/speed.md). :func:`read_whole` parses the page's bytes once, in the worker, and reads all
that the crawl's common path asks of the tree: the render judgement
(:func:`structcrawl.render.routing.judge_html`), the document's base URL, encoding, bounds met
and language, its canonical URL, links and meta robots, its records
(:func:`structcrawl.extract.pagerecords.page_extraction`), the visible page's readings
(:func:`structcrawl.visible.wire.readings`) and the article main text, each where the crawl's
own rules would read it, told from the records (:func:`structcrawl.typed.shown.product_records`,
:func:`~structcrawl.typed.shown.may_read_visible`, :func:`structcrawl.typed.nodes.item_kinds`
for the grid of product cards, :func:`structcrawl.articles.complete.may_read_main_text`).

The crawl makes of the answer a :class:`Reading` and a
:class:`~structcrawl.core.document.LazyDocument` (:func:`reading_document`), whose memo holds
those readings: its readers find them there, and the tree is parsed in the crawl only for a
reader the worker did not answer (a site rule, a rendered page, a reading made for other
records). The answer is JSON; the records are :meth:`structcrawl.core.records.Record.to_dict`'s
plain data, which JSON carries unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from structcrawl.articles.body import BODY_ELEMENTS_MEMO, PAGE_TEXT_MEMO
from structcrawl.articles.complete import ARTICLE_META_MEMO
from structcrawl.core.document import LANGUAGE_MEMO, LazyDocument, page_language, parse_html
from structcrawl.core.links import LINKS_MEMO, ROBOTS_MEMO, link_hrefs, meta_robots
from structcrawl.render.routing import ShellVerdict, judge_html
from structcrawl.validate.authors import BY_LINE_MEMO, by_line
from structcrawl.visible.facts import CANONICAL_MEMO, FACTS_MEMO, canonical
from structcrawl.visible.heading import PAGE_HEADING_MEMO

__all__ = ["READ_WHOLE", "MEMOS", "Reading", "read_whole", "reading_document"]

#: how the crawl names :func:`read_whole` to its workers
READ_WHOLE = "structcrawl.pageread.whole:read_whole"
#: the memo entries the worker reads for the crawl's readers (plain data)
MEMOS = (
    CANONICAL_MEMO,
    LANGUAGE_MEMO,
    LINKS_MEMO,
    ROBOTS_MEMO,
    ARTICLE_META_MEMO,
    PAGE_HEADING_MEMO,
    BY_LINE_MEMO,
    PAGE_TEXT_MEMO,
    BODY_ELEMENTS_MEMO,
)


def read_whole(
    data: bytes, url: str, content_type: str | None, expect: list[str], spec: dict[str, Any]
) -> dict[str, Any]:
    """What the crawl asks of a page's tree, read on one parse (see the module doc).
    ``expect``: the render rule's selectors; ``spec``: what to read, :meth:`Reading.spec`.

    >>> page = b'<html lang="de"><h1>Kettle</h1><b>9,90 EUR</b><a href="/x">x</a></html>'
    >>> spec = {"extract": {"syntaxes": ["json-ld"]}, "visible": True, "main_text": False}
    >>> said = read_whole(page, "https://s.example/k", None, [], spec)
    >>> said["verdict"][0], said["memo"]["language"], said["memo"]["link-hrefs"]
    (False, 'de', ['/x'])
    >>> [r["error"]["code"] for r in said["records"]], said["visible"]["evidence"]["price"]
    (['no-records'], '9,90 EUR')
    """
    doc = parse_html(data, url, content_type=content_type)
    verdict = judge_html(doc.root, expect, doc.index())
    said: dict[str, Any] = {"verdict": [verdict.js_only, verdict.reason, list(verdict.signals)]}
    if verdict.js_only:  # the page is rendered: nothing else of this tree is read
        return said
    page_language(doc), canonical(doc), link_hrefs(doc), meta_robots(doc)
    said.update(base_url=doc.base_url, encoding=doc.encoding, problems=doc.problems)
    records: list[dict[str, Any]] | None = None
    if spec.get("extract") is not None:
        said["payload_kind"], records = _records(data, url, content_type, doc, spec["extract"])
        said["records"] = records
    _readings(doc, records or [], spec, said)
    said["memo"] = {key: doc.memo[key] for key in MEMOS if key in doc.memo}
    return said


def _records(
    data: bytes, url: str, content_type: str | None, doc: Any, extract: dict[str, Any]
) -> tuple[str, list[dict[str, Any]]]:
    from structcrawl.core.bounded import PageBudget
    from structcrawl.extract.config import ExtractConfig
    from structcrawl.extract.options import ExtractOptions
    from structcrawl.extract.pagerecords import page_extraction

    config = ExtractConfig(
        True,
        tuple(extract["syntaxes"]),
        ExtractOptions(**extract.get("options", {})),
        PageBudget(**extract.get("budget", {})),
    )
    kind, records = page_extraction(data, url, content_type, config, document=doc)
    return kind, [record.to_dict() for record in records]


def _readings(doc: Any, records: list[dict[str, Any]], spec: dict[str, Any], said: dict) -> None:
    """The visible page's readings and the main text, where the crawl reads them for these
    records (:mod:`structcrawl.crawl.pipelines.pagework`)."""
    from structcrawl.articles.complete import article_body_readings, may_read_main_text
    from structcrawl.typed.nodes import item_kinds
    from structcrawl.typed.shown import may_read_visible, product_records
    from structcrawl.visible.facts import FACT_NAMES, read_facts
    from structcrawl.visible.heading import page_heading

    product = product_records(records)
    kinds: set[str] = set()  # the kinds of the items the resolution may build, where read
    if spec.get("visible") and (product or may_read_visible(records)):
        from structcrawl.visible.wire import readings

        kinds = item_kinds(records)
        # the grid's products (found from the cards, elements the crawl has not) where the
        # records make no product: a page that has one reads no grid (where its final records
        # make none after all, the crawl reads it itself: grid_products)
        said["visible"] = readings(doc, product=product, grid="Product" not in kinds)
        said["product"] = product
    elif spec.get("visible"):  # what the record checks read of any page (title, headings)
        said["facts"] = read_facts(doc, [name for name in FACT_NAMES if name != "prices"])
    # what the page's resolution reads of the tree on any page: the main heading's text, the
    # loose itemprops, and for a product built its URL id
    page_heading(doc)
    said["candidates"] = _candidates(doc, product)
    if not product:  # what an article's completion and checks read of the page
        shown = "visible" not in said or not _shows_own_product(doc, records, kinds)
        said["articles"] = _article_readings(doc, shown)
    if not product and may_read_main_text(records, doc):  # an article's page (told on the memo)
        by_line(doc)  # what its author check reads where the page marks no byline
        article_body_readings(records, doc)  # what checking a markup body reads of the page
        if spec.get("main_text"):
            from structcrawl.workers.maintext import document_main_text

            said["main_text"] = document_main_text(doc)


def _candidates(doc: Any, product: bool) -> dict[str, list[dict[str, Any]]]:
    from structcrawl.typed.fallbacks import ITEMPROP_MEMO, itemprop_candidates
    from structcrawl.typed.urlid import URL_ID_MEMO, url_id_candidates

    found = {ITEMPROP_MEMO: itemprop_candidates(doc)}
    if product:
        found[URL_ID_MEMO] = url_id_candidates(doc)
    # plain values (text), none overruling another: said field by field
    return {
        key: [{f: getattr(c, f) for f in _CANDIDATE_FIELDS} for c in candidates]
        for key, candidates in found.items()
        if all(not c.overrules for c in candidates)
    }


def _shows_own_product(doc: Any, records: list[dict[str, Any]], kinds: set[str]) -> bool:
    """Whether the resolution makes the page's primary item a product of its visible page,
    its records making none (:func:`structcrawl.typed.shown.is_product_page`, beside no item
    of another kind, and a price or an article code shown): a page whose primary item is no
    article reads no article's shown values (:mod:`structcrawl.articles.complete`). Records
    the crawl adds (a site rule) may make it read them after all: it then parses the page.
    ``kinds``: the records' item kinds (:func:`structcrawl.typed.nodes.item_kinds`)."""
    from structcrawl.typed.shown import PRODUCT_BESIDE, is_product_page, visible_price
    from structcrawl.visible.evidence import page_evidence

    ev = page_evidence(doc)  # read with the visible readings: on the memo
    other = sorted(kinds - PRODUCT_BESIDE)
    shown = ev.sku is not None or visible_price(ev) is not None
    return shown and is_product_page(records, [], ev, other[0] if other else None)


def _article_readings(doc: Any, shown: bool) -> dict[str, dict[str, list[list[str]]]]:
    """The meta tags' article values, and with ``shown`` the visible page's (~2.7 ms a large
    page: its byline, dates and headline)."""
    from structcrawl.articles.meta import META_MEMO, meta_fallbacks
    from structcrawl.articles.shown import SHOWN_MEMO, shown_fallbacks

    read = [(META_MEMO, meta_fallbacks(doc))]
    if shown:
        read.append((SHOWN_MEMO, shown_fallbacks(doc)))
    return {
        key: {
            field: [[v.key, v.value, v.path, v.layer] for v in found]
            for field, found in values.items()
        }
        for key, values in read
    }


#: the fields of a fallback candidate said by the worker (``overrules`` is empty)
_CANDIDATE_FIELDS = (
    "field", "value", "layer", "path", "raw", "rule", "record", "fallback", "repaired",
    "evidence",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Reading:
    """A worker's :func:`read_whole` answer, as the crawl keeps it."""

    verdict: ShellVerdict
    base_url: str = ""
    encoding: str = "utf-8"
    problems: tuple[tuple[str, str], ...] = ()
    memo: dict[str, Any] | None = None
    payload_kind: str | None = None
    records: list[dict[str, Any]] | None = None  # None: not extracted
    visible: dict[str, Any] | None = None  # the visible readings (structcrawl.visible.wire)
    product: bool | None = None  # whether they were read for a product's records
    main_text: tuple[str | None] | None = None  # (text,) where read
    candidates: dict[str, list[dict[str, Any]]] | None = None  # fallback candidates by memo
    facts: dict[str, Any] | None = None  # the visible facts, where no readings were made
    articles: dict[str, Any] | None = None  # the meta tags' and visible page's article values

    @classmethod
    def from_answer(cls, said: dict[str, Any]) -> Reading:
        js_only, reason, signals = said["verdict"]
        main_text = said.get("main_text", ())
        return cls(
            verdict=ShellVerdict(js_only, reason, tuple(signals)),
            base_url=said.get("base_url", ""),
            encoding=said.get("encoding", "utf-8"),
            problems=tuple((code, message) for code, message in said.get("problems", ())),
            memo=said.get("memo"),
            payload_kind=said.get("payload_kind"),
            records=said.get("records"),
            visible=said.get("visible"),
            product=said.get("product"),
            main_text=None if main_text == () else (main_text,),
            candidates=said.get("candidates"),
            facts=said.get("facts"),
            articles=said.get("articles"),
        )

    @staticmethod
    def spec(extract: Any, visible: bool, main_text: bool) -> dict[str, Any]:
        """What :func:`read_whole` reads: records with ``extract`` (an enabled
        :class:`structcrawl.extract.config.ExtractConfig`, else none), the visible page's
        readings with ``visible``, the main text with ``main_text``."""
        from dataclasses import asdict

        wanted = None
        if extract is not None and extract.enabled:
            wanted = {
                "syntaxes": list(extract.syntaxes),
                "options": asdict(extract.options),
                "budget": asdict(extract.budget),
            }
        return {"extract": wanted, "visible": visible, "main_text": main_text}


def reading_document(
    reading: Reading, url: str, body: bytes, content_type: str | None, on_parse: Any = None
) -> LazyDocument:
    """The crawl's page for ``reading``: not parsed, what the worker read on its memo (its
    readers find it there), the tree parsed from ``body`` if one asks for more."""
    doc = LazyDocument(
        url,
        reading.base_url,
        body,
        content_type,
        encoding=reading.encoding,
        problems=list(reading.problems),
        reading=reading,
        on_parse=on_parse,
    )
    doc.memo.update(reading.memo or {})
    if reading.visible is not None:
        from structcrawl.visible.wire import adopt

        adopt(doc, reading.visible)
    if reading.facts is not None:
        doc.memo.setdefault(FACTS_MEMO, reading.facts)
    if reading.articles:
        from structcrawl.articles.meta import MetaValue

        for key, read in reading.articles.items():
            doc.memo[key] = {f: [MetaValue(*v) for v in found] for f, found in read.items()}
    if reading.candidates:
        from structcrawl.typed.fields import Candidate

        for key, candidates in reading.candidates.items():
            doc.memo[key] = tuple(Candidate(**c) for c in candidates)
    if reading.main_text is not None:
        from structcrawl.articles.body import MAIN_TEXT_MEMO

        text = reading.main_text[0]
        doc.memo[MAIN_TEXT_MEMO] = text if isinstance(text, str) else None
    return doc
