"""The checkout's own spiders (top-level ``spiders/``) beside the packaged ``site`` spider."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from structcrawl.spiders import MARKER, project_spider_modules

ROOT = Path(__file__).resolve().parents[1]


def test_the_checkout_lists_its_own_spiders_beside_the_site_spider():
    listed = subprocess.run(
        [sys.executable, "-m", "scrapy", "list"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert listed.stdout.split() == ["demo", "site"]


def test_an_unrelated_spiders_package_is_neither_listed_nor_imported(tmp_path, monkeypatch):
    theirs = tmp_path / "theirs_spiders"
    theirs.mkdir()
    (theirs / "__init__.py").write_text("raise RuntimeError('imported')\n")
    ours = tmp_path / "ours_spiders"
    ours.mkdir()
    (ours / "__init__.py").write_text(f'"""A structcrawl project\'s spiders."""\n\n{MARKER}\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    assert project_spider_modules("theirs_spiders") == []
    assert "theirs_spiders" not in sys.modules
    assert project_spider_modules("ours_spiders") == ["ours_spiders"]


@pytest.mark.parametrize("args", [{}, {"start_urls": "http://127.0.0.1:9000/x.html"}])
def test_the_demo_spider_starts_at_the_demo_site_unless_told(args):
    from spiders.demo import DEMO_URL, DemoSpider

    spider = DemoSpider(**args)
    assert spider.start_urls == [args.get("start_urls", DEMO_URL)]
    assert spider.allowed_domains == ["127.0.0.1"]


def test_the_demo_spider_reads_the_rules_that_live_with_the_demo_site():
    from scrapy.settings import Settings

    from spiders.demo import DEMO_RULES, DemoSpider

    settings = Settings({"STRUCTCRAWL_RULES_DIR": "/elsewhere"}, priority="cmdline")
    DemoSpider.update_settings(settings)
    assert settings["STRUCTCRAWL_RULES_DIR"] == "/elsewhere"  # -s wins
    settings = Settings()
    DemoSpider.update_settings(settings)
    assert Path(settings["STRUCTCRAWL_RULES_DIR"]) == DEMO_RULES and DEMO_RULES.is_dir()
