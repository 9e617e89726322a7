"""Locating Chromium and building its launch options (no browser is started here)."""

from __future__ import annotations

import os
import stat

import pytest

from structcrawl.render import browser
from structcrawl.render.browser import (
    HEADLESS_FLAGS,
    ResourceBlocker,
    launch_options,
    locate_chromium,
    playwright_chromium_candidates,
)


def executable(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_the_setting_wins_then_the_environment_variable(tmp_path):
    system = executable(tmp_path / "usr/bin/chromium")
    env = {"STRUCTCRAWL_CHROMIUM": "/from/env"}
    assert locate_chromium("/from/setting", env, system_candidates=[system]).source == "setting"
    loc = locate_chromium(None, env, playwright_candidates=[], system_candidates=[system])
    assert (loc.path, loc.source) == ("/from/env", "env")


def test_an_explicit_path_that_does_not_exist_is_kept_and_reported(tmp_path):
    system = executable(tmp_path / "usr/bin/chromium")
    loc = locate_chromium(
        None, {"STRUCTCRAWL_CHROMIUM": "/nonexistent"}, system_candidates=[system]
    )
    assert loc.path == "/nonexistent" and not loc.usable  # never silently another browser
    assert loc.problem() == "no executable Chromium at /nonexistent (from env)"


def test_playwright_browsers_come_before_the_system_one(tmp_path):
    registry = tmp_path / "ms-playwright"
    old = executable(registry / "chromium-1100/chrome-linux/chrome")
    new = executable(registry / "chromium-1255/chrome-linux64/chrome")
    shell = executable(registry / "chromium_headless_shell-1255/chrome-linux/headless_shell")
    env = {"PLAYWRIGHT_BROWSERS_PATH": str(registry)}
    assert playwright_chromium_candidates(env) == [new, old, shell]
    system = executable(tmp_path / "usr/bin/chromium")
    loc = locate_chromium(None, env, system_candidates=[system])
    assert (loc.path, loc.source) == (new, "playwright")
    empty = {"PLAYWRIGHT_BROWSERS_PATH": str(tmp_path / "none")}
    assert locate_chromium(None, empty, system_candidates=[system]).source == "system"


def test_home_cache_is_where_playwright_keeps_browsers(tmp_path):
    chrome = executable(tmp_path / ".cache/ms-playwright/chromium-1255/chrome-linux64/chrome")
    assert playwright_chromium_candidates({}, home=tmp_path) == [chrome]


def test_no_browser_at_all_says_what_to_do(tmp_path):
    loc = locate_chromium(None, {}, playwright_candidates=[], system_candidates=["/no/chromium"])
    assert loc.path is None and loc.source == "none" and not loc.usable
    problem = loc.problem()
    assert "/no/chromium" in problem and "apt-get install chromium" in problem
    assert "STRUCTCRAWL_CHROMIUM" in problem


def test_launch_options_suit_a_headless_server():
    opts = launch_options(
        "/usr/bin/chromium", is_root=True, extra_args=["--lang=de", "--disable-gpu"]
    )
    assert opts["executable_path"] == "/usr/bin/chromium" and opts["headless"] is True
    for flag in (
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
    ):
        assert flag in opts["args"]
    assert opts["args"].count("--disable-gpu") == 1 and opts["args"][-1] == "--lang=de"
    user = launch_options(None, is_root=False)
    assert "--no-sandbox" not in user["args"] and "executable_path" not in user
    assert tuple(user["args"]) == HEADLESS_FLAGS


def test_no_sandbox_follows_the_effective_user():
    opts = launch_options("/x")
    assert ("--no-sandbox" in opts["args"]) == (os.geteuid() == 0)


def test_resource_blocker():
    class Req:
        def __init__(self, kind):
            self.resource_type = kind

    block = ResourceBlocker(frozenset({"image", "font", "media"}))
    assert [block(Req(k)) for k in ("image", "font", "media", "script", "xhr", "document")] == [
        True,
        True,
        True,
        False,
        False,
        False,
    ]


def test_the_command_line_check(monkeypatch, capsys):
    monkeypatch.setenv("STRUCTCRAWL_CHROMIUM", "/nonexistent")
    assert browser.main([]) == 1
    assert "no executable Chromium at /nonexistent" in capsys.readouterr().err
    monkeypatch.setenv("STRUCTCRAWL_CHROMIUM", "/bin/sh")
    assert browser.main([]) == 0
    assert capsys.readouterr().out.strip() == "/bin/sh (env)"


@pytest.mark.parametrize("value", ["", "  "])
def test_blank_settings_mean_not_set(value, tmp_path):
    system = executable(tmp_path / "chromium")
    loc = locate_chromium(
        value, {"STRUCTCRAWL_CHROMIUM": value}, playwright_candidates=[], system_candidates=[system]
    )
    assert loc.source == "system"
