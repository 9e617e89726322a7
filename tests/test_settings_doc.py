"""The settings reference (docs/settings.md) is generated from the code and matches it."""

from __future__ import annotations

import re

from scrapy.settings import Settings

from structcrawl import settings as project_settings_module
from structcrawl.crawl.addon import POLITE, Addon
from structcrawl.crawl.config import DEFAULTS, ExtractConfig
from structcrawl.dev import settingsdoc


def test_the_committed_settings_page_is_what_the_code_generates():
    committed = settingsdoc.PAGE.read_text(encoding="utf-8")
    assert committed == settingsdoc.render(), "run: python -m structcrawl.dev.settingsdoc"
    assert settingsdoc.main(["--check"]) == 0


def test_every_setting_is_prefixed_documented_and_has_a_row_of_the_page():
    page = settingsdoc.PAGE.read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `(STRUCTCRAWL_[A-Z0-9_]+)` \| (.+?) \|", page, re.M))
    assert set(rows) == set(DEFAULTS)
    for name, setting in DEFAULTS.items():
        assert setting.doc.strip(), name
    assert (
        rows["STRUCTCRAWL_RENDER_MAX_PAGES"]
        == f"`{DEFAULTS['STRUCTCRAWL_RENDER_MAX_PAGES'].default}`"
    )


def test_a_changed_default_makes_the_check_fail(tmp_path, monkeypatch):
    page = tmp_path / "settings.md"
    assert settingsdoc.main(["--path", str(page)]) == 0
    assert settingsdoc.main(["--check", "--path", str(page)]) == 0
    from structcrawl.crawl.config import Setting

    monkeypatch.setitem(DEFAULTS, "STRUCTCRAWL_RENDER_MAX_PAGES", Setting(99, "Browser pages."))
    assert settingsdoc.main(["--check", "--path", str(page)]) == 1


def test_the_addon_brings_every_default_below_the_projects_settings():
    settings = Settings()
    settings.setmodule(project_settings_module, priority="project")
    settings.set("STRUCTCRAWL_REPORT_DIR", "mine", priority="project")
    settings.set("AUTOTHROTTLE_ENABLED", False, priority="cmdline")
    Addon().update_settings(settings)
    for name, setting in DEFAULTS.items():
        if name != "STRUCTCRAWL_REPORT_DIR":
            assert settings.get(name) == setting.default, name
            assert settings.getpriority(name) == 15  # "addon"
    assert settings["STRUCTCRAWL_REPORT_DIR"] == "mine"
    assert settings.getbool("AUTOTHROTTLE_ENABLED") is False  # the command line wins
    assert settings.getint("DOWNLOAD_TIMEOUT") == POLITE["DOWNLOAD_TIMEOUT"]
    assert ExtractConfig.from_settings(settings).syntaxes[0] == "json-ld"
