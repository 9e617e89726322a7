"""The shared visible walk and the struck test's cheap pre-filter read what they did before."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import html

from structcrawl.core.document import parse_html
from structcrawl.visible.evidence import page_evidence
from structcrawl.visible.stock import (
    _own_text,
    _seen_elements,
    in_buy_control,
    visible_availability,
)
from structcrawl.visible.tree import _OLD_HINT, struck
from structcrawl.visible.walk import visible_walk
from structcrawl.visible.words import OLD_CLASS, OUT_OF_STOCK

URL = "https://shop.example/p/1"


def _old_words() -> list[str]:
    pattern = OLD_CLASS.pattern
    return pattern[pattern.index(")(?:") + 4 : pattern.rindex(")(?:$")].split("|")


def _spelled(word: str) -> list[str]:
    """Each way an OLD_CLASS alternative is written, with its optional parts in and out."""
    forms = [word]
    for optional in ("-?", "s?", "\\w*"):
        forms = [
            f for w in forms for f in (w.replace(optional, ""), w.replace(optional, optional[0]))
        ]
    forms = [f.replace("\\w", "x").replace("l+", "l") for f in forms]
    return [f for f in dict.fromkeys(forms) if re.fullmatch(r"[a-z-]+", f)]


def test_every_old_class_word_passes_the_pre_filter_in_any_case() -> None:
    words = _old_words()
    assert len(words) == 26  # a word added to OLD_CLASS is added to _OLD_HINT too
    for word in words:
        forms = _spelled(word)
        assert forms, word
        for form in forms:
            for written in (form, form.upper(), form.title(), form.replace("s", "ſ")):
                said = f"product-{written}"
                assert OLD_CLASS.search(said) or "ſ" in written, said
                if OLD_CLASS.search(said):
                    assert _OLD_HINT.search(said.casefold().replace("ı", "i")), said


def test_struck_reads_as_the_old_class_words_say() -> None:
    root = html.fromstring(
        "<div><p class='price-old'>1</p><p class='ORIGINAL-price'>2</p><p id='x_savings'>3</p>"
        "<p class='with-old-price'>4</p><p class='bold'>5</p><p class='price'>6</p></div>"
    )
    assert [struck(p) for p in root.iter("p")] == [True, True, True, False, False, False]


PAGE = b"""<html><head><title>Kettle 1.7 l | Shop</title></head><body>
<nav><a>Home</a> Sold out</nav>
<div class="product"><h1>Kettle 1.7 l</h1><p class="price-old">$59.00</p><p>$49.00</p>
<p hidden>Sold out</p><p class="stock">In stock</p><button>Add to cart</button>
<svg><title>Out of stock</title></svg><p>SKU: KT-1700</p></div>
<footer>Out of stock</footer></body></html>"""


def test_the_walk_is_made_once_and_serves_the_stock_reading() -> None:
    doc = parse_html(PAGE, URL)
    walk = visible_walk(doc)
    assert visible_walk(doc) is walk
    assert walk.seen == list(_seen_elements(doc.root.find("body")))
    assert [p.text for p in walk.pieces if p.struck] == ["$59.00"]
    alone = visible_availability(parse_html(PAGE, URL))
    assert visible_availability(doc) == alone
    assert alone.sold_out is None and alone.buy_control == "Add to cart"


def test_evidence_reads_the_same_page_the_same_however_often() -> None:
    first = page_evidence(parse_html(PAGE, URL))
    doc = parse_html(PAGE, URL)
    visible_availability(doc)
    assert page_evidence(doc) == page_evidence(doc) == first
    assert (first.price, first.availability, first.sku) == ("$49.00", "InStock", "KT-1700")


def test_the_controls_pass_finds_what_the_five_paths_find() -> None:
    from structcrawl.visible.stock import _CONTROLS, _controls

    page = (
        "<html><body role=button><a>x</a><input type=submit><input type=text><img alt=1>"
        "<img><i role=button>y</i><!-- c --><button>b</button><nav><a>n</a></nav></body></html>"
    )
    root = html.fromstring(page)
    assert _controls(root) == _CONTROLS(root)
    assert [e.tag for e in _controls(root)] == ["a", "input", "img", "i", "button", "a"]
    two = html.fromstring("<div><body><a>x</a></body></div>")  # no single body: the paths
    assert _controls(two) == _CONTROLS(two)


def test_the_pieces_nearest_the_heading_come_as_a_sort_by_distance_gives_them() -> None:
    from structcrawl.visible.evidence import _nearest_first

    for count in (0, 1, 2, 7, 450, 1000):
        for anchor in {0, 1, count // 2, count - 1, count, count + 3}:
            for most in (1, 5, 400):
                by_sort = sorted(range(count), key=lambda i: abs(i - anchor))[:most]
                assert _nearest_first(count, anchor, most) == by_sort, (count, anchor, most)


def _stack_walk(start):
    """The walk as an explicit stack of elements and text nodes (the walk before libxml2's
    walker read it): what :func:`visible_walk` must still find."""
    from structcrawl.visible.tree import NOT_RENDERED, hidden, region_of

    pieces, heads, seen = [], [], []
    stack = [(start, (), None, False)]
    while stack:
        node, strikers, owner, in_title = stack.pop()
        if isinstance(node, str):
            if owner is not None and node.strip():
                pieces.append((" ".join(node.split()), owner, strikers))
            continue
        if not isinstance(node.tag, str) or node.tag in NOT_RENDERED or hidden(node):
            continue
        if region_of(node):
            continue
        in_title = in_title or node.tag == "title"
        if not in_title:
            seen.append(node)
        if node.tag in ("h1", "h2"):
            heads.append((len(pieces), node))
        inner = (*strikers, node) if struck(node) else strikers
        kids = [(node.text, inner, node, in_title)] if node.text else []
        for child in node:
            kids.append((child, inner, node, in_title))
            if child.tail:
                kids.append((child.tail, inner, node, in_title))
        stack.extend(reversed(kids))
    return pieces, heads, seen


TRICKY = b"""<html><head><title>T</title></head><body> lead <!-- c -->after comment
<div class="product old-price">In <s>$9 <b>$8</b></s> tail <i hidden>no</i>shown tail
<nav>menu</nav>after nav<script>x</script>after script<title>in title <b>bold</b></title>
<h2>Sub <span style="display:none">x</span>head</h2><?pi x?>after pi</div>
<div role="listbox"><p>choice</p></div><p class="was">was</p>end</body></html>"""


def test_the_walk_reads_what_an_explicit_walk_of_the_tree_reads() -> None:
    for page in (PAGE, TRICKY):
        doc = parse_html(page, URL)
        body = doc.root.find("body")
        walk = visible_walk(doc)
        pieces, heads, seen = _stack_walk(body)
        assert [(p.text, p.el, p.strikers) for p in walk.pieces] == pieces
        assert [p.order for p in walk.pieces] == list(range(len(pieces)))
        assert all(p.struck == bool(p.strikers) for p in walk.pieces)
        assert walk.heads == heads and walk.seen == seen
    texts = [p.text for p in visible_walk(parse_html(TRICKY, URL)).pieces]
    assert texts[:4] == ["lead", "after comment", "In", "$9"]
    assert "no" not in texts and "menu" not in texts and "choice" not in texts
    assert {"shown tail", "after nav", "after script", "after pi", "end"} <= set(texts)


def test_the_walk_marks_read_as_hidden_region_struck_and_control_say() -> None:
    from structcrawl.visible.tree import is_control, region_of, rendered, walk_marks

    root = html.fromstring(
        "<div><p hidden>a</p><input type=HIDDEN><p style='x:1;display : none'>b</p>"
        "<select><option>c</option></select><span role=combobox>d</span><s>e</s>"
        "<p class='price-old'>f</p><p id='x_savings'>g</p><p class='with-old-price'>h</p>"
        "<p style='text-decoration: line-through'>i</p><p class='bold'>j</p><svg></svg>"
        "<p class='price-old' id='y'>k</p><p class='price-old'>l</p><!-- m --><a>n</a>"
        "<a href=/ class=old>o</a><button>p</button><img alt=q><img><input type=submit>"
        "<input type=text><span role=button>r</span><a hidden>s</a><s role=button>t</s></div>"
    )
    said_old: dict[str, bool] = {}
    for el in root.iter():
        entered = rendered(el) and not region_of(el)
        want = (entered, entered and struck(el), entered and is_control(el))
        assert walk_marks(el, said_old) == want, el.tag
    assert said_old == {"price-old ": True, " x_savings": True, "with-old-price ": False,
                        "bold ": False, "price-old y": True, "old ": True}  # fmt: skip


def test_the_buy_control_outside_the_cards_is_the_first_of_the_page_own() -> None:
    from structcrawl.visible.stock import buy_control, buy_element_outside, page_buy_control

    page = (
        b"<html><body><a href='/'>Home</a><div class='card'><a>Other</a><button>Add to cart"
        b"</button></div><button disabled>Add to cart</button><button>Buy now</button></body></html>"
    )
    doc = parse_html(page, URL)
    card = frozenset(doc.root.iter("div"))
    assert page_buy_control(doc) == ("InStock", "Add to cart")
    assert (
        buy_element_outside(doc, card)[:2]
        == buy_control(doc.root, card)
        == (
            "OutOfStock",
            "Add to cart",
        )
    )
    assert buy_element_outside(doc, frozenset())[:2] == page_buy_control(doc)


def _firsts(items) -> tuple[set, bool]:
    """(the items of character classes a parsed regex can start with, whether it can be
    empty)."""
    import re._constants as c

    out: set = set()
    for op, av in items:
        if op is c.LITERAL:
            return out | {(op, av)}, False
        if op is c.IN:
            return out | set(av), False
        if op is c.AT:
            continue
        if op is c.SUBPATTERN:
            found, empty = _firsts(av[3])
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT):
            found, empty = _firsts(av[2])
            empty = empty or av[0] == 0
        elif op is c.BRANCH:
            parts = [_firsts(alt) for alt in av[1]]
            found, empty = set().union(*(f for f, _ in parts)), any(e for _, e in parts)
        else:
            raise AssertionError(f"not read: {op}")
        out |= found
        if not empty:
            return out, False
    return out, True


@pytest.mark.parametrize(
    "name", ["DECOY_WORDS", "FROM_WORDS", "OUT_OF_STOCK", "IN_STOCK", "PREORDER", "BUY"]
)
def test_each_word_pattern_guard_admits_every_start_of_its_phrases(name: str) -> None:
    # the guard (?=[...]) after \b only spares the search: every character a phrase can
    # start with is in it, as Python's own parser reads the pattern
    import re._constants as c
    import re._parser as parser

    from structcrawl.visible import words

    pattern = getattr(words, name)
    tree = parser.parse(pattern.pattern, pattern.flags)
    items = list(tree.data[0][1][1][0] if tree.data[0][0] is c.BRANCH else tree.data)
    assert items[0] == (c.AT, c.AT_BOUNDARY) and items[1][0] is c.ASSERT
    ((kind, guard),) = items[1][1][1]
    assert kind is c.IN
    starts, empty = _firsts(items[2:])
    assert not empty and starts and starts <= set(guard), starts - set(guard)


CONTROLS_PAGE = b"""<html><body role=button><nav><button>Add to cart</button></nav>
<div hidden><button>Add to cart</button></div><svg><a>Buy now</a></svg>
<div class="card"><a href="/other">Other kettle</a><button>Add to cart</button></div>
<noscript><button>Buy now</button></noscript><input type=submit value="Add to basket" disabled>
<img alt="Add to cart"><span role=button>Buy it now</span><input type=text value="Buy now">
<footer><a>Buy now</a></footer></body></html>"""


def test_the_walk_keeps_every_control_a_buy_control_can_be() -> None:
    from structcrawl.visible.stock import _controls, _first_buy, buy_element_outside

    doc = parse_html(CONTROLS_PAGE, URL)
    walk = visible_walk(doc)
    every = _controls(doc.root)
    assert set(walk.controls) <= set(every) and doc.root.find("body") not in walk.controls
    assert [e.tag for e in walk.controls] == ["a", "button", "input", "img", "span"]
    card = frozenset(e for e in doc.root.iter("div") if e.get("class") == "card")
    for outside in (frozenset(), card):
        found = buy_element_outside(doc, outside)
        assert found[:2] == _first_buy(every, outside)[1:]
        assert found[2] is not None and found[2] in walk.controls
    assert buy_element_outside(doc, card)[:2] == ("OutOfStock", "Add to basket")


SOLD_OUT_PAGE = b"""<html><body><h1>Kettle</h1>
<button>Add to cart <i>Sold out</i></button><a href="/c">Add to cart - sold out</a>
<div>Size S: Out<br>of stock <b>then</b> sold out</div><p>Sold out</p></body></html>"""


def test_the_sold_out_wording_is_the_first_element_s_outside_buy_controls() -> None:
    # the button's and the link's wording are states of a buy control; the div's own text
    # ("Size S: Out of stock  sold out") says it first, as its first match
    doc = parse_html(SOLD_OUT_PAGE, URL)
    assert visible_availability(doc).sold_out == "Out of stock"
    body = doc.root.find("body")
    first = next(
        (m.group(0), el)
        for el in _seen_elements(body)
        if (m := OUT_OF_STOCK.search(_own_text(el))) and not in_buy_control(el)
    )
    assert first[0] == "Out of stock" and first[1].tag == "div"


def test_the_stock_wording_read_in_one_pass_is_each_text_s_alone() -> None:
    from structcrawl.visible.evidence import _STOCK_WORDS, _stock_said

    texts = ["In stock", "Sold out", "", "Pre-order now: only 3 left", "out", "of stock",
             "instock", "Ausverkauft!", "予約受付中", "3 left", "Lieferbar", "x" * 20,
             "Add to cart", "nicht mehr lieferbar", "sold\u00a0out", "Sold out\x00In stock",
             "SOLD OUT", "\u017fold out", "\u0130n stock", "Ex\u03a3 sold out"]  # fmt: skip
    alone = [next((v for p, v in _STOCK_WORDS if p.ignoring.search(t)), None) for t in texts]
    assert _stock_said(texts) == alone
    assert alone[:5] == ["InStock", "OutOfStock", None, "PreOrder", None]
    assert alone[-4:] == ["OutOfStock", "OutOfStock", "InStock", "OutOfStock"]
    # each alone, and the lowercased and the case-insensitive searches of the texts joined
    assert _stock_said(texts[-3:-2]) == ["OutOfStock"] and _stock_said(texts[-2:-1]) == ["InStock"]


@pytest.mark.parametrize(
    "text",
    ["Sold out", "SOLD\u00a0OUT and sold out", "\u017fold out", "\u0130n stock, sold out",
     "\u212aettle sold out", "\u03a3\u03a3 out of stock \u03c2", "Stra\u00dfe sold out", ""],
)  # fmt: skip
def test_wording_searched_in_lowercased_text_matches_where_the_pattern_itself_does(text):
    from structcrawl.visible.folded import Folded
    from structcrawl.visible.words import IN_STOCK, OUT_OF_STOCK, PREORDER

    for pattern in (OUT_OF_STOCK, IN_STOCK, PREORDER):
        folded = Folded(pattern)
        assert [m.span() for m in folded.finditer(text)] == [
            m.span() for m in pattern.finditer(text)
        ]


# phrases, their CJK tails (matched without word boundaries) and what sits around them
_WORDING_BITS = ["sold out", "out of stock", "in stock", "pre-order", "preorder", "3 left",
                 "only 12 available", "\u58f2\u308a\u5207\u308c", "\u54c1\u5207\u308c\u5207\u308c",
                 "\u5728\u5eab\u3042\u308a", "\u5728\u5eab\u5207\u308c", "\u4e88\u7d04",
                 "\u5df2\u552e\u5b8c", "x", "sold", "out", " ", "\x00", "a", "\u00e9"]  # fmt: skip


@given(st.lists(st.sampled_from(_WORDING_BITS), max_size=24))
@settings(max_examples=300, deadline=None)
def test_wording_searched_as_words_and_literals_apart_matches_as_one_search(bits):
    """A wording of phrases and CJK literals is searched as two patterns, their matches
    merged (:func:`structcrawl.visible.folded._merged`): the matches of the one pattern."""
    from structcrawl.visible.folded import Folded
    from structcrawl.visible.words import IN_STOCK, OUT_OF_STOCK, PREORDER

    text = "".join(bits)
    for pattern in (OUT_OF_STOCK, IN_STOCK, PREORDER):
        folded = Folded(pattern)
        assert folded._parts is not None  # the tails make these two searches
        assert [(m.span(), m.group()) for m in folded.finditer(text)] == [
            (m.span(), m.group()) for m in folded.lowered.finditer(text)
        ]


def test_only_lowercase_case_insensitive_wording_is_searched_lowercased():
    from structcrawl.visible.folded import Folded

    with pytest.raises(ValueError, match="lowercase wording"):
        Folded(re.compile("sold out"))  # case-sensitive: lowercasing the text would change it
    with pytest.raises(ValueError, match="lowercase wording"):
        Folded(re.compile("Sold out", re.I))
    assert Folded(re.compile(r"\bsold\W+out\b", re.I)).lowered.pattern == r"\bsold\W+out\b"


def test_a_price_needs_a_digit() -> None:
    from structcrawl.visible.prices import find_prices, price_texts

    assert find_prices("$ € USD kr") == price_texts("Preis: EUR, kr") == []
    assert find_prices("\u0661\u0662\u0663 $") == ["\u0661\u0662\u0663 $"]  # any digit counts


def test_every_sign_of_a_price_is_one_the_pre_filter_looks_for() -> None:
    from structcrawl.visible import prices

    for alternative in prices._SYMBOL.split("|"):
        sign = alternative.replace("(?:\\b[A-Z]{1,2})?", "").replace("\\b", "")
        sign = sign.replace("\\.?", "").replace("\\.", "").replace("\\$", "$")
        assert prices._SIGN.fullmatch(sign), alternative
    assert prices._CODE.count("|") > 30 and prices._SIGN.fullmatch("USD")
    assert prices.find_prices("4.5 (120 reviews), size 42, 12.03.2026") == []


def test_the_sold_out_wording_is_read_as_a_reader_sees_its_spaces() -> None:
    # a template's line break inside the wording is a space on screen, in the walk's pieces
    # and in the element's own text alike (the page with two bodies is read without the walk)
    wording = (
        b"<h1>Kettle</h1><p class=stock>\n  Out of\n        stock\n</p><button>Notify</button>"
    )
    one = parse_html(b"<html><body>" + wording + b"</body></html>", URL)
    assert visible_availability(one).sold_out == "Out of stock"
    two = parse_html(b"<html><body>" + wording + b"</body><body><p>x</p></body></html>", URL)
    assert _own_text(two.root.find(".//p")) == "Out of stock"
    assert visible_availability(two).sold_out == "Out of stock"
