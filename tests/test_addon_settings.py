"""structcrawl.Addon at add-on priority: the project's settings win, components it names keep
their value (None too), scrapy-playwright gets its PLAYWRIGHT_* settings."""

from __future__ import annotations

from scrapy.settings import Settings

import structcrawl
from structcrawl.crawl.addon import ITEM_PIPELINES, Addon

ENTITIES = "structcrawl.crawl.pipelines.EntityPipeline"


def _applied(**project) -> Settings:
    settings = Settings()
    settings.setdict(project, priority="project")
    Addon().update_settings(settings)
    return settings


def test_structcrawl_exports_the_addon_and_page_item_lazily():
    assert structcrawl.Addon is Addon
    assert callable(structcrawl.page_item)


def test_a_component_the_project_turned_off_stays_off_and_the_others_are_added():
    settings = _applied(ITEM_PIPELINES={ENTITIES: None, "myproject.pipelines.Mine": 800})
    pipelines = settings.getdict("ITEM_PIPELINES")
    assert pipelines[ENTITIES] is None and pipelines["myproject.pipelines.Mine"] == 800
    assert {k for k, v in ITEM_PIPELINES.items() if k != ENTITIES} <= set(pipelines)


def test_a_component_named_by_class_is_not_added_twice():
    from structcrawl.crawl.pipelines import EntityPipeline

    settings = _applied(ITEM_PIPELINES={EntityPipeline: 650})
    pipelines = settings.getdict("ITEM_PIPELINES")
    assert pipelines[EntityPipeline] == 650 and ENTITIES not in pipelines


def test_the_projects_handlers_feeds_and_scrapy_settings_win():
    settings = _applied(
        DOWNLOAD_HANDLERS={"https": "myproject.Handler"},
        DOWNLOAD_TIMEOUT=90,
        ROBOTSTXT_OBEY=False,
    )
    handlers = settings.getdict("DOWNLOAD_HANDLERS")
    assert handlers["https"] == "myproject.Handler"
    assert handlers["http"] == "structcrawl.render.handler.RenderDownloadHandler"
    assert settings.getint("DOWNLOAD_TIMEOUT") == 90 and settings.getbool("ROBOTSTXT_OBEY") is False
    assert settings.getbool("AUTOTHROTTLE_ENABLED") is True
    assert "records" in settings.getdict("FEED_EXPORTERS")


REMOTE_CONTROL = "scrapy.extensions.remote_control.RemoteControl"


def _extensions(settings: Settings) -> list[str]:
    from scrapy.utils.conf import build_component_list

    return build_component_list(settings.get_component_priority_dict_with_base("EXTENSIONS"))


def test_scrapys_remote_control_is_off_and_not_imported_unless_turned_on():
    """Scrapy's remote control runs the Python code an HTTP request sends it: off, like the
    telnet console, and taken out of EXTENSIONS_BASE (a component set to None is imported)."""
    settings = _applied()
    assert settings.getbool("REMOTE_CONTROL_ENABLED") is False
    assert REMOTE_CONTROL not in _extensions(settings)
    assert "scrapy.extensions.corestats.CoreStats" in _extensions(settings)
    for on in (_applied(REMOTE_CONTROL_ENABLED=True), _applied(EXTENSIONS={REMOTE_CONTROL: 10})):
        assert REMOTE_CONTROL in _extensions(on)
    cmdline = Settings()
    cmdline.set("REMOTE_CONTROL_ENABLED", "True", priority="cmdline")
    Addon().update_settings(cmdline)
    assert cmdline.getbool("REMOTE_CONTROL_ENABLED") and REMOTE_CONTROL in _extensions(cmdline)


def test_playwright_is_configured_through_its_settings_and_the_projects_launch_options_merge():
    settings = _applied(
        STRUCTCRAWL_BROWSER_EXECUTABLE="/opt/chromium/chrome",
        PLAYWRIGHT_LAUNCH_OPTIONS={"headless": False, "args": ["--lang=de"]},
        STRUCTCRAWL_RENDER_MAX_PAGES=3,
    )
    launch = settings.getdict("PLAYWRIGHT_LAUNCH_OPTIONS")
    assert launch["executable_path"] == "/opt/chromium/chrome" and launch["headless"] is False
    assert "--lang=de" in launch["args"] and "--disable-dev-shm-usage" in launch["args"]
    assert settings.getint("PLAYWRIGHT_MAX_PAGES_PER_CONTEXT") == 6
    assert settings.getbool("PLAYWRIGHT_RESTART_DISCONNECTED_BROWSER") is True
    assert settings.getfloat("PLAYWRIGHT_DEFAULT_NAVIGATION_TIMEOUT") == 30000.0
    assert settings["PLAYWRIGHT_ABORT_REQUEST"].types


def test_rendering_off_leaves_playwright_alone():
    settings = _applied(STRUCTCRAWL_RENDER_ENABLED=False)
    assert settings.get("PLAYWRIGHT_LAUNCH_OPTIONS") is None
