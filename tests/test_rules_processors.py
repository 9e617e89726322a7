"""Processors: pure, pass through what they do not apply to, compiled once from names."""

from __future__ import annotations

import re

import pytest

from structcrawl.rules import processors as p


def test_value_processors_clean_strings_and_pass_everything_else_through():
    padded = " a \n"
    assert p.strip(padded) == "a" and p.strip(3) == 3 and p.strip(None) is None
    assert p.normalize_space(" a \u00a0 b\n\tc ") == "a b c" and p.normalize_space(["x"]) == ["x"]
    assert p.lower("ABC") == "abc" and p.upper("abc") == "ABC" and p.lower(1.5) == 1.5
    assert p.to_int(" -12 ") == -12 and p.to_int("1,299") == "1,299" and p.to_int(7) == 7
    assert p.to_int(True) is True
    assert p.to_float("129.99") == 129.99 and p.to_float(".5") == 0.5
    assert p.to_float("1.299,00") == "1.299,00" and p.to_float("inf") == "inf"


def test_absolute_url_resolves_against_the_base_and_keeps_unusable_values():
    base = "https://shop.example/products/x.html"
    assert p.absolute_url("../img/a.svg", base) == "https://shop.example/img/a.svg"
    assert p.absolute_url(" //cdn.example/a.png ", base) == "https://cdn.example/a.png"
    assert p.absolute_url("https://other.example/", base) == "https://other.example/"
    assert p.absolute_url("http://[bad", base) == "http://[bad"
    assert p.absolute_url(None, base) is None


def test_regex_takes_the_first_group_or_the_match_and_drops_misses():
    assert p.regex("SKU: NW-1", re.compile(r"SKU:\s*(\S+)")) == "NW-1"
    assert p.regex("$1,049.00", re.compile(r"\d[\d.,]*")) == "1,049.00"
    assert p.regex("call us", re.compile(r"\d+")) is None
    assert p.regex(42, re.compile(r"\d+")) == 42


def test_list_processors():
    assert p.first(["a", "b"]) == ["a"] and p.first([]) == []
    assert p.last(["a", "b"]) == ["b"]
    assert p.join(["$", "129.99"]) == ["$ 129.99"] and p.join(["a", 1], "|") == ["a|1"]
    assert p.join([]) == []


def test_a_chain_runs_in_order_and_drops_empty_values():
    chain = p.compile_processors(["strip", "regex:(\\d+)", "int", "join:+"])
    assert chain.names == ("strip", "regex:(\\d+)", "int", "join:+")
    assert chain([" 12 apples", "none", "", None, "3"], "https://x.example/") == ["12+3"]
    assert p.compile_processors([])(["", " a "], "https://x.example/") == [" a "]
    urls = p.compile_processors(["absolute_url", "first"])
    assert urls(["/a", "/b"], "https://x.example/p/") == ["https://x.example/a"]


@pytest.mark.parametrize(
    "names, reason",
    [(["shout"], "unknown processor 'shout'"), (["regex:(("], "invalid regular expression")],
)
def test_bad_names_are_configuration_errors(names, reason):
    with pytest.raises(ValueError, match=re.escape(reason)):
        p.compile_processors(names)


def test_every_advertised_name_compiles():
    for name in p.PROCESSOR_NAMES:
        p.compile_processors([name + ("x" if name.endswith(":") else "")])
