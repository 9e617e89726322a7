"""Settings are documented in one place and the manual says what they are."""

from __future__ import annotations

from pathlib import Path

from scrapy.utils.project import get_project_settings

from structcrawl.crawl.config import DEFAULTS, ExtractConfig

MANUAL = (Path(__file__).resolve().parents[1] / "docs" / "settings.md").read_text()


def test_every_setting_is_prefixed_documented_and_in_the_manual():
    for name, setting in DEFAULTS.items():
        assert name.startswith("STRUCTCRAWL_")
        assert setting.doc.strip()
        assert f"`{name}`" in MANUAL, f"{name} missing from docs/settings.md"


def test_project_settings_carry_the_defaults(monkeypatch):
    monkeypatch.setenv("SCRAPY_SETTINGS_MODULE", "structcrawl.settings")
    settings = get_project_settings()
    for name, setting in DEFAULTS.items():
        assert settings.get(name) == setting.default
    assert ExtractConfig.from_settings(settings).syntaxes[0] == "json-ld"
