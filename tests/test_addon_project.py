"""The add-on in a fresh Scrapy project: ``scrapy startproject``, one line in its settings, a
spider that yields ``structcrawl.page_item(response)``; it crawls the demo site and writes
records, pages, entities and the quality report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from structcrawl.dev.devserver import BackgroundServer
from tests.servers import real_pages_corpus

SITE = Path(__file__).resolve().parents[1] / "fixtures" / "site"
pytestmark = pytest.mark.crawl

SPIDER = """
import scrapy
import structcrawl


class DemoSpider(scrapy.Spider):
    name = "demo"

    def __init__(self, start="", **kwargs):
        super().__init__(**kwargs)
        self.start_urls = [start]

    def parse(self, response):
        yield structcrawl.page_item(response)
        if response.headers.get("Content-Type", b"").startswith(b"text/html"):
            yield from response.follow_all(css="a[href$='.html'], a[href$='/']")
"""

SETTINGS = """
ADDONS = {{"structcrawl.Addon": 0}}
USER_AGENT = "addon-test (+https://example.org/contact)"
FEEDS = {{
    "{out}/records.jsonl": {{"format": "records"}},
    "{out}/pages.jsonl": {{"format": "pages"}},
    "{out}/entities.jsonl": {{"format": "entities"}},
}}
STRUCTCRAWL_REPORT_DIR = "{out}/report"
STRUCTCRAWL_BODY_STORE = "{out}/bodies"
STRUCTCRAWL_ENTITY_STORE = "{out}/state/entities.sqlite"
STRUCTCRAWL_CHANGE_STORE = "{out}/state/changes.sqlite"
DEPTH_LIMIT = 1
"""


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line]


def _crawl_new_project(
    root: Path, settings_text: str, *args: str, site: Path = SITE, spider: str = SPIDER
) -> dict:
    """``scrapy startproject shop`` in ``root``, ``settings_text`` added to its settings, the
    ``demo`` spider (``spider``: the demo spider) crawling ``site`` with ``args``."""
    env = {k: v for k, v in os.environ.items() if k != "SCRAPY_SETTINGS_MODULE"}
    scrapy = [sys.executable, "-m", "scrapy"]
    made = subprocess.run(
        [*scrapy, "startproject", "shop"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert made.returncode == 0, made.stderr
    project = root / "shop"
    (project / "shop" / "spiders" / "demo.py").write_text(spider)
    settings = project / "shop" / "settings.py"
    settings.write_text(settings.read_text() + settings_text)
    with BackgroundServer(site) as server:
        done = subprocess.run(
            [*scrapy, "crawl", "demo", "-a", f"start={server.url}", *args],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=240,
        )
    return {"code": done.returncode, "log": done.stderr, "base": server.url, "project": project}


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("project")
    out = root / "out"
    return {
        **_crawl_new_project(root, SETTINGS.format(out=out), "-s", "LOG_LEVEL=INFO"),
        "out": out,
    }


def test_the_crawl_of_the_fresh_project_succeeds(project):
    assert project["code"] == 0, project["log"][-3000:]
    assert "Enabled addons:" in project["log"] and "structcrawl.crawl.addon.Addon" in project["log"]


def test_pages_go_through_every_pipeline(project):
    pages = _lines(project["out"] / "pages.jsonl")
    records = _lines(project["out"] / "records.jsonl")
    assert len(pages) >= 5
    assert all(p["body_ref"] for p in pages if p["status"] == 200)  # body store
    entity_records = [r for r in records if r["kind"] == "entity"]
    assert {"json-ld", "microdata"} <= {r["format"] for r in entity_records}  # extraction
    assert sum(1 for r in entity_records if r.get("key")) >= 10  # normalization keys entities
    assert any("validation" in r for r in entity_records)  # validation


def test_entities_and_the_report_are_written(project):
    entities = _lines(project["out"] / "entities.jsonl")
    assert entities and all(e["key"] for e in entities)
    report = json.loads((project["out"] / "report" / "report.json").read_text())
    assert report["finish_reason"] == "finished"
    assert report["entities"] and report["ledger"]


def test_the_addon_set_polite_defaults_and_the_projects_user_agent_wins(project):
    log = project["log"]
    assert "USER_AGENT is left at its default" not in log
    assert "scrapy.extensions.throttle.AutoThrottle" in log  # enabled by the add-on


BARE_SETTINGS = """
ADDONS = {{"structcrawl.Addon": 0}}
USER_AGENT = "addon-test (+https://example.org/contact)"
FEEDS = {{
    "{out}/pages.jsonl": {{"format": "pages"}},
    "{out}/entities.jsonl": {{"format": "entities"}},
    "{out}/entities.csv": {{"format": "entities-csv"}},
}}
DEPTH_LIMIT = 2
"""


@pytest.fixture(scope="module")
def debug_project(tmp_path_factory):
    """A project that names only its feeds, crawled at Scrapy's default level (DEBUG)."""
    root = tmp_path_factory.mktemp("debug-project")
    out = root / "feeds"
    settings = BARE_SETTINGS.format(out=out)
    return {
        **_crawl_new_project(root, settings, "-s", "STRUCTCRAWL_RENDER_ENABLED=False"),
        "out": out,
    }


def test_items_log_as_one_short_line_at_debug(debug_project):
    assert debug_project["code"] == 0, debug_project["log"][-3000:]
    pages = _lines(debug_project["out"] / "pages.jsonl")
    item_lines = [
        line
        for line in debug_project["log"].splitlines()
        if "Scraped from" in line or "Dropped:" in line
    ]
    assert len(item_lines) >= len(pages) >= 5  # page items and entity items, one line each
    assert max(len(line) for line in item_lines) < 600
    assert sum(len(line) + 1 for line in item_lines) < 2_000 * len(item_lines)
    assert any(" records, " in line for line in item_lines) and any(
        "entity " in line for line in item_lines
    )


def test_the_report_bodies_and_state_go_beside_the_feeds(debug_project):
    out, project = debug_project["out"], debug_project["project"]
    assert (out / "report" / "report.json").is_file() and (
        out / "report" / "ledger.jsonl"
    ).is_file()
    assert any((out / "bodies").rglob("*.zst"))
    assert (out / "state" / "entities.sqlite").is_file()
    assert (
        not (project / "output" / "report").exists()
        and not (project / "output" / "bodies").exists()
    )


def test_the_csv_feed_reads_with_pythons_csv_module(debug_project):
    import csv

    with (debug_project["out"] / "entities.csv").open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))  # the default field size limit: 131,072
    assert len(rows) == 1 + len(_lines(debug_project["out"] / "entities.jsonl"))


def test_a_huge_entity_keeps_its_csv_cells_under_the_reader_limit():
    import csv
    import io

    from structcrawl.crawl.exporters.tables import CSV_CELL_LIMIT, EntitiesCsvExporter
    from structcrawl.crawl.items import EntityItem

    sink = io.BytesIO()
    exporter = EntitiesCsvExporter(sink)
    exporter.start_exporting()
    exporter.export_item(
        EntityItem(key="k", id="i", type=["Product"], properties={"description": "x" * 300_000})
    )
    exporter.finish_exporting()
    rows = list(csv.reader(io.StringIO(sink.getvalue().decode("utf-8"))))
    cell = rows[1][-1]
    assert len(cell) <= CSV_CELL_LIMIT < 131_072 and cell.endswith("whole in the JSONL feed]")


def _corpus() -> Path:
    return real_pages_corpus()


CORPUS_SPIDER = """
import scrapy
import structcrawl


class DemoSpider(scrapy.Spider):
    name = "demo"
    allowed_domains = ["127.0.0.1"]

    def __init__(self, start="", **kwargs):
        super().__init__(**kwargs)
        self.start_urls = [start]

    def parse(self, response):
        yield structcrawl.page_item(response)
        if response.url == self.start_urls[0]:  # the index: every corpus page, nothing further
            yield from response.follow_all(css="a")
"""

CORPUS_SETTINGS = """
ADDONS = {{"structcrawl.Addon": 0}}
USER_AGENT = "addon-test (+https://example.org/contact)"
FEEDS = {{
    "{out}/pages.jsonl": {{"format": "pages"}},
    "{out}/records.jsonl": {{"format": "records"}},
    "{out}/entities.jsonl": {{"format": "entities"}},
    "{out}/items.jsonl": {{"format": "items"}},
}}
"""


@pytest.mark.timeout(600)
def test_a_110_page_crawl_at_debug_logs_under_200_kb_about_items(tmp_path):
    """The issue's measure: 110 real pages (the shared corpus and an index linking them) in a
    user's project at Scrapy's default level, DEBUG: 9.5 MB of log with items dumped whole."""
    site = tmp_path / "site"
    site.mkdir()
    pages = sorted(_corpus().glob("*.html"))
    for page in pages:
        (site / page.name).symlink_to(page)
    links = "".join(f'<li><a href="{p.name}">{p.stem}</a></li>' for p in pages)
    (site / "index.html").write_text(f"<!doctype html><title>corpus</title><ul>{links}</ul>")
    assert len(pages) + 1 == 110
    out = tmp_path / "feeds"
    crawl = _crawl_new_project(
        tmp_path,
        CORPUS_SETTINGS.format(out=out),
        "-s",
        "STRUCTCRAWL_RENDER_ENABLED=False",
        site=site,
        spider=CORPUS_SPIDER,
    )
    assert crawl["code"] == 0, crawl["log"][-3000:]
    assert "DEBUG" in crawl["log"]  # the default level
    assert len(_lines(out / "pages.jsonl")) == 110
    log = crawl["log"].splitlines()
    about_items = [
        x for x in log if any(m in x for m in ("Scraped from", "Dropped:", "Error processing"))
    ]
    size = sum(len(x.encode()) + 1 for x in about_items)
    total = sum(len(x.encode()) + 1 for x in log)
    assert len(about_items) >= 110 + len(_lines(out / "entities.jsonl"))  # one line per item
    assert size < 200_000, f"{size:,} bytes of item lines ({total:,} bytes of log in all)"
