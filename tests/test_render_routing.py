"""Render routing without a browser: JS-only detection, URL templates, the learner, rules."""

from __future__ import annotations

import gzip
import re
import zlib
from pathlib import Path

import brotli
import pytest

from structcrawl.core.document import parse_html
from structcrawl.render._body import decoded_body
from structcrawl.render.routing import (
    DEFAULT_DATA_SELECTOR,
    TemplateLearner,
    decide,
    judge_html,
    judge_response,
    url_template,
    wait_plan,
)
from structcrawl.render.rules import RenderRules, load_render_rules
from structcrawl.rules import RulesError, parse_site

SITE = Path(__file__).resolve().parents[1] / "fixtures" / "site"
BASE = "http://127.0.0.1:8765/"


def judge(html: str, expect: tuple[str, ...] = ()):
    return judge_html(parse_html(html.encode(), BASE).root, expect)


# -- detection over the demo site ----------------------------------------------------------

JS_ONLY = {
    "js/products/trailhead-daypack-20l.html": "empty-mount",
    "js/products/ember-camp-mug.html": "empty-mount",
    "js/products/drift-sleeping-pad.html": "empty-mount",
    "js/deals.html": "empty-mount",
}


@pytest.mark.parametrize(
    "path", sorted(str(p.relative_to(SITE)) for p in SITE.rglob("*.html")), ids=str
)
def test_demo_site_pages_are_judged_as_expected(path):
    verdict = judge_response(
        (SITE / path).read_bytes(), BASE + path, "text/html; charset=utf-8", 200
    )
    assert verdict.reason == JS_ONLY.get(path), verdict.signals
    assert verdict.js_only == (path in JS_ONLY)


def test_the_click_to_reveal_page_needs_its_rule_not_detection():
    verdict = judge_response(
        (SITE / "js/specs/lumen-400-headlamp.html").read_bytes(), BASE, "text/html", 200
    )
    assert not verdict.js_only and "scripts:1" in verdict.signals


# -- detection signals ---------------------------------------------------------------------


@pytest.mark.parametrize("mount", ['id="root"', 'id="__next"', 'id="app"', 'id="__nuxt"'])
def test_an_empty_mount_point_with_scripts_is_a_shell(mount):
    verdict = judge(
        f"<html><body><header>Shop</header><div {mount}></div>"
        '<script src="/bundle.js"></script></body></html>'
    )
    assert verdict.js_only and verdict.reason == "empty-mount"
    assert any(s.startswith("empty-mount:") for s in verdict.signals)


def test_a_noscript_hint_without_layers_is_a_shell():
    verdict = judge(
        "<html><body><main><h1>Our shop</h1></main>"
        "<noscript>You need to enable JavaScript to run this app.</noscript>"
        '<script src="/app.js"></script></body></html>'
    )
    assert verdict.js_only and verdict.reason == "noscript"
    # a body showing only a loading placeholder is a shell in itself
    loading = judge(
        "<html><body><main><h1>Loading</h1></main>"
        "<noscript>You need to enable JavaScript to run this app.</noscript>"
        '<script src="/app.js"></script></body></html>'
    )
    assert loading.reason == "empty-mount" and "empty-mount:empty-body" in loading.signals


def test_framework_shells_beyond_mount_ids():
    angular = judge(
        '<html><body><app-root>Loading...</app-root><script src="main.js"></script></body></html>'
    )
    assert angular.reason == "empty-mount" and "empty-mount:app-root" in angular.signals
    sveltekit = judge(
        '<html><body><div style="display: contents"><script>import("/start.js")'
        "</script></div></body></html>"
    )
    assert "empty-mount:empty-body" in sveltekit.signals
    lit = judge(
        '<html><head><script type="module" src="/my-element.js"></script></head>'
        "<body><my-element><h1>Get started</h1></my-element></body></html>"
    )
    assert "empty-mount:web-components" in lit.signals
    next_client = judge(
        '<html><body><div id="__next"></div><script src="/main.js"></script>'
        '<script id="__NEXT_DATA__" type="application/json">'
        '{"props": {"pageProps": {}}, "page": "/account"}</script></body></html>'
    )
    assert next_client.reason == "empty-mount" and "layer:data-block" not in next_client.signals
    nuxt = judge(
        '<html><body><div id="__nuxt"></div><script type="application/json" '
        'id="__NUXT_DATA__" data-ssr="false">[{"serverRendered": 1}, false]</script>'
        '<script type="module" src="/_nuxt/e.js"></script></body></html>'
    )
    assert nuxt.reason == "empty-mount"


def test_server_rendered_framework_pages_are_not_shells():
    next_ssr = judge(
        '<html><body><div id="__next"><h1>Tent</h1></div><script src="/m.js">'
        '</script><script id="__NEXT_DATA__" type="application/json">'
        '{"props": {"pageProps": {"product": {"name": "Tent"}}}}</script>'
        "</body></html>"
    )
    assert not next_ssr.js_only
    components = judge(
        "<html><body><site-header></site-header><main-content><p>"
        + "Text. " * 60
        + '</p></main-content><script type="module" src="/c.js"></script>'
        "</body></html>"
    )
    assert not components.js_only


def test_a_tracking_pixel_noscript_is_no_hint():
    verdict = judge(
        '<html><body><h1>Tent</h1><noscript><img src="/px.gif"></noscript>'
        "<script>track()</script></body></html>"
    )
    assert not verdict.js_only


def test_scripts_without_structured_data_alone_are_not_evidence():
    # e.g. search.html: scripts, no structured data at all, and nothing JavaScript-only about it
    verdict = judge(
        "<html><body><h1>Search</h1><script>document.title += '!'</script></body></html>"
    )
    assert not verdict.js_only


def test_a_rendered_next_page_or_a_state_block_is_not_a_shell():
    ssr = judge(
        '<html><body><div id="__next"><main><h1>Deals</h1></main></div>'
        '<script src="/_next/main.js"></script></body></html>'
    )
    state = judge(
        '<html><body><div id="__next"></div><script id="__NEXT_DATA__" '
        'type="application/json">{"props": {"x": 1}}</script>'
        '<script src="/_next/main.js"></script></body></html>'
    )
    assert not ssr.js_only and not state.js_only
    assert "layer:data-block" in state.signals


def test_an_empty_mount_beside_json_ld_content_is_not_escalated():
    verdict = judge(
        '<html><head><script type="application/ld+json">{"@type": "Product"}</script>'
        '</head><body><div id="root"></div><script src="/chat-widget.js"></script>'
        "</body></html>"
    )
    assert not verdict.js_only and "layer:json-ld" in verdict.signals


def test_no_scripts_no_escalation_even_with_an_empty_mount():
    assert not judge('<html><body><div id="root"></div></body></html>').js_only


def test_expected_selectors_decide_when_the_site_declares_them():
    html = "<html><body><h1>Tent</h1><script>init()</script></body></html>"
    assert not judge(html, ("h1",)).js_only
    missing = judge(html, ("h1.product-title", "[itemprop=price]"))
    assert missing.js_only and missing.reason == "missing-expected"
    # declared fields missing overrides layers: the site says the data is not there yet
    layered = judge(
        '<html><head><script type="application/ld+json">{"@type": "Organization"}'
        "</script></head><body><script>init()</script></body></html>",
        ("h1.title",),
    )
    assert layered.reason == "missing-expected"


@pytest.mark.parametrize("status", [404, 500, 503, 301])
def test_failed_or_redirected_http_fetches_are_never_evidence(status):
    shell = b'<html><body><div id="root"></div><script src="/a.js"></script></body></html>'
    verdict = judge_response(shell, BASE, "text/html", status)
    assert not verdict.js_only and verdict.signals == (f"status:{status}",)


def test_non_html_payloads_are_not_judged():
    assert judge_response(b'{"a": 1}', BASE, "application/json", 200).signals == ("payload:json",)
    assert judge_response(b"%PDF-1.4", BASE, "application/pdf", 200).signals == ("payload:pdf",)


@pytest.mark.parametrize(
    "encoding,encode",
    [
        ("gzip", gzip.compress),
        ("deflate", zlib.compress),
        ("br", brotli.compress),
    ],
)
def test_compressed_bodies_are_decoded_before_judging(encoding, encode):
    body = b"<html><body><div id='root'></div><script src='/a.js'></script></body></html>"
    assert decoded_body(encode(body), [encoding.encode()]) == body
    assert decoded_body(b"not compressed", [encoding]) is None
    assert decoded_body(body, ["compress"]) is None  # unknown coding: not judged


# -- URL templates and the learner --------------------------------------------------------


@pytest.mark.parametrize(
    "url,template",
    [
        ("http://a.example/products/trail-runner-x.html", "a.example/products/{slug}.html"),
        ("http://a.example/products/page-2.html", "a.example/products/{slug}.html"),
        ("http://a.example/products/", "a.example/products/"),
        ("http://a.example/products/index.html", "a.example/products/index.html"),
        ("http://A.example:8080/p/123", "a.example:8080/p/{n}"),
        ("http://a.example/p/5f3c2a9e1b7d/reviews", "a.example/p/{id}/reviews"),
        ("http://a.example/item/7f1f0c2e-3a4b-4c5d-9e8f-0a1b2c3d4e5f", "a.example/item/{id}"),
        ("http://a.example/search?q=tent&page=2", "a.example/search?page=&q="),
        ("http://a.example/about.html", "a.example/about.html"),
        ("http://a.example", "a.example/"),
    ],
)
def test_url_templates(url, template):
    assert url_template(url) == template


def test_the_learner_counts_per_site_and_template():
    learner = TemplateLearner(2)
    learner.record("http://a.example/p/one-1.html")
    assert not learner.learned("http://a.example/p/two-2.html")
    learner.record("http://a.example/p/two-2.html")
    assert learner.learned("http://a.example/p/three-3.html")
    assert not learner.learned("http://b.example/p/three-3.html")  # another site
    assert not learner.learned("http://a.example/q/three-3.html")  # another template
    assert dict(learner.counts) == {"a.example/p/{slug}.html": 2}
    off = TemplateLearner(0)
    off.record("http://a.example/p/x-1.html")
    assert not off.learned("http://a.example/p/x-1.html")


# -- rules and decisions --------------------------------------------------------------------

RULES_TOML = """
name = "shop"
hosts = ["shop.example"]
[[entity]]
type = "Product"
[entity.fields]
name = "h1"

[[render]]
url_pattern = "/app/"
wait_for = "#root .product"
actions = [{ click = "button.more" }, { fill = "input[name=q]", value = "tent" },
           { press = "input[name=q]", key = "Enter" }, { scroll = "bottom" },
           { wait_for = "ul.results" }]

[[render]]
url_pattern = "/static/"
render = false

[[render]]
url_pattern = "/maybe/"
render = "auto"
expect = ["h1.title"]
wait_for_response = "/api/.*\\\\.json"
"""


@pytest.fixture
def rules(tmp_path) -> RenderRules:
    (tmp_path / "shop.toml").write_text(RULES_TOML)
    (tmp_path / "other.toml").write_text('name = "other"\nhosts = ["other.example"]\n')
    return load_render_rules(tmp_path)


def test_rules_are_read_from_site_files(rules):
    assert [s.name for s in rules.rules if s.render] == ["shop"]  # no [[render]]: no rules
    rule = rules.for_url("https://www.shop.example/app/p/1")
    assert rule is not None and rule.mode == "always" and rule.wait_for == "#root .product"
    assert [a.kind for a in rule.actions] == ["click", "fill", "press", "scroll", "wait_for"]
    assert rule.actions[1].value == "tent" and rule.actions[2].value == "Enter"
    assert rules.for_url("https://shop.example/elsewhere") is None
    assert rules.for_url("https://other.example/app/") is None


def test_decisions_follow_rules_requests_and_learning(rules):
    learner = TemplateLearner(1)
    assert decide("https://shop.example/app/x", rules, learner).reason == "rule"
    never = decide("https://shop.example/static/x", rules, learner, requested=True)
    assert never.mode == "http" and not never.detect
    auto = decide("https://shop.example/maybe/x-1", rules, learner)
    assert auto.mode == "http" and auto.detect and auto.expect == ("h1.title",)
    assert decide("https://x.example/a-1", rules, learner, requested=True).reason == "requested"
    assert decide("https://x.example/a-1", rules, learner, requested=False).mode == "http"
    learner.record("https://shop.example/maybe/x-1")
    assert decide("https://shop.example/maybe/y-2", rules, learner).reason == "learned"
    assert not decide("https://x.example/b", rules, learner, detect=False).detect


def test_wait_plans(rules):
    default = wait_plan(None)
    assert default.selector == DEFAULT_DATA_SELECTOR and default.any_json and default.settle
    app = wait_plan(rules.for_url("https://shop.example/app/x"))
    assert app.selector == "#root .product" and not app.any_json and len(app.actions) == 5
    assert app.label == "selector:#root .product"
    maybe = wait_plan(rules.for_url("https://shop.example/maybe/x"))
    assert maybe.selector == "h1.title" and maybe.response is not None
    assert maybe.label == r"selector:h1.title & response:/api/.*\.json"


@pytest.mark.parametrize(
    "render,message",
    [
        ({"wait_for": "#x"}, "'url_pattern' (a regular expression) is required"),
        ({"url_pattern": "("}, "invalid regular expression"),
        ({"url_pattern": "/a", "render": "sometimes"}, "'render' must be true, false or \"auto\""),
        ({"url_pattern": "/a", "wait_for": "div::text"}, "not a standard CSS selector"),
        ({"url_pattern": "/a", "expect": ["a["]}, "not a standard CSS selector"),
        ({"url_pattern": "/a", "actions": [{"click": "#a", "fill": "#b"}]}, "exactly one of"),
        ({"url_pattern": "/a", "actions": [{"fill": "#b"}]}, "fill needs a string 'value'"),
        ({"url_pattern": "/a", "actions": [{"hover": "#b"}]}, "exactly one of"),
        ({"url_pattern": "/a", "delay": 3}, "unknown key(s) 'delay'"),
    ],
)
def test_broken_render_tables_name_the_file_and_the_reason(render, message):
    with pytest.raises(RulesError, match=re.escape(message)) as info:
        parse_site({"name": "s", "hosts": ["s.example"], "render": [render]}, "s.toml")
    assert str(info.value).startswith("s.toml: render[0]")


def test_a_render_table_needs_its_site_hosts():
    with pytest.raises(RulesError, match="'hosts'"):
        parse_site({"name": "s", "render": [{"url_pattern": "/a"}]}, "s.toml")


def test_the_demo_site_rules_send_the_spec_sheets_to_the_browser():
    rules = load_render_rules(SITE / "rules")
    rule = rules.for_url(BASE + "js/specs/lumen-400-headlamp.html")
    assert rule is not None and rule.mode == "always"
    assert [a.to_dict() for a in rule.actions] == [{"click": "button#show-specs"}]
    assert rule.wait_for == "script#spec-data"
    for path in ("", "products/trail-runner-x.html", "js/deals.html", "js/"):
        assert rules.for_url(BASE + path) is None
