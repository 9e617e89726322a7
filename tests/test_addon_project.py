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

SITE = Path(__file__).resolve().parents[1] / "fixtures" / "site"
pytestmark = pytest.mark.crawl

SPIDER = '''
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
'''

SETTINGS = '''
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
'''


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line]


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("project")
    env = {k: v for k, v in os.environ.items() if k != "SCRAPY_SETTINGS_MODULE"}
    scrapy = [sys.executable, "-m", "scrapy"]
    made = subprocess.run(
        [*scrapy, "startproject", "shop"], cwd=root, env=env, capture_output=True, text=True, timeout=60
    )
    assert made.returncode == 0, made.stderr
    project = root / "shop"
    out = root / "out"
    (project / "shop" / "spiders" / "demo.py").write_text(SPIDER)
    settings = project / "shop" / "settings.py"
    settings.write_text(settings.read_text() + SETTINGS.format(out=out))
    with BackgroundServer(SITE) as server:
        done = subprocess.run(
            [*scrapy, "crawl", "demo", "-a", f"start={server.url}", "-s", "LOG_LEVEL=INFO"],
            cwd=project, env=env, capture_output=True, text=True, timeout=240,
        )
    return {"code": done.returncode, "log": done.stderr, "out": out, "base": server.url}


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
