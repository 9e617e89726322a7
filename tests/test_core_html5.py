"""The parse's repairs toward the HTML tree (structcrawl/core/_html5.py): paragraphs closed
where HTML closes them, template content left out, and the shared index still true after."""

from __future__ import annotations

import pytest
from lxml import etree

from structcrawl.core._index import ElementIndex
from structcrawl.core.document import parse_html


def _body(html: str) -> str:
    doc = parse_html(html.encode(), "https://a.test/")
    return etree.tostring(doc.root.find("body"), encoding="unicode")


@pytest.mark.parametrize(
    "closer", ["section", "article", "aside", "figure", "header", "footer", "nav", "main"]
)
def test_an_html5_block_closes_the_open_paragraph(closer):
    html = f"<!DOCTYPE html><body><p>a<{closer}>b</{closer}>c</body>"
    assert _body(html) == f"<body><p>a</p><{closer}>b</{closer}>c</body>"


def test_a_block_inside_inline_elements_closes_the_paragraph_and_them():
    html = "<body><p>a<span>b<div>c<i>d</i></div>e</span>f</p>g</body>"
    assert _body(html) == "<body><p>a<span>b</span></p><div>c<i>d</i></div>efg</body>"


@pytest.mark.parametrize("scope", ["button", "object"])
def test_a_block_inside_a_scope_boundary_leaves_the_paragraph_open(scope):
    html = f"<body><p>a<{scope}><div>x</div></{scope}>b</p></body>"
    doc = parse_html(html.encode(), "https://a.test/")
    assert doc.root.find(".//div").xpath("ancestor::p")


def test_paragraphs_of_ordinary_text_are_kept_as_they_are():
    html = "<body><p>a <b>b</b> <a href=x>c</a></p><p>d<br>e</p><div><p>f</p></div></body>"
    assert _body(html) == (
        '<body><p>a <b>b</b> <a href="x">c</a></p><p>d<br/>e</p><div><p>f</p></div></body>'
    )


@pytest.mark.parametrize("tag", ["template", "TEMPLATE", "Template"])
def test_template_content_is_no_part_of_the_tree(tag):
    html = (
        f"<body><div itemscope><{tag}><b itemprop=x>1</b><i>2</i>tail</{tag}>"
        "<u itemprop=y>3</u></div></body>"
    )
    doc = parse_html(html.encode(), "https://a.test/")
    assert [el.tag for el in doc.index().having("itemprop")] == ["u"]
    template = doc.root.find(".//template")
    assert template is not None and len(template) == 0 and not template.text


def test_the_shared_index_stays_true_after_the_repairs():
    html = (
        "<body><p itemprop=a>x<span itemprop=b><section itemprop=c><p itemprop=d>y"
        "<article itemprop=e>z</article></section></span><em itemprop=f>w</em></p>"
        "<template><i itemprop=g>t</i></template></body>"
    )
    doc = parse_html(html.encode(), "https://a.test/")
    fresh = ElementIndex(doc.root)
    assert doc.index().having("itemprop") == fresh.having("itemprop")
    assert [el.get("itemprop") for el in fresh.having("itemprop")] == list("abcdef")
    assert doc.root.find(".//section").getparent().tag == "body"


def test_the_index_keeps_the_elements_whose_data_attributes_mention_a_price():
    """What the price containers are told by (structcrawl.visible.facts): each element with a
    data-* or namespaced attribute the index does not file by name whose name (its namespace
    too) or value says "price" in any case of its ASCII letters, once, in document order, as
    an XPath over the attributes finds them, on the demo site's pages, the large product
    pages and an XML tree that keeps namespaces."""
    from pathlib import Path

    from tests.servers import real_pages_corpus

    fold = "translate({}, 'PRICE', 'price')"
    xpath = etree.XPath(
        "//*[@*[((starts-with(name(), 'data-') and name() != 'data-reactroot')"
        " or namespace-uri() != '') and ("
        + " or ".join(
            f"contains({fold.format(part)}, 'price')"
            for part in ("local-name()", "namespace-uri()", ".")
        )
        + ")]]"
    )
    pages = sorted((Path(__file__).parent.parent / "fixtures").rglob("*.html"))
    pages += sorted(real_pages_corpus().parent.joinpath("products", "pages").glob("*.htm*"))
    roots = [parse_html(path.read_bytes(), "https://a.test/").root for path in pages]
    roots.append(
        etree.fromstring(
            b'<html xmlns:d="urn:d" xmlns:q="urn:PRICES"><body data-reactroot="price" '
            b'data-a="1"><p d:price="2" xml:lang="en" data-b="">x</p><i data-Sale-Price="" '
            b'data-c="PRICE">y</i><b data-d="pr\xc4\xb0ce" q:a="1">z</b><u data-e="pr ice">'
            b"w</u></body></html>"
        )
    )
    found = 0
    for root in roots:
        marked = ElementIndex(root).data_mentioning()
        assert marked == xpath(root)
        found += len(marked)
    assert found > 100
    assert [el.tag for el in marked] == ["p", "i", "b"]  # the XML tree's, the last read


def test_the_index_names_the_elements_iter_finds():
    """``named`` (from the places the index's pass keeps by tag) gives what ``iter`` over the
    tree gives, each element once in document order, for one tag or several (tags repeated,
    tags the page lacks), on the demo site's pages and the large product pages."""
    from pathlib import Path

    from tests.servers import real_pages_corpus

    asked = [
        ("meta",), ("body",), ("p",), ("a", "area"), ("li", "dd", "dt"), ("h1", "h2"),
        ("h1", "time", "h1"), ("meta", "link", "script"), ("del", "s", "strike"),
        ("keygen",), ("source", "track", "wbr", "embed", "param", "keygen"),
    ]  # fmt: skip
    pages = sorted((Path(__file__).parent.parent / "fixtures").rglob("*.html"))
    pages += sorted(real_pages_corpus().parent.joinpath("products", "pages").glob("*.htm*"))
    found = 0
    for path in pages:
        doc = parse_html(path.read_bytes(), "https://a.test/")
        for tags in asked:
            named = doc.index().named(*tags)
            assert named == list(doc.root.iter(*tags)), (path, tags)
            found += len(named)
    assert found > 10_000


def test_in_quirks_mode_a_table_stays_inside_the_paragraph():
    html = "<p>a<span>b<table><tr><td>c</td></tr></table></span></p>"
    doc = parse_html(html.encode(), "https://a.test/")
    assert doc.root.find(".//table").xpath("ancestor::p")
    doc = parse_html(b"<!DOCTYPE html>" + html.encode(), "https://a.test/")
    assert not doc.root.find(".//table").xpath("ancestor::p")


def test_a_later_body_tag_adds_the_attributes_the_body_lacks():
    html = (
        '<html><body class="site"><div>banner</div>'
        '<body class="other" itemscope itemtype="https://schema.org/WebPage">'
        "<span itemprop=name>x</span></body></html>"
    )
    doc = parse_html(html.encode(), "https://a.test/")
    body = doc.root.find("body")
    assert dict(body.attrib) == {
        "class": "site",  # the element's own attribute is kept
        "itemscope": "",
        "itemtype": "https://schema.org/WebPage",
    }
    assert body in doc.index().having("itemscope")  # indexed after the merge


def test_a_later_html_tag_adds_its_attributes_to_the_root():
    html = '<html lang="en"><body>x<html lang="de" vocab="https://schema.org/"></body>'
    root = parse_html(html.encode(), "https://a.test/").root
    assert dict(root.attrib) == {"lang": "en", "vocab": "https://schema.org/"}


def test_body_tags_in_scripts_and_comments_are_not_tags():
    html = (
        "<body><script>document.write('<body itemscope class=a>')</script>"
        "<!-- <body typeof=WebPage> --><textarea><body vocab=x></textarea>x"
        "<body><body id=real>"  # a misplaced tag of its own, so the page is read for them
    )
    body = parse_html(html.encode(), "https://a.test/").root.find("body")
    assert dict(body.attrib) == {"id": "real"}


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        ("<dl><dt>c<dd>Red<dd>Blue</dl>", "<dl><dt>c</dt><dd>Red</dd><dd>Blue</dd></dl>"),
        ("<dl><dd>x<img><dt>y</dl>", "<dl><dd>x<img/></dd><dt>y</dt></dl>"),
        ("<ul><li><div>a<li>b</div></ul>", "<ul><li><div>a</div></li><li>b</li></ul>"),
        # a nested list's items stay in it: the ul between them is special
        ("<ul><li>a<ul><li>b</ul><li>c</ul>", "<ul><li>a<ul><li>b</li></ul></li><li>c</li></ul>"),
    ],
)
def test_a_list_item_closes_the_open_one_where_html_does(html, expected):
    doc = parse_html(f"<!DOCTYPE html><body>{html}</body>".encode(), "https://a.test/")
    assert etree.tostring(doc.root.find("body")[0], encoding="unicode") == expected


def test_a_long_chain_of_unclosed_definitions_is_flattened_in_linear_time():
    # libxml2 nests each <dd> in the one before; splitting from the top would move the
    # rest of the chain (and what follows it) once per item
    body = b"<!DOCTYPE html><dl>" + b"<dd>x" * 1500 + b"</dl>" + b"<i>y</i>" * 20000
    doc = parse_html(body, "https://a.test/")
    dl = doc.root.find(".//dl")
    assert len(dl) == 1500 and all(dd.tag == "dd" and len(dd) == 0 for dd in dl)
    assert [el.tag for el in doc.index().named("dd")] == ["dd"] * 1500
