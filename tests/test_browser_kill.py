"""The browser killed during a crawl: Chromium (every chromium process under the crawl's
process) is SIGKILLed by PID once a third of the JavaScript pages are written; the crawl
relaunches it and finishes, every JavaScript page ends with its records (or an error record),
the page ledger is complete, and no page waits out the render bound because its browser died.

The site is generated: application shells whose product JSON-LD exists only after their
script ran, served on 127.0.0.1 by :class:`structcrawl.dev.devserver.BackgroundServer` (a child
process stopped by PID). Without a Chromium the test is skipped, except under ``CI=true``,
where it fails (:func:`tests.servers.require`).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import pytest

from structcrawl.dev.devserver import BackgroundServer
from structcrawl.ledger.check import check_ledger
from structcrawl.ledger.pages import read_jsonl
from structcrawl.render.browser import locate_chromium
from tests.servers import require

ROOT = Path(__file__).resolve().parents[1]
JS_PAGES = 30
KILL_AFTER = 10  # browser pages in the pages feed

pytestmark = pytest.mark.crawl

_SHELL = """<!doctype html><html><head><title>Product {i}</title></head><body>
<div id="root"></div>
<script>addEventListener("load", function () {{ setTimeout(function () {{
  var s = document.createElement("script"); s.type = "application/ld+json";
  s.textContent = JSON.stringify({{"@context": "https://schema.org", "@type": "Product",
    "@id": "urn:test:product-{i}", "name": "Product {i}", "sku": "SKU-{i}"}});
  document.head.appendChild(s);
  document.getElementById("root").textContent = "Product {i}";
}}, 200); }});</script></body></html>
"""


def _site(root: Path) -> None:
    (root / "app").mkdir(parents=True)
    links = "".join(f'<li><a href="app/p{i}.html">Product {i}</a></li>' for i in range(JS_PAGES))
    (root / "index.html").write_text(
        "<!doctype html><html><head><title>Shop</title>"
        '<script type="application/ld+json">{"@context": "https://schema.org", '
        '"@type": "WebSite", "@id": "urn:test:site", "name": "Shop"}</script>'
        f"</head><body><ul>{links}</ul></body></html>"
    )
    for i in range(JS_PAGES):
        (root / "app" / f"p{i}.html").write_text(_SHELL.format(i=i))


def _descendants(pid: int) -> list[int]:
    """PIDs of every process under ``pid`` (Linux: /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def _browser_pages(path: Path) -> list[dict]:
    if not path.exists():
        return []
    lines = path.read_text().split("\n")[:-1]  # complete lines only
    return [p for p in map(json.loads, lines) if p["fetched_with"] == "browser"]


def _when(page: dict) -> float:
    return datetime.fromisoformat(page["retrieved_at"].replace("Z", "+00:00")).timestamp()


@pytest.fixture(scope="module")
def chromium() -> str:
    problem = locate_chromium(None).problem()
    require(problem is None, f"the browser tests need Chromium: {problem}")
    require(Path("/proc/self/stat").exists(), "finding the browser's processes needs /proc")
    return str(locate_chromium(None).path)


@pytest.mark.timeout(300)
def test_a_killed_browser_is_relaunched_and_every_page_accounted_for(chromium, tmp_path):
    _site(tmp_path / "site")
    out = tmp_path / "out"
    out.mkdir()
    with BackgroundServer(tmp_path / "site") as server:
        cmd = [
            sys.executable, "-m", "scrapy", "crawl", "site", "-a", f"start_urls={server.url}",
            "-o", f"{out / 'pages.jsonl'}:pages", "-o", f"{out / 'records.jsonl'}:records",
            "-s", f"STRUCTCRAWL_BODY_STORE={out / 'bodies'}",
            "-s", f"STRUCTCRAWL_ENTITY_STORE={out / 'entities.sqlite'}",
            "-s", f"STRUCTCRAWL_CHANGE_STORE={out / 'changes.sqlite'}",
            "-s", f"STRUCTCRAWL_REPORT_DIR={out / 'report'}",
            "-s", f"LOG_FILE={out / 'crawl.log'}", "-s", "LOG_LEVEL=INFO",
        ]  # fmt: skip
        proc = subprocess.Popen(cmd, cwd=ROOT)
        killed: list[int] = []
        killed_at = 0.0
        try:
            deadline = time.monotonic() + 240
            while proc.poll() is None:
                assert time.monotonic() < deadline, "the crawl did not finish"
                if not killed and len(_browser_pages(out / "pages.jsonl")) >= KILL_AFTER:
                    browser = [p for p in _descendants(proc.pid) if "chrom" in _name(p)]
                    for pid in browser:
                        try:
                            os.kill(pid, signal.SIGKILL)
                            killed.append(pid)
                        except ProcessLookupError:
                            pass
                    killed_at = time.time()
                time.sleep(0.05)
        finally:
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait()
        base = server.url
    log = (out / "crawl.log").read_text()
    assert killed, "no chromium process was found under the crawl"
    assert proc.returncode == 0, log[-3000:]
    stats = {k: int(v) for k, v in re.findall(r"'([a-z_]+/[^']+)': (\d+)", log)}
    assert stats["playwright/browser_count"] >= 2  # relaunched
    assert stats["structcrawl/render/browser/crashed"] >= 1
    assert "structcrawl/render/abandoned" not in stats  # no page waited out the render bound

    pages = read_jsonl(out / "pages.jsonl")
    records = read_jsonl(out / "records.jsonl")
    expected = {base} | {f"{base}app/p{i}.html" for i in range(JS_PAGES)}
    assert sorted(p["url"] for p in pages) == sorted(expected)  # each once
    rendered_after = 0
    for page in pages:
        if page["url"] == base:
            continue
        assert page["fetched_with"] == "browser", page["url"]
        own = [r for r in records if r["provenance"]["fetch"]["url"] == page["url"]]
        if page["fetch_error"] is None:
            names = [r["properties"].get("name") for r in own if r["format"] == "json-ld"]
            assert names == [f"Product {page['url'].rsplit('/p', 1)[1][:-5]}"], page["url"]
            rendered_after += _when(page) > killed_at
        else:  # a page the browser died under twice: an error record says so
            assert page["fetch_error"]["code"] == "browser-render-failed", page
            assert [r["error"]["code"] for r in own] == ["browser-render-failed"]
    assert rendered_after > 0  # pages rendered in the relaunched browser
    ok = sum(1 for p in pages if p["url"] != base and p["fetch_error"] is None)
    assert ok >= JS_PAGES - 4  # at most the pages open at the kill can fail (4 at a time)
    check = check_ledger(read_jsonl(out / "report" / "ledger.jsonl"), pages)
    assert check.ok, check.problems
    assert check.requested == len(expected)


def test_a_listener_that_ran_into_its_closed_page_is_a_warning_not_the_crawl_s_error():
    """Playwright logs a listener's error at ERROR; a TargetClosedError there (the browser
    died while scrapy-playwright read a response's headers) is logged at WARNING and counted,
    once the render handler's filter is on Playwright's logger; any other stays an ERROR."""
    import logging

    from playwright._impl._errors import TargetClosedError

    from structcrawl.render.listenerlog import LISTENER_ERROR, install

    counted: list[int] = []
    seen: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record)

    logger = logging.getLogger("playwright")
    keep = Keep()
    logger.addHandler(keep)
    filt = install(lambda: counted.append(1))
    try:
        assert install(lambda: counted.append(1)) is filt  # once per process
        for error in (TargetClosedError("Target page, context or browser has been closed"),
                      ValueError("a listener's own bug")):  # fmt: skip
            try:
                raise error
            except Exception:
                logger.error(LISTENER_ERROR, exc_info=True)
    finally:
        logger.removeHandler(keep)
        logger.removeFilter(filt)
    assert [(r.levelname, type(r.exc_info[1]).__name__) for r in seen] == [
        ("WARNING", "TargetClosedError"), ("ERROR", "ValueError"),
    ]  # fmt: skip
    assert counted == [1]
