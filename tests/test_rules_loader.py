"""Site rules files: loading (one loader for extraction and rendering), validation errors, site
lookup by URL, no rules without a path, the demo's rules."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from structcrawl.render.rules import load_render_rules
from structcrawl.rules import RulesError, RuleSet, SiteRules, load_rules
from structcrawl.rules.loader import parse_site

ROOT = Path(__file__).resolve().parents[1]

GOOD = """
name = "shop"
hosts = ["shop.example", "127.0.0.1"]
timezone = "America/Denver"
language = "en-US"

[[entity]]
type = "https://schema.org/Product"
url_pattern = "/p/\\\\d+"
scope = "article.product"
override = true
nested_types = { offers = "Offer" }

[entity.fields]
name = "h1::text"
"@id" = { css = "link[rel=canonical]::attr(href)", processors = ["absolute_url"] }
sku = "xpath:.//td[@class='sku']/text()"
tags = { css = ".tag::text", many = true, processors = [] }

[entity.fields.offers]
price = { css = ".price", processors = ["normalize_space", "regex:([\\\\d.,]+)", "first"] }
priceCurrency = ".price::attr(data-currency)"

[[entity]]
type = "Event"

[entity.fields]
name = "h2"
"""


def write(tmp_path: Path, text: str, name: str = "site.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_good_file_loads_with_every_part(tmp_path):
    rules = load_rules(write(tmp_path, GOOD))
    assert isinstance(rules, RuleSet) and len(rules) == 1
    site = next(iter(rules))
    assert site.name == "shop" and site.hosts == ("shop.example", "127.0.0.1")
    assert site.timezone == "America/Denver" and site.language == "en-US"
    assert site.source.endswith("site.toml")
    product, event = site.entities
    assert product.type == "Product" and product.override is True
    assert product.scope is not None and product.scope.label == "css:article.product"
    assert product.applies_to("https://shop.example/p/12") and not product.applies_to("/about")
    assert product.nested_types == {"offers": "Offer"}
    fields = {f.name: f for f in product.fields}
    assert set(fields) == {"name", "@id", "sku", "tags", "offers.price", "offers.priceCurrency"}
    assert fields["sku"].selector.kind == "xpath"
    assert fields["sku"].selector.query == ".//td[@class='sku']/text()"
    assert fields["name"].processors.names == ("normalize_space",)  # the default
    assert fields["tags"].many is True and fields["tags"].processors.names == ()
    assert fields["offers.price"].path == ("offers", "price")
    assert event.type == "Event" and event.scope is None and event.override is False


def test_render_tables_of_the_same_file_are_the_same_sites_render_rules(tmp_path):
    text = GOOD.replace("[[entity]]", '[[render]]\nurl_pattern = "/js/"\n\n[[entity]]', 1)
    site = load_rules(write(tmp_path, text)).sites[0]
    assert site.name == "shop" and len(site.entities) == 2
    assert [r.url_pattern.pattern for r in site.render] == ["/js/"]
    assert site.render[0].site == "shop" and site.render[0].mode == "always"


def test_a_directory_loads_its_toml_files_in_name_order(tmp_path):
    write(tmp_path, 'name = "b"\nhosts = ["b.example"]\n', "b.toml")
    write(tmp_path, 'name = "a"\nhosts = ["a.example"]\n', "a.toml")
    write(tmp_path, "not rules", "notes.txt")
    rules = load_rules(tmp_path)
    assert [s.name for s in rules] == ["a", "b"]


def test_an_empty_directory_is_an_empty_rule_set(tmp_path):
    assert len(load_rules(tmp_path)) == 0
    assert load_rules(tmp_path).for_url("https://a.example/") is None


BAD = [
    ('hosts = ["a.example"]', "'name' must be a non-empty string"),
    ('name = "a"', "'hosts' must be a non-empty list"),
    ('name = "a"\nhosts = ["https://a.example/"]', "'hosts' must be a non-empty list"),
    ('name = "a"\nhosts = ["a.example"]\ncolour = 1', "unknown key(s) 'colour'"),
    ('name = "a"\nhosts = ["a.example"]\ntimezone = "Mars/Olympus"', "not an IANA time zone"),
    ('name = "a"\nhosts = ["a.example"]\nlanguage = "english!"', "not a language tag"),
    ('name = "a"\nhosts = ["a.example"]\nurl_patterns = ["("]', "invalid regular expression"),
    ('name = "a"\nhosts = ["a.example"]\n[[entity]]\n[entity.fields]\nname = "h1"', "'type'"),
    ('name = "a"\nhosts = ["a.example"]\n[[entity]]\ntype = "Product"', "[entity.fields]"),
    (
        'name = "a"\nhosts = ["a.example"]\n[[entity]]\ntype = "Product"\n[entity.fields]\nname = "h1[["',
        "field 'name': invalid CSS selector 'h1[['",
    ),
    (
        'name = "a"\nhosts = ["a.example"]\n[[entity]]\ntype = "Product"\n[entity.fields]\nname = "xpath://h1["',
        "invalid XPath",
    ),
    (
        'name = "a"\nhosts = ["a.example"]\n[[entity]]\ntype = "Product"\n[entity.fields]\nname = { css = "h1", processors = ["shout"] }',
        "unknown processor 'shout'",
    ),
    (
        'name = "a"\nhosts = ["a.example"]\n[[entity]]\ntype = "Product"\n[entity.fields]\nname = { css = "h1", processors = ["regex:(("] }',
        "invalid regular expression",
    ),
    (
        'name = "a"\nhosts = ["a.example"]\n[[entity]]\ntype = "Product"\n[entity.fields]\nname = { css = "h1", xpath = "//h1" }',
        "not both",
    ),
    (
        'name = "a"\nhosts = ["a.example"]\n[[entity]]\ntype = "Product"\n[entity.fields]\nname = { css = "h1", many = "yes" }',
        "'many' must be true or false",
    ),
    (
        'name = "a"\nhosts = ["a.example"]\n[[entity]]\ntype = "Product"\noverride = "no"\n[entity.fields]\nname = "h1"',
        "'override' must be true or false",
    ),
    (
        'name = "a"\nhosts = ["a.example"]\n[[entity]]\ntype = "Product"\nscope = 3\n[entity.fields]\nname = "h1"',
        "'scope' must be",
    ),
    (
        'name = "a"\nhosts = ["a.example"]\n[[entity]]\ntype = "Product"\nnested_types = { brand = "Brand" }\n[entity.fields]\nname = "h1"',
        "nested_types key 'brand'",
    ),
    (
        'name = "a"\nhosts = ["a.example"]\n[[entity]]\ntype = "Product"\n[entity.fields]\n"bad name" = "h1"',
        "not a property name",
    ),
    (
        'name = "a"\nhosts = ["a.example"]\n[[entity]]\ntype = "Product"\n[entity.fields]\nname = 3',
        "must be a selector string",
    ),
    ("name = ", "not a valid TOML file"),
]


@pytest.mark.parametrize("text, reason", BAD)
def test_a_bad_file_raises_with_the_file_name_and_the_reason(tmp_path, text, reason):
    path = write(tmp_path, text, "broken.toml")
    with pytest.raises(RulesError) as info:
        load_rules(path)
    message = str(info.value)
    assert message.startswith(f"{path}: "), message
    assert reason in message, message


def test_two_files_with_one_site_name_are_a_mistake(tmp_path):
    write(tmp_path, 'name = "a"\nhosts = ["a.example"]\n', "one.toml")
    write(tmp_path, 'name = "a"\nhosts = ["b.example"]\n', "two.toml")
    with pytest.raises(RulesError, match=r"two\.toml: site name 'a' already used by .*one\.toml"):
        load_rules(tmp_path)


def test_a_missing_path_is_a_mistake(tmp_path):
    with pytest.raises(RulesError, match="no such rules file"):
        load_rules(tmp_path / "nope")


def site(name: str, hosts: list[str], **extra) -> SiteRules:
    return parse_site({"name": name, "hosts": hosts, **extra}, f"{name}.toml")


def test_for_url_matches_hosts_exactly_or_as_parent_domains():
    rules = RuleSet(
        (
            site("shop", ["shop.example", "127.0.0.1"]),
            site("blog", ["blog.shop.example"]),
            site("local", ["localhost"]),
        )
    )
    assert rules.for_url("https://shop.example/p/1").name == "shop"
    assert rules.for_url("https://WWW.Shop.Example./p/1").name == "shop"
    assert rules.for_url("http://127.0.0.1:8765/products/x.html").name == "shop"
    assert rules.for_url("https://blog.shop.example/post").name == "blog"  # the longer host wins
    assert rules.for_url("https://a.blog.shop.example/post").name == "blog"
    assert rules.for_url("http://localhost:8000/").name == "local"
    assert rules.for_url("https://myshop.example/") is None  # not a dot-separated suffix
    assert rules.for_url("http://27.0.0.1/") is None and rules.for_url("http://0.1/") is None
    assert rules.for_url("not a url") is None and rules.for_url("http://[bad/") is None


def test_for_url_honours_url_patterns_and_a_tie_goes_to_the_first_site():
    rules = RuleSet(
        (
            site("shop-pages", ["shop.example"], url_patterns=["/shop/"]),
            site("shop", ["shop.example"]),
            site("shop-again", ["shop.example"]),
        )
    )
    assert rules.for_url("https://shop.example/shop/p/1").name == "shop-pages"
    assert rules.for_url("https://shop.example/blog/1").name == "shop"


def test_the_demo_rules_live_with_the_demo_site():
    path = ROOT / "fixtures" / "site" / "rules"
    rules = load_rules(path)
    northwind = rules.for_url("https://northwind.example/products/canyon-rain-shell.html")
    assert northwind is not None and northwind.name == "northwind"
    assert northwind.source == str(path / "northwind.toml")
    assert set(northwind.hosts) == {"northwind.example", "127.0.0.1", "localhost"}
    assert northwind.timezone == "Europe/Berlin" and northwind.language == "en"
    assert rules.for_url("http://127.0.0.1:8765/") is northwind
    assert rules.for_url("http://localhost:8765/") is northwind
    product = northwind.entities[0]
    assert product.type == "Product" and product.override is False
    assert {"name", "sku", "gtin13", "image", "offers.price"} <= {f.name for f in product.fields}
    assert [r.url_pattern.pattern for r in northwind.render] == ["/js/specs/"]


def test_without_a_path_there_are_no_site_rules():
    rules = load_rules()  # as a crawl without STRUCTCRAWL_RULES_DIR reads them
    assert len(rules) == 0  # the demo's rules (fixtures/site/rules) are not a default
    for url in ("http://127.0.0.1:8765/", "http://localhost/", "https://shop.example/"):
        assert rules.for_url(url) is None


TWO_SITES_ONE_HOST = {
    "shop.toml": """
name = "shop"
hosts = ["mixed.example"]
url_patterns = ["^https?://[^/]+/shop/"]
timezone = "Europe/Berlin"
[[entity]]
type = "Product"
[entity.fields]
name = "h1.product"
[[render]]
url_pattern = "/app/"
actions = [{ click = "#shop-more" }]
""",
    "blog.toml": """
name = "blog"
hosts = ["mixed.example"]
url_patterns = ["^https?://[^/]+/blog/"]
timezone = "America/Denver"
[[entity]]
type = "BlogPosting"
[entity.fields]
headline = "h1.post"
[[render]]
url_pattern = "/app/"
render = "auto"
expect = ["article.post"]
""",
}


def test_two_sites_on_one_host_split_by_path_agree_for_extraction_and_rendering(tmp_path):
    for name, text in TWO_SITES_ONE_HOST.items():
        write(tmp_path, text, name)
    rules = load_rules(tmp_path)
    for url, name, mode in (
        ("https://mixed.example/shop/app/1", "shop", "always"),
        ("https://mixed.example/blog/app/1", "blog", "auto"),
    ):
        site_rules = rules.for_url(url)
        render = rules.render_rule_for(url)
        assert site_rules is not None and site_rules.name == name
        assert render is not None and render.site == name and render.mode == mode
    assert rules.for_url("https://mixed.example/about/app/") is None
    assert rules.render_rule_for("https://mixed.example/about/app/") is None
    # the render handler's view reads the same sites
    view = load_render_rules(tmp_path)
    assert view.for_url("https://mixed.example/blog/app/2").mode == "auto"  # type: ignore[union-attr]
    assert view.for_url("https://mixed.example/shop/app/2").actions[0].selector == "#shop-more"  # type: ignore[union-attr]


def test_a_missing_configured_rules_path_is_one_error_for_every_reader(tmp_path):
    missing = tmp_path / "nope"
    for load in (load_rules, load_render_rules):
        with pytest.raises(RulesError, match=re.escape(f"{missing}: no such rules file")):
            load(missing)


def test_an_unreadable_rules_file_is_a_configuration_error(tmp_path):
    (tmp_path / "gone.toml").symlink_to(tmp_path / "nowhere.toml")
    with pytest.raises(RulesError, match="cannot read the rules"):
        load_rules(tmp_path)


def test_the_same_files_are_parsed_once(tmp_path):
    write(tmp_path, GOOD)
    assert load_rules(tmp_path) is load_rules(tmp_path)
    write(tmp_path, GOOD.replace("America/Denver", "Europe/Paris"))
    assert load_rules(tmp_path).sites[0].timezone == "Europe/Paris"  # changed files: parsed again


def test_the_manual_rules_example_is_a_valid_rules_file():
    section = (ROOT / "docs" / "sites.md").read_text(encoding="utf-8")
    block = re.search(r"```toml\n(.*?)```", section, re.S)
    assert block is not None
    parsed = parse_site(tomllib.loads(block.group(1)), "docs/sites.md")
    assert parsed.name == "northwind" and parsed.entities[0].type == "Product"
