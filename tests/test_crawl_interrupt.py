"""``structcrawl crawl`` stopped with Ctrl-C and resumed (docs/command-line.md): the interrupted
run exits non-zero saying how to resume, the resumed run exits 0, the feeds of the two runs
hold every page once, no page was fetched twice, and the ledgers of the runs account for
every URL once. Also: a folder that holds a crawl is refused, argument errors are one line,
the progress line on a terminal (a pty), and killing the command stops its Scrapy child.

The site is the corpus site of tests/test_crash_resume.py (60 heavy pages, a sitemap, an
access log), served on 127.0.0.1 by a child process stopped by PID."""

from __future__ import annotations

import json
import os
import pty
import select
import shlex
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from structcrawl.commandline import main
from tests.test_crash_resume import PAGES, Site

CLI = [sys.executable, "-m", "structcrawl.commandline"]
SLOW = ["-s", "AUTOTHROTTLE_ENABLED=False", "-s", "STRUCTCRAWL_RENDER_ENABLED=False",
        "-s", "CONCURRENT_REQUESTS=2", "-s", "DOWNLOAD_DELAY=0.3"]  # fmt: skip


def _crawl(site: Site, out: Path, *extra: str) -> list[str]:
    return [
        *CLI, "crawl", f"{site.url}/p/0.html", "--sitemap", f"{site.url}/sitemap.xml",
        "--follow", "/p/", "-o", str(out), *SLOW, *extra,
    ]  # fmt: skip


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def _wait_for(proc: subprocess.Popen[str], ready: object, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not ready():  # type: ignore[operator]
        assert proc.poll() is None, "the crawl ended before it was interrupted"
        assert time.monotonic() < deadline, "the crawl did not get going"
        time.sleep(0.05)


def _stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()


@pytest.mark.crawl
@pytest.mark.timeout(300)
def test_ctrl_c_then_resume_finds_every_page_once(tmp_path):
    out = tmp_path / "out"
    with Site(tmp_path) as site:
        first = subprocess.Popen(
            _crawl(site, out), cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        try:
            _wait_for(first, lambda: _lines(out / "pages.jsonl") >= 8)
            os.kill(first.pid, signal.SIGINT)  # what Ctrl-C sends (the child has its own session)
            _, err = first.communicate(timeout=120)
        finally:
            _stop(first)
        assert first.returncode == 130, err
        assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
        resume = [line for line in err.splitlines() if "interrupted; resume with: " in line]
        assert resume, err
        written = _lines(out / "pages.jsonl")
        assert 8 <= written < PAGES, "interrupted mid-run"
        assert (out / "report" / "report.json").exists() and (
            out / "report" / "ledger.jsonl"
        ).exists()
        assert (
            json.loads((out / "report" / "report.json").read_text())["finish_reason"] == "shutdown"
        )

        again = subprocess.run(
            _crawl(site, out), cwd=tmp_path, capture_output=True, text=True, timeout=60
        )
        assert again.returncode == 2 and "--resume" in again.stderr
        assert (
            len(again.stderr.strip().splitlines()) == 1 and _lines(out / "pages.jsonl") == written
        )

        command = shlex.split(resume[0].split("resume with: ", 1)[1])
        assert command[:2] == ["structcrawl", "crawl"] and command[-1] == "--resume"
        second = subprocess.run(
            [*CLI, *command[1:]], cwd=tmp_path, capture_output=True, text=True, timeout=240
        )
        assert second.returncode == 0, second.stderr + (out / "crawl.log").read_text()[-3000:]
        fetched = Counter(path for path in site.fetched() if path.startswith("/p/"))
    pages = [json.loads(line)["url"] for line in (out / "pages.jsonl").read_text().splitlines()]
    assert len(pages) == len(set(pages)) == PAGES  # every page once in the combined feed
    assert len(fetched) == PAGES and max(fetched.values()) == 1  # nothing fetched twice
    entities = [
        json.loads(line)["key"] for line in (out / "entities.jsonl").read_text().splitlines()
    ]
    assert entities and len(entities) == len(set(entities))
    assert "page ledger of 2 runs" in second.stderr and "every URL once" in second.stderr
    ledgers = [str(out / "report" / "ledger.run-1.jsonl"), str(out / "report" / "ledger.jsonl")]
    assert main(["ledger", *ledgers, "--pages", str(out / "pages.jsonl")]) == 0
    finished = subprocess.run(
        _crawl(site, out, "--resume"), capture_output=True, text=True, timeout=60
    )
    assert finished.returncode == 2 and "nothing to resume" in finished.stderr


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["crawl", "not-a-url"], "not an http(s) URL: 'not-a-url'"),
        (["crawl", "http://127.0.0.1:9/", "--depth", "-1"], "--depth must be 0 or more"),
        (["crawl", "http://127.0.0.1:9/", "-s", "NOPE"], "-s takes NAME=VALUE"),
        (
            [
                "crawl",
                "http://127.0.0.1:9/",
                "-s",
                'STRUCTCRAWL_QUALITY_THRESHOLDS={"min_things:X": 1}',
            ],
            "unknown quality threshold 'min_things:X'",
        ),
        (["crawl", "http://127.0.0.1:9/", "--resume"], "nothing to resume"),
    ],
)
def test_argument_errors_are_one_line_and_exit_2(argv, says, tmp_path):
    done = subprocess.run(
        [*CLI, *argv, "-o", str(tmp_path / "out")], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [done.stderr.strip()] and says in done.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.crawl
@pytest.mark.timeout(300)
def test_on_a_terminal_the_progress_line_is_live_and_the_summary_follows(tmp_path):
    out = tmp_path / "out"
    with Site(tmp_path) as site:
        leader, follower = pty.openpty()
        proc = subprocess.Popen(
            _crawl(site, out, "-s", "STRUCTCRAWL_PROGRESS_INTERVAL=0.5", "-s", "DOWNLOAD_DELAY=0.05"),
            cwd=tmp_path, stdin=follower, stdout=follower, stderr=follower, text=True,
        )  # fmt: skip
        os.close(follower)
        screen = b""
        try:
            deadline = time.monotonic() + 240
            while time.monotonic() < deadline:
                ready, _, _ = select.select([leader], [], [], 0.5)
                if ready:
                    try:
                        chunk = os.read(leader, 65536)
                    except OSError:  # the terminal closed: the command ended
                        break
                    if not chunk:
                        break
                    screen += chunk
                elif proc.poll() is not None:
                    break
            proc.wait(timeout=30)
        finally:
            _stop(proc)
            os.close(leader)
    text = screen.decode("utf-8", "replace")
    assert proc.returncode == 0, text[-3000:]
    assert "\r\x1b[Kprogress: " in text and "pages done" in text  # rewritten in place
    assert "finish reason: finished" in text and "page ledger: " in text


@pytest.mark.crawl
@pytest.mark.timeout(180)
def test_killing_the_command_stops_its_scrapy_child(tmp_path):
    out = tmp_path / "out"
    with Site(tmp_path) as site:
        proc = subprocess.Popen(
            _crawl(site, out),
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            _wait_for(proc, lambda: _lines(out / "pages.jsonl") >= 2)
            child = _children(proc.pid)
            assert child, "no scrapy child"
            os.kill(proc.pid, signal.SIGTERM)
            proc.communicate(timeout=120)
        finally:
            _stop(proc)
        assert proc.returncode == 130
        deadline = time.monotonic() + 30
        while any(_alive(pid) for pid in child):
            assert time.monotonic() < deadline, "the scrapy child outlived the command"
            time.sleep(0.1)


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"
