"""The ``structcrawl`` command line: crawl, check, report, demo/deploy wiring, help on every
option, and a closed pipe that ends quietly."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from structcrawl.commandline import main
from structcrawl.dev.devserver import BackgroundServer

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "fixtures" / "site"
GOOD = SITE / "products" / "alpine-tent-2p.html"
CLI = [sys.executable, "-m", "structcrawl.commandline"]

MISSING_NAME = """<html><head><script type="application/ld+json">
{"@context": "https://schema.org", "@type": "Product", "sku": "X1",
 "offers": {"@type": "Offer", "price": "10.00", "priceCurrency": "EUR"}}
</script></head><body><p>a product without a name</p></body></html>"""


def _parser() -> argparse.ArgumentParser:
    captured: dict[str, argparse.ArgumentParser] = {}
    original = argparse.ArgumentParser.parse_args

    def grab(self, *args, **kwargs):
        captured["parser"] = self
        raise SystemExit(0)

    argparse.ArgumentParser.parse_args = grab  # type: ignore[method-assign]
    try:
        with pytest.raises(SystemExit):
            main(["--help"])
    finally:
        argparse.ArgumentParser.parse_args = original  # type: ignore[method-assign]
    return captured["parser"]


def test_help_lists_the_commands(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for command in ("crawl", "check", "extract", "deploy", "schedule", "demo", "ledger", "report"):
        assert f"    {command} " in out, command


def test_every_option_of_every_command_has_help():
    parser = _parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    missing = [
        f"{name} {action.dest}"
        for name, command in sub.choices.items()
        for action in command._actions
        if not isinstance(action, argparse._HelpAction) and not action.help
    ]
    assert not missing, missing


def test_check_a_good_page_exits_zero(capsys):
    assert main(["check", str(GOOD)]) == 0
    out = capsys.readouterr().out
    assert '[json-ld] Product "Alpine 2P Tent": valid' in out
    assert "0 invalid" in out
    assert 'item Product (primary) "Alpine 2P Tent": valid' in out  # the typed item, checked
    assert main(["check", str(GOOD), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["items"][0]["check"] == {"valid": True, "errors": []}
    assert report["summary"]["items"] >= 1 and report["summary"]["invalid_items"] == 0


def test_check_a_page_missing_a_required_property_exits_one(tmp_path, capsys):
    page = tmp_path / "p.html"
    page.write_text(MISSING_NAME)
    assert main(["check", str(page), "--base-url", "https://shop.example/p"]) == 1
    out = capsys.readouterr().out
    assert "Product: INVALID" in out and "error    name: name is required" in out
    assert main(["check", str(page), "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["summary"]["invalid"] == 1 and report["summary"]["missing_required"] == 1
    errors = report["records"][0]["validation"]["errors"]
    assert {"path": "name", "code": "missing-required", "message": "name is required"} in errors


def test_check_a_page_without_structured_data_says_so(tmp_path, capsys):
    page = tmp_path / "plain.html"
    page.write_text("<html><body><p>nothing here</p></body></html>")
    assert main(["check", str(page)]) == 0
    assert "no structured data records on this page" in capsys.readouterr().out


def test_check_a_page_whose_json_ld_cannot_be_read_exits_one(tmp_path, capsys):
    page = tmp_path / "broken.html"
    page.write_text(
        '<script type="application/ld+json">{"@context": "https://schema.org", "@type":'
        ' "Product", "name": "Lamp",</script><h1>Lamp</h1>'
    )
    assert (
        main(["check", str(page), "--base-url", "https://shop.example/p", "--format", "json"]) == 1
    )
    report = json.loads(capsys.readouterr().out)
    assert report["summary"]["errors"] == 1
    assert [p["code"] for p in report["problems"]] == ["json-ld-invalid"]


def test_check_unreadable_input_exits_two(tmp_path, capsys):
    assert main(["check", str(tmp_path / "missing.html")]) == 2
    assert "cannot read" in capsys.readouterr().err


@pytest.mark.crawl
def test_check_urls_fetch_through_a_one_page_crawl(capsys):
    with BackgroundServer(SITE) as server:
        assert main(["check", server.url + "products/alpine-tent-2p.html", "--no-render"]) == 0
        out = capsys.readouterr().out
        assert out.startswith(server.url + "products/alpine-tent-2p.html  [text/html, http]")
        assert main(["check", server.url + "no-such-page.html", "--no-render"]) == 2
        assert "HTTP 404" in capsys.readouterr().err


@pytest.mark.crawl
def test_check_takes_exactly_one_url_commas_included(capsys):
    import http.server
    import threading

    hits: list[str] = []

    class Counting(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            self.send_response(200)
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            pass

    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Counting)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    second = f"http://127.0.0.1:{other.server_address[1]}/"
    try:
        with BackgroundServer(SITE) as server:
            page = server.url + "products/alpine-tent-2p.html"
            for url in (page + "?ids=1,2", f"{page}?x=1,{second}"):
                assert main(["check", url, "--no-render", "--format", "json"]) == 0
                report = json.loads(capsys.readouterr().out)
                assert report["url"] == url and report["status"] == 200
    finally:
        other.shutdown()
        other.server_close()
    assert hits == []  # the second URL inside the first was never crawled


def test_check_of_a_closed_port_fails_fast_and_words_it_like_extract(capsys):
    started = time.monotonic()
    assert main(["check", "http://127.0.0.1:9/", "--no-render"]) == 2
    checked = capsys.readouterr().err
    assert time.monotonic() - started < 5
    assert main(["extract", "http://127.0.0.1:9/"]) == 2
    extracted = capsys.readouterr().err
    for said in (checked, extracted):
        assert "cannot fetch http://127.0.0.1:9/: " in said and "Connection refused" in said


def test_a_closed_pipe_ends_quietly(tmp_path):
    big = tmp_path / "big.html"
    items = ",".join(f'{{"@type": "Thing", "name": "n{i}"}}' for i in range(3000))
    big.write_text(f'<script type="application/ld+json">[{items}]</script>')
    done = subprocess.run(
        f"{' '.join(CLI)} extract {big} --format jsonl | head -n 1",
        shell=True, capture_output=True, text=True, timeout=60, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0
    assert len(done.stdout.splitlines()) == 1
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr


@pytest.mark.crawl
def test_crawl_writes_every_feed_and_the_report_into_the_folder(tmp_path):
    out = tmp_path / "out"
    elsewhere = tmp_path / "cwd"  # any directory: the project settings come with the package
    elsewhere.mkdir()
    with BackgroundServer(SITE) as server:
        done = subprocess.run(
            [*CLI, "crawl", server.url, "-o", str(out), "--depth", "1",
             "-s", "AUTOTHROTTLE_ENABLED=False", "-s", "STRUCTCRAWL_RENDER_ENABLED=False"],
            cwd=elsewhere, capture_output=True, text=True, timeout=240,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr + (out / "crawl.log").read_text()[-2000:]
    for name in (
        "entities.jsonl",
        "items.jsonl",
        "records.jsonl",
        "pages.jsonl",
        "report/report.json",
    ):
        assert (out / name).stat().st_size > 0, name
    pages = [json.loads(x) for x in (out / "pages.jsonl").read_text().splitlines()]
    assert max(p["depth"] for p in pages) == 1
    assert "pages.jsonl" in done.stdout
    summary = subprocess.run([*CLI, "report", str(out)], capture_output=True, text=True, timeout=60)
    assert summary.returncode == 0 and "finish reason: finished" in summary.stdout


def test_crawl_needs_a_start(tmp_path, capsys):
    assert main(["crawl", "-o", str(tmp_path)]) == 2
    assert "give a start URL" in capsys.readouterr().err


def test_demo_and_deploy_are_subcommands(capsys):
    for command in ("demo", "deploy"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        assert "--" in capsys.readouterr().out


@pytest.mark.crawl
def test_check_renders_a_url_that_needs_javascript(capsys):
    from structcrawl.render.browser import locate_chromium
    from tests.servers import require

    require(locate_chromium(None).problem() is None, "no Chromium (make browser)")
    with BackgroundServer(SITE) as server:
        code = main(["check", server.url + "js/deals.html", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert report["fetched_with"] == "browser" and report["fetch_reason"]
    assert report["summary"]["records"] >= 1  # captured from the app's JSON requests
    assert code == report["summary"]["exit"]


def test_crawl_parent_process_never_imports_scrapy(tmp_path):
    """``structcrawl crawl`` only runs ``scrapy crawl`` as a child: its own process stays free
    of Scrapy and Twisted (about 50 MB of the crawl's process tree, issue 24)."""
    script = f"""
import sys
import structcrawl.commandline.crawl as crawl
from structcrawl.commandline import main
from structcrawl.crawl.child import ChildRun
seen = []
crawl.run_child = lambda cmd, *a, **k: seen.append(cmd) or ChildRun(code=0)
code = main(["crawl", "--sitemap", "http://127.0.0.1:9/sitemap.xml", "-o", {str(tmp_path / "out")!r},
             "--depth", "1", "-s", 'STRUCTCRAWL_QUALITY_THRESHOLDS={{"max_page_error_rate": 0.5}}'])
assert code == 0 and seen, code
assert any(part.endswith(":items") for part in seen[0]), seen[0]
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("scrapy", "twisted"))
print(loaded)
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout


def test_feed_formats_are_the_addons():
    from structcrawl.commandline.crawl import feed_formats
    from structcrawl.crawl.addon import FEED_EXPORTERS

    assert feed_formats() == FEED_EXPORTERS and "items" in FEED_EXPORTERS


def test_crawl_parent_process_holds_no_page_code_while_the_crawl_runs(tmp_path):
    """The summary's modules (report, ledger, typed items, lxml: ~30 MB) are imported after the
    child ends, not held beside the crawl (issue 24)."""
    script = f"""
import sys
import structcrawl.commandline.crawl as crawl
from structcrawl.commandline import main
from structcrawl.crawl.child import ChildRun
held = []
def child(cmd, *a, **k):
    held.extend(m for m in sys.modules if m == "lxml" or m.startswith(("structcrawl.typed",
                "structcrawl.report", "structcrawl.ledger")))
    return ChildRun(code=0)
crawl.run_child = child
code = main(["crawl", "--sitemap", "http://127.0.0.1:9/sitemap.xml", "-o", {str(tmp_path / "out")!r}])
assert code == 0, code
print(sorted(held))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout


def test_crawl_parent_process_summarizes_without_the_page_code(tmp_path):
    """The summary reads the report and the ledger: it imports none of the page's readers nor
    the typed items (~0.5 s of CPU at the end of every crawl when the ledger pulled them in
    through the report's aggregation; issue 24)."""
    script = f"""
import sys
import structcrawl.commandline.crawl as crawl
from structcrawl.commandline import main
from structcrawl.crawl.child import ChildRun
crawl.run_child = lambda cmd, *a, **k: ChildRun(code=0)
code = main(["crawl", "--sitemap", "http://127.0.0.1:9/sitemap.xml", "-o", {str(tmp_path / "out")!r}])
assert code == 0, code
assert "structcrawl.commandline._summary" in sys.modules
print(sorted(m for m in sys.modules if m == "lxml" or m.startswith(("structcrawl.typed",
             "structcrawl.extract", "structcrawl.normalize", "structcrawl.visible"))))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout
