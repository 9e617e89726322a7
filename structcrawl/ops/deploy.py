"""Deploy the project to scrapyd with ``scrapyd-deploy``, and judge what really happened.

    python -m structcrawl.ops.deploy [TARGET] [--url URL] [--project NAME] [--version V]
                                     [--root DIR]
    python -m structcrawl.ops.deploy --build-egg PATH [--root DIR]
    make deploy [TARGET=name]

``scrapyd-deploy`` (scrapyd-client) reads the ``[deploy]`` / ``[deploy:TARGET]`` section of
``scrapy.cfg``, builds an egg with setuptools (``structcrawl/`` with the ``site`` spider, the
project's own ``spiders/`` package, the package data declared in ``pyproject.toml``; scrapyd
finds ``structcrawl.settings`` through the ``scrapy`` entry point) and uploads it to
``addversion.json``. This wrapper runs it in a clean copy of the project (scrapyd-deploy
writes a ``setup.py``, ``build/`` and ``*.egg-info`` into the directory it runs in; the copy
keeps the checkout clean and the egg free of stale build files), and checks the server's JSON
answer: scrapyd-deploy exits 0 even when scrapyd answers ``{"status": "error"}``; this exits 1.

The target's URL can be replaced with ``--url`` or ``$SCRAPYD_URL``. The scrapyd account comes
from ``$SCRAPYD_USERNAME`` / ``$SCRAPYD_PASSWORD`` (scrapyd-client also reads ``~/.netrc``):
the copy's target gets ``username = ${SCRAPYD_USERNAME}``, which scrapyd-client expands from the
environment, so the password is never written anywhere.

:func:`job_failures` reads a finished scrapyd job's log: scrapyd lists a crashed job as
"finished" too, and the job's own exit status only reaches scrapyd's log.
"""

from __future__ import annotations

import argparse
import ast
import configparser
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from structcrawl.crawl.health import crawl_failures
from structcrawl.ops._scrapyd import Answer, account_problem, answer_from_text

__all__ = ["STAGED", "DeployResult", "build_egg", "deploy", "job_failures", "main", "stage_project"]

#: What a deployment needs from the checkout (the egg's contents and its metadata).
STAGED = ("scrapy.cfg", "pyproject.toml", "README.md", "structcrawl", "spiders")
#: Left out of it: build files, and the compiled passes built in the checkout (their C sources
#: and modules, for this machine's Python: the egg is pure Python, the Python passes serve it)
_IGNORE = shutil.ignore_patterns(
    "__pycache__", "*.pyc", "*.egg-info", "build", "dist", "*.so", "*.pyd", "*.c"
)
_TIMEOUT = 300.0


@dataclass(frozen=True, slots=True)
class DeployResult:
    ok: bool
    answer: Answer
    output: str  # what scrapyd-deploy printed (stdout then stderr)


def stage_project(root: Path, dest: Path) -> Path:
    """Copy :data:`STAGED` from ``root`` into ``dest`` (without caches and build files)."""
    for name in STAGED:
        source = root / name
        if source.is_dir():
            shutil.copytree(source, dest / name, ignore=_IGNORE)
        elif source.exists() or name != "spiders":
            shutil.copy2(source, dest / name)
    if (dest / "spiders").is_dir():
        _package_project_spiders(dest / "pyproject.toml")
    return dest


def _package_project_spiders(pyproject: Path) -> None:
    """The egg carries the project's ``spiders`` package beside ``structcrawl``; the wheel
    does not (its package list stays ``structcrawl*``), so only the staged copy says so."""
    text = pyproject.read_text(encoding="utf-8")
    find = 'include = ["structcrawl*"]'
    if find not in text:
        raise RuntimeError(f"{pyproject}: no {find!r} to add the project's spiders to")
    pyproject.write_text(text.replace(find, 'include = ["structcrawl*", "spiders*"]'), "utf-8")


def _configure_target(
    cfg: Path, target: str, url: str | None, project: str | None, env: Mapping[str, str]
) -> None:
    parser = configparser.RawConfigParser()
    parser.read(cfg, encoding="utf-8")
    section = "deploy" if target == "default" else f"deploy:{target}"
    if not parser.has_section(section):
        if not url:
            return  # maybe a user-level target (~/.scrapy.cfg); scrapyd-deploy decides
        parser.add_section(section)
    if url:
        parser.set(section, "url", url)
    if project:
        parser.set(section, "project", project)
    if env.get("SCRAPYD_USERNAME") and not parser.has_option(section, "username"):
        # expanded by scrapyd-client from its environment: no secret on disk (deploy()
        # refused a username without a password, which it would send as the literal text)
        parser.set(section, "username", "${SCRAPYD_USERNAME}")
        parser.set(section, "password", "${SCRAPYD_PASSWORD}")
    with cfg.open("w", encoding="utf-8") as fh:
        parser.write(fh)


def _scrapyd_deploy(args: list[str], cwd: Path, env: Mapping[str, str]) -> tuple[int, str, str]:
    cmd = [sys.executable, "-m", "scrapyd_client.deploy", *args]
    try:
        proc = subprocess.run(
            cmd, cwd=cwd, env=dict(env), capture_output=True, text=True, timeout=_TIMEOUT
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return 1, "", f"scrapyd-deploy did not run: {exc}"
    return proc.returncode, proc.stdout, proc.stderr


def build_egg(root: Path, dest: Path, env: Mapping[str, str] | None = None) -> tuple[bool, str]:
    """Build the project's egg into ``dest`` with ``scrapyd-deploy --build-egg``:
    ``(ok, scrapyd-deploy's output)``."""
    with tempfile.TemporaryDirectory(prefix="structcrawl-egg-") as tmp:
        stage = stage_project(root, Path(tmp))
        code, out, err = _scrapyd_deploy(
            [f"--build-egg={dest.resolve()}"], stage, os.environ if env is None else env
        )
    return code == 0 and dest.is_file(), out + err


def deploy(
    root: Path,
    target: str = "default",
    *,
    url: str | None = None,
    project: str | None = None,
    version: str | None = None,
    env: Mapping[str, str] | None = None,
) -> DeployResult:
    """Build and upload the egg with ``scrapyd-deploy TARGET``; ``ok`` only when scrapyd
    answered ``"status": "ok"``."""
    env = os.environ if env is None else env
    url = url or env.get("SCRAPYD_URL") or None
    missing = account_problem(env)
    if missing:
        return DeployResult(False, Answer(False, {}, missing), "")
    with tempfile.TemporaryDirectory(prefix="structcrawl-deploy-") as tmp:
        stage = stage_project(root, Path(tmp))
        _configure_target(stage / "scrapy.cfg", target, url, project, env)
        args = [target, *(["-v", version] if version else [])]
        code, out, err = _scrapyd_deploy(args, stage, env)
    output = out + err
    if code != 0:
        tail = " ".join(line for line in output.strip().splitlines()[-3:])
        return DeployResult(False, Answer(False, {}, f"scrapyd-deploy failed: {tail}"), output)
    answer = answer_from_text(out)
    return DeployResult(answer.ok, answer, output)


_STATS_START = "Dumping Scrapy stats:"
_STAT_LINE = re.compile(r"^[{ ]'(?P<key>[^']+)': (?P<value>.*?),?}?$")
_LOG_LEVEL = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \[[^\]]*\] (?P<level>[A-Z]+):")


def _stats(lines: list[str], start: int) -> dict[str, Any]:
    stats: dict[str, Any] = {}
    for line in lines[start + 1 :]:
        if _LOG_LEVEL.match(line):
            break
        m = _STAT_LINE.match(line)
        if m:
            try:
                stats[m["key"]] = ast.literal_eval(m["value"])
            except (ValueError, SyntaxError):
                stats[m["key"]] = m["value"]
        if line.rstrip().endswith("}") and not line.startswith("  "):
            break
    return stats


def job_failures(log_text: str) -> list[str]:
    """Why a scrapyd job's crawl must not count as a success, read from its log (empty: it
    succeeded). Reads the last stats dump with :func:`structcrawl.crawl.health.crawl_failures`
    (failure keys, feed errors, ERROR lines, the finish reason), and flags a log without a
    stats dump (the process crashed or was killed), ERROR/CRITICAL lines and tracebacks after
    the dump, and ``structcrawl: crawl failed`` where stderr was captured.

    >>> job_failures("2026-01-01 00:00:00 [scrapy.core.engine] INFO: Spider opened")
    ['no stats dump in the log: the crawl did not finish (crashed or killed)']
    """
    lines = log_text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.rstrip().endswith(_STATS_START)]
    reasons: list[str] = []
    after = 0
    if starts:
        stats = _stats(lines, starts[-1])
        reasons += crawl_failures(stats)
        if stats.get("log_count/CRITICAL"):
            reasons.append(f"log_count/CRITICAL: {stats['log_count/CRITICAL']}")
        after = starts[-1] + 1
    else:
        reasons.append("no stats dump in the log: the crawl did not finish (crashed or killed)")
    late = [
        line
        for line in lines[after:]
        if (m := _LOG_LEVEL.match(line)) and m["level"] in ("ERROR", "CRITICAL")
    ]
    if late and starts:
        reasons.append(f"{len(late)} ERROR/CRITICAL line(s) after the stats dump: {late[0]}")
    elif late:
        reasons.append(f"{len(late)} ERROR/CRITICAL line(s), the first: {late[0]}")
    if any(line.startswith("Traceback (most recent call last)") for line in lines[after:]):
        reasons.append("a traceback in the log" + (" after the stats dump" if starts else ""))
    if "structcrawl: crawl failed" in log_text:
        reasons.append("structcrawl: crawl failed (see the log)")
    return reasons


def _project_root() -> Path:
    from scrapy.utils.conf import closest_scrapy_cfg

    closest = closest_scrapy_cfg()
    return Path(closest).parent if closest else Path.cwd()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", nargs="?", default="default", help="scrapy.cfg deploy target")
    parser.add_argument("--url", help="scrapyd URL (default: $SCRAPYD_URL, else the target's)")
    parser.add_argument("--project", help="scrapyd project name (default: the target's)")
    parser.add_argument("--version", help="egg version (default: scrapyd-deploy's timestamp)")
    parser.add_argument("--build-egg", metavar="PATH", help="only build the egg into PATH")
    parser.add_argument("--root", type=Path, help="project directory (default: scrapy.cfg's)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m structcrawl.ops.deploy", description="deploy structcrawl to scrapyd"
    )
    add_arguments(parser)
    return run(parser.parse_args(argv))


def run(args: argparse.Namespace) -> int:
    """Build the egg and upload it to scrapyd (``structcrawl deploy``)."""
    root = args.root or _project_root()
    if not (root / "scrapy.cfg").is_file():
        print(f"structcrawl deploy: no scrapy.cfg in {root}", file=sys.stderr)
        return 2
    if args.build_egg:
        ok, output = build_egg(root, Path(args.build_egg))
        print(f"egg: {Path(args.build_egg).resolve()}" if ok else output.strip()[-2000:])
        return 0 if ok else 1
    result = deploy(root, args.target, url=args.url, project=args.project, version=args.version)
    if not result.ok:
        print(f"structcrawl deploy: FAILED: {result.answer.error}", file=sys.stderr)
        return 1
    data = result.answer.data
    print(
        f"deployed project {data.get('project')} version {data.get('version')}: "
        f"{data.get('spiders')} spider(s) on {data.get('node_name')}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
