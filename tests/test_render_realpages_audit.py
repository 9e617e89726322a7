"""End to end with the real browser, on real pages: JSON-LD moved into external scripts is
not missed, and unchanged pages mostly stay off the browser.

The sites of ``bench/bench_render_heldout.py`` at a smaller size: real product pages whose
JSON-LD an external script fetches by XHR and inserts, real news pages whose script writes it
into the DOM on load, other real pages unchanged, each page at the path of the URL it was
saved from (so nearly every page has a URL template of its own), crawled in one run by
``structcrawl crawl --sitemap ... --depth 0`` at the default settings. Only the render audit
can send the script pages to the browser: it must learn both script sites whole. Under
``CI=true`` a missing browser is a failure, never a skip.
"""

from __future__ import annotations

import pytest

from bench.bench_render_heldout import measure
from structcrawl.render.browser import locate_chromium
from tests.servers import require

pytestmark = pytest.mark.crawl
PAGES = 12


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    problem = locate_chromium(None).problem()
    require(problem is None, f"the audit test renders pages in Chromium: {problem}")
    return measure(PAGES, tmp_path_factory.mktemp("realpages-audit"), [], timeout=400)


@pytest.mark.timeout(450)
def test_the_crawl_succeeds(result):
    assert result["code"] == 0
    assert all(site["pages"] == PAGES for site in result["sites"].values()), result


@pytest.mark.timeout(450)
def test_script_pages_end_with_their_json_ld(result):
    sites = result["sites"]
    # the 80% and 87% of the targets (24/30, 26/30), on 12 pages each
    assert sites["xhr"]["with_jsonld"] >= 10, sites["xhr"]
    assert sites["onload"]["with_jsonld"] >= 11, sites["onload"]
    for kind in ("xhr", "onload"):
        assert set(sites[kind]["reasons"]) <= {"audit", "learned", "empty-mount", "noscript"}


@pytest.mark.timeout(450)
def test_control_pages_are_only_sampled(result):
    control = result["sites"]["control"]
    # the first three judged pages of the site are audited; none gains, nothing is learned
    assert 1 <= control["rendered"] <= 4, control
    assert set(control["reasons"]) == {"audit"}, control
