"""Deployment to a real scrapyd on 127.0.0.1: the egg, ``scrapyd-deploy``, scheduled jobs, and
``structcrawl schedule --once``; plus the pure judges of deploy answers and job logs.

Scrapyd runs with its own config file and directories under a tmp dir, with an account, in
a Python environment that has every dependency but not structcrawl itself: the jobs can only
import the project from the deployed egg (as on a real scrapyd host). It is stopped by PID.
"""

from __future__ import annotations

import importlib.util
import json
import os
import secrets
import signal
import subprocess
import sys
import sysconfig
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from structcrawl.dev.devserver import BackgroundServer
from structcrawl.ops._scrapyd import ScrapydClient, answer_from_text
from structcrawl.ops.deploy import build_egg, deploy, job_failures
from tests.servers import free_port, require

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "fixtures" / "site"
PROJECT = "structcrawl"


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def _need_scrapyd_client() -> None:
    require(
        _installed("scrapyd_client"), "scrapyd-client is not installed (pip install -e '.[test]')"
    )


# --- pure: deploy answers and job logs -----------------------------------------------------


def test_a_deploy_answer_counts_only_with_status_ok():
    assert answer_from_text('{"status": "ok", "project": "p", "spiders": 1}').ok
    error = answer_from_text('{"status": "error", "message": "DirectoryTraversalError: a/b"}')
    assert not error.ok and error.error == "scrapyd: DirectoryTraversalError: a/b"
    assert not answer_from_text("").ok
    assert not answer_from_text('["ok"]').ok


STATS = """\
2026-11-29 17:12:23 [scrapy.statscollectors] INFO: Dumping Scrapy stats:
{'downloader/request_count': 56,
 'elapsed_time_seconds': 11.01,
 'feedexport/success_count/FileFeedStorage': 3,
 'finish_reason': '%s',
 'finish_time': datetime.datetime(2026, 11, 29, 17, 12, 23, 686175, tzinfo=datetime.timezone.utc),
 'item_scraped_count': 182,
 'log_count/ERROR': %d,
 'log_count/INFO': 6,
 'start_time': datetime.datetime(2026, 11, 29, 17, 12, 12, 675273, tzinfo=datetime.timezone.utc)}
2026-11-29 17:12:23 [scrapy.core.engine] INFO: Spider closed (finished)
"""


def test_a_clean_job_log_has_no_failures():
    assert (
        job_failures("2026-11-29 17:12:11 [scrapy] INFO: start\n" + STATS % ("finished", 0)) == []
    )


def test_job_log_failures_read_the_stats_dump():
    assert job_failures(STATS % ("finished", 54)) == [
        "log_count/ERROR: 54 (errors were logged; see the crawl log)"
    ]
    assert job_failures(STATS % ("shutdown", 0)) == ["finish_reason: shutdown"]
    failed = STATS.replace("'item_scraped_count'", "'structcrawl/failure/browser': 2,\n 'x'")
    assert job_failures(failed % ("finished", 0)) == ["structcrawl/failure/browser: 2"]
    critical = STATS.replace("'log_count/INFO'", "'log_count/CRITICAL': 1,\n 'log_count/INFO'")
    assert job_failures(critical % ("finished", 0)) == ["log_count/CRITICAL: 1"]


def test_a_crash_without_stats_or_errors_after_them_is_a_failure():
    crashed = (
        "2026-11-29 17:12:11 [scrapy.utils.log] INFO: Scrapy started\n"
        "2026-11-29 17:12:11 [twisted] CRITICAL: Unhandled error in Deferred:\n"
        "Traceback (most recent call last):\n"
        "ValueError: refusing non-http(s) URL 'file:///etc/passwd'\n"
    )
    reasons = job_failures(crashed)
    assert reasons[0].startswith("no stats dump in the log")
    assert any("CRITICAL" in r for r in reasons) and "a traceback in the log" in reasons
    late = STATS % ("finished", 0) + (
        "2026-11-29 17:12:24 [scrapy.core.engine] ERROR: Scraper close failure\n"
        "Traceback (most recent call last):\n"
    )
    assert [r.split(":")[0] for r in job_failures(late)] == [
        "1 ERROR/CRITICAL line(s) after the stats dump",
        "a traceback in the log after the stats dump",
    ]
    assert "structcrawl: crawl failed (see the log)" in job_failures(
        STATS % ("finished", 0) + "structcrawl: crawl failed:\n"
    )


# --- the egg ------------------------------------------------------------------------------


@pytest.mark.timeout(120)
def test_the_egg_carries_the_code_and_all_package_data(tmp_path):
    _need_scrapyd_client()
    egg = tmp_path / "structcrawl.egg"
    leftovers = ("setup.py", "build", "project.egg-info")
    before = {name: (ROOT / name).exists() for name in leftovers}
    ok, output = build_egg(ROOT, egg)
    assert ok, output[-3000:]
    names = set(zipfile.ZipFile(egg).namelist())
    # the compiled passes (their Cython sources, and the C and modules built in the checkout)
    # are not in the egg: it is pure Python, and the Python passes serve it
    compiled = (".pyc", ".pyx", ".so", ".c")
    on_disk = {
        str(p.relative_to(ROOT))
        for p in (ROOT / "structcrawl").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix not in compiled
    }
    assert on_disk - names == set(), "files missing from the egg (declare them as package data)"
    assert not [n for n in names if n.endswith((".so", ".c"))], "a module built for this machine"
    for pattern, least in (
        ("structcrawl/schemas/*.json", 18),
        ("structcrawl/vocab/*.json.gz", 1),
        ("structcrawl/spiders/*.py", 2),
        ("spiders/*.py", 2),  # the project's own spiders (the checkout's top-level spiders/)
    ):
        assert len([n for n in names if Path(n).match(pattern)]) >= least, pattern
    assert not [n for n in names if n.startswith(("tests/", "bench/", "fixtures/"))]
    entry_points = zipfile.ZipFile(egg).read("EGG-INFO/entry_points.txt").decode()
    assert "[scrapy]\nsettings = structcrawl.settings" in entry_points
    after = {name: (ROOT / name).exists() for name in leftovers}
    assert after == before, "scrapyd-deploy must run in a copy, not in the checkout"


# --- a real scrapyd -----------------------------------------------------------------------


@dataclass
class Scrapyd:
    url: str
    dir: Path
    env: dict[str, str]  # the environment of clients: SCRAPYD_URL and the account
    proc: subprocess.Popen[bytes]
    client: ScrapydClient

    def log(self) -> str:
        return (self.dir / "scrapyd.log").read_text(errors="replace")

    def job_log(self, jobid: str, spider: str = "site") -> str:
        return (self.dir / "logs" / PROJECT / spider / f"{jobid}.log").read_text(errors="replace")

    def wait_finished(self, jobid: str, timeout: float = 240) -> dict[str, str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            answer = self.client.listjobs(PROJECT)
            assert answer.ok, answer.error
            done = [j for j in answer.data["finished"] if j["id"] == jobid]
            if done:
                return done[0]
            time.sleep(1)
        raise AssertionError(f"job {jobid} not finished after {timeout}s:\n{self.log()[-3000:]}")


def _isolated_python(base: Path) -> Path:
    """A venv whose packages are this environment's, through a .pth path entry: the editable
    install's finder (a .pth *import* line in site-packages) is not run, so structcrawl is
    importable only from an egg."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(base)], check=True)
    python = base / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    paths = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    (Path(site) / "structcrawl-deps.pth").write_text("".join(f"{p}\n" for p in paths))
    probe = (
        "import scrapyd, scrapy\ntry:\n import structcrawl\nexcept ImportError:\n print('isolated')"
    )
    out = subprocess.run(
        [str(python), "-c", probe], cwd=base, capture_output=True, text=True, check=False
    )
    assert out.stdout.strip() == "isolated", out.stdout + out.stderr
    return python


def _stop(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return


@pytest.fixture(scope="module")
def scrapyd(tmp_path_factory) -> Iterator[Scrapyd]:
    require(_installed("scrapyd"), "scrapyd is not installed (pip install -e '.[test]')")
    _need_scrapyd_client()
    base = tmp_path_factory.mktemp("scrapyd")
    python = _isolated_python(base / "venv")
    port, user, password = free_port(), "structcrawl", secrets.token_urlsafe(16)
    run = base / "run"
    run.mkdir()
    # items_dir stays empty: with it, scrapyd replaces each job's FEEDS with one generic
    # jsonlines feed (docs/deployment.md); feeds are set per job instead.
    (run / "scrapyd.conf").write_text(
        "[scrapyd]\n"
        "bind_address = 127.0.0.1\n"
        f"http_port = {port}\n"
        f"username = {user}\n"
        f"password = {password}\n"
        f"eggs_dir = {base}/eggs\n"
        f"logs_dir = {base}/logs\n"
        "items_dir =\n"
        f"dbs_dir = {base}/dbs\n"
        "jobs_to_keep = 5\n"
        "max_proc = 2\n"
        "poll_interval = 0.5\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCRAPYD_")}
    env.pop("PYTHONPATH", None)
    log = (base / "scrapyd.log").open("wb")
    proc = subprocess.Popen(
        [str(python), "-m", "scrapyd"], cwd=run, env=env, stdout=log, stderr=subprocess.STDOUT
    )
    url = f"http://127.0.0.1:{port}/"
    client_env = {"SCRAPYD_URL": url, "SCRAPYD_USERNAME": user, "SCRAPYD_PASSWORD": password}
    server = Scrapyd(url, base, client_env, proc, ScrapydClient.from_env(url, client_env))
    try:
        deadline = time.monotonic() + 30
        while not server.client.get("daemonstatus.json").ok:
            assert proc.poll() is None, f"scrapyd exited:\n{server.log()[-3000:]}"
            assert time.monotonic() < deadline, f"scrapyd did not answer:\n{server.log()[-3000:]}"
            time.sleep(0.2)
        yield server
    finally:
        running = server.client.listjobs(PROJECT)
        for job in running.data.get("running", []) if running.ok else []:
            _stop(int(job["pid"]))  # a job left by a failed test
        _stop(proc.pid)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
        log.close()


@pytest.fixture(scope="module")
def deployed(scrapyd):
    result = deploy(ROOT, env={**os.environ, **scrapyd.env}, version="1")
    assert result.ok, result.output[-3000:]
    return result


@pytest.fixture(scope="module")
def demo_site() -> Iterator[str]:
    with BackgroundServer(SITE) as server:
        yield server.url


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.crawl
@pytest.mark.timeout(180)
def test_deploy_uploads_the_egg_and_scrapyd_finds_the_spider(scrapyd, deployed):
    assert deployed.answer.data["project"] == PROJECT and deployed.answer.data["spiders"] == 2
    spiders = scrapyd.client.get("listspiders.json", project=PROJECT)
    assert spiders.ok and spiders.data["spiders"] == ["demo", "site"]
    assert "1" in scrapyd.client.get("listversions.json", project=PROJECT).data["versions"]


@pytest.mark.crawl
@pytest.mark.timeout(180)
def test_deploy_without_the_account_or_with_an_error_answer_fails(scrapyd, deployed):
    anonymous = ScrapydClient(scrapyd.url).get("daemonstatus.json")
    assert not anonymous.ok and "HTTP 401" in anonymous.error
    no_account = {k: v for k, v in os.environ.items() if not k.startswith("SCRAPYD_")}
    result = deploy(ROOT, url=scrapyd.url, env=no_account)
    assert not result.ok and "401" in result.answer.error
    # scrapyd answers HTTP 200 {"status": "error"} here and scrapyd-deploy exits 0; we do not
    env = {**os.environ, **scrapyd.env}
    cmd = [sys.executable, "-m", "structcrawl.ops.deploy", "--root", str(ROOT), "--project", "a/b"]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "FAILED: scrapyd: DirectoryTraversalError" in proc.stderr
    assert scrapyd.env["SCRAPYD_PASSWORD"] not in proc.stdout + proc.stderr


def test_a_username_without_a_password_is_refused_before_anything_is_sent(tmp_path):
    env = {"SCRAPYD_URL": "http://127.0.0.1:9/", "SCRAPYD_USERNAME": "ops"}
    result = deploy(ROOT, env=env)
    assert not result.ok and result.output == ""  # scrapyd-deploy never ran
    assert result.answer.error == (
        "SCRAPYD_USERNAME is set but SCRAPYD_PASSWORD is not: set both, or neither"
    )
    cmd = [sys.executable, "-m", "structcrawl.ops.deploy", "--root", str(ROOT)]
    proc = subprocess.run(
        cmd, env={**os.environ, **env}, capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 1 and "SCRAPYD_PASSWORD is not" in proc.stderr
    with pytest.raises(ValueError, match="SCRAPYD_PASSWORD is not"):
        ScrapydClient("http://127.0.0.1:9/", "ops")
    schedule = tmp_path / "jobs.toml"
    schedule.write_text('url = "http://127.0.0.1:9/"\n')
    cmd = [sys.executable, "-m", "structcrawl.commandline", "schedule", str(schedule), "--once"]
    proc = subprocess.run(
        cmd, env={**os.environ, **env}, capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 2 and "SCRAPYD_PASSWORD is not" in proc.stderr


@pytest.mark.crawl
@pytest.mark.timeout(300)
def test_a_scheduled_crawl_writes_its_feeds_and_a_clean_log(scrapyd, deployed, demo_site):
    out = scrapyd.dir / "feeds"
    feeds = {
        str(out / "entities.jsonl"): {"format": "entities"},
        str(out / "records.jsonl"): {"format": "records"},
        str(out / "pages.jsonl"): {"format": "pages"},
    }
    form = [
        ("project", PROJECT),
        ("spider", "site"),
        ("setting", f"FEEDS={json.dumps(feeds)}"),
        ("setting", f"STRUCTCRAWL_BODY_STORE={out / 'bodies'}"),
        ("setting", f"STRUCTCRAWL_ENTITY_STORE={out / 'state' / 'entities.sqlite'}"),
        ("setting", f"STRUCTCRAWL_REPORT_DIR={out / 'report'}"),
        ("setting", "AWS_SECRET_ACCESS_KEY=not-for-the-log"),  # logged, redacted
        ("start_urls", demo_site),
    ]
    answer = scrapyd.client.schedule(form)
    assert answer.ok, answer.error
    jobid = answer.data["jobid"]
    scrapyd.wait_finished(jobid)
    log = scrapyd.job_log(jobid)
    assert job_failures(log) == [], log[-4000:]
    assert "'finish_reason': 'finished'" in log and "'log_count/ERROR'" not in log
    assert "AWS_SECRET_ACCESS_KEY" in log and "not-for-the-log" not in log
    assert f"Process finished: project='{PROJECT}' spider='site' job='{jobid}'" in scrapyd.log()
    pages = _lines(out / "pages.jsonl")
    records = _lines(out / "records.jsonl")
    entities = _lines(out / "entities.jsonl")
    assert len(pages) >= 25 and all(p["final_url"].startswith(demo_site) for p in pages)
    assert {p["final_url"] for p in pages} <= {
        r["provenance"]["fetch"]["final_url"] for r in records
    }
    formats = {r["format"] for r in records if r["kind"] == "entity"}
    assert {"json-ld", "microdata", "rdfa", "opengraph"} <= formats
    products = [e for e in entities if "Product" in e["type"]]
    assert products and all(e["key"] for e in entities)
    assert (out / "report" / "report.json").is_file()  # the egg's quality report extension ran


@pytest.mark.crawl
@pytest.mark.timeout(180)
def test_a_crashed_job_lists_as_finished_and_its_log_says_why(scrapyd, deployed):
    answer = scrapyd.client.schedule(
        [("project", PROJECT), ("spider", "site"), ("start_urls", "file:///etc/passwd")]
    )
    assert answer.ok, answer.error
    jobid = answer.data["jobid"]
    finished = scrapyd.wait_finished(jobid, timeout=120)  # "finished", though it crashed
    assert finished["id"] == jobid
    log = scrapyd.job_log(jobid)
    reasons = job_failures(log)
    assert reasons and reasons[0].startswith("no stats dump in the log"), reasons
    assert "ValueError: refusing non-http(s) URL 'file:///etc/passwd'" in log
    assert (
        f"eggs/{PROJECT}/1.egg/structcrawl/spiders/site.py" in log
    )  # the job ran the deployed egg
    assert f"Process died: exitstatus=1 project='{PROJECT}' spider='site' job='{jobid}'" in (
        scrapyd.log()
    )


@pytest.mark.crawl
@pytest.mark.timeout(300)
def test_structcrawl_schedule_once_submits_the_demo_crawl_once(
    scrapyd, deployed, demo_site, tmp_path
):
    out, state = tmp_path / "out", tmp_path / "state.json"
    env = {**os.environ, **scrapyd.env, "DEMO_SITE_URL": demo_site, "DEMO_OUT": str(out)}
    cmd = [
        str(Path(sys.executable).with_name("structcrawl")),
        "schedule",
        str(ROOT / "schedules" / "demo.toml"),
        "--once",
        "--now",
        "2026-01-01T00:16:30Z",  # demo-site runs at 15 */6: its 00:15 slot is due
        "--state",
        str(state),
    ]
    first = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60, check=False)
    jobid = "demo-site-20260101T0015Z"
    assert first.returncode == 0, first.stderr
    assert first.stdout == f"demo-site: submitted slot 2026-01-01T00:15:00Z as job {jobid}\n"
    again = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60, check=False)
    assert (again.returncode, again.stdout, again.stderr) == (0, "", "")
    listed = scrapyd.client.listjobs(PROJECT).data
    ids = [j["id"] for key in ("pending", "running", "finished") for j in listed[key]]
    assert ids.count(jobid) == 1
    scrapyd.wait_finished(jobid)
    log = scrapyd.job_log(jobid)
    assert job_failures(log) == [], log[-4000:]
    (run_dir,) = [p for p in out.iterdir() if (p / "entities.jsonl").exists()]
    assert _lines(run_dir / "entities.jsonl") and _lines(run_dir / "records.jsonl")
    assert json.loads(state.read_text())["jobs"]["demo-site"]["jobid"] == jobid
