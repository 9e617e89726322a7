"""The schedule file: which spiders scrapyd runs when, with which arguments and settings.

A TOML file (``schedules/demo.toml`` is the example)::

    project = "structcrawl"              # the scrapyd project (default "structcrawl")
    url = "http://127.0.0.1:6800/"       # scrapyd; $SCRAPYD_URL and --url win over it
    timezone = "UTC"                     # IANA zone the cron expressions are read in
    grace_minutes = 5                    # a slot missed by up to this much is still submitted
    # state = "state/demo.json"          # submission memory (relative to this file)

    [[job]]
    name = "demo-site"                   # unique; names the state entry and the scrapyd job id
    spider = "site"
    cron = "30 2 * * *"                  # 5 fields (see structcrawl.ops._cron)
    # version = "1764432000"             # egg version (default: scrapyd's latest)
    # priority = 0.0                     # scrapyd queue priority
    # enabled = true
    args = { start_urls = "${DEMO_SITE_URL:-http://127.0.0.1:8765/}", depth = 3 }
    [job.settings]
    FEEDS = { "/srv/feeds/%(name)s/%(time)s.jsonl" = { format = "entities" } }

Strings in ``url``, ``args`` and ``settings`` (table keys included) expand ``${NAME}`` and
``${NAME:-default}`` from the environment of ``structcrawl schedule``; an unset name without
a default is an error. Argument values that are arrays are joined with commas (the ``site``
spider's lists); setting values that are tables become JSON (``FEEDS``), arrays
comma-separated lists, booleans ``True``/``False``. Credentials never belong here: the scrapyd
account comes from ``SCRAPYD_USERNAME``/``SCRAPYD_PASSWORD``.

Loading never raises: :func:`parse_schedule` returns the schedule or the list of problems.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from structcrawl.ops._cron import CronSpec, parse_cron

__all__ = ["Job", "Schedule", "expand_env", "load_schedule", "parse_schedule"]

DEFAULT_URL = "http://127.0.0.1:6800/"
_TOP_KEYS = {"project", "url", "timezone", "grace_minutes", "state", "job"}
_JOB_KEYS = {"name", "spider", "cron", "args", "settings", "version", "priority", "enabled"}
# form fields scrapyd's schedule.json reads itself: a spider argument cannot use them
_RESERVED_ARGS = {"project", "spider", "setting", "jobid", "priority", "_version", "_job"}
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


@dataclass(frozen=True, slots=True)
class Job:
    """One scheduled crawl. ``args`` and ``settings`` are ``(name, value)`` pairs, expanded."""

    name: str
    spider: str
    cron: CronSpec
    args: tuple[tuple[str, str], ...] = ()
    settings: tuple[tuple[str, str], ...] = ()
    version: str | None = None
    priority: float | None = None
    enabled: bool = True

    def form(self, project: str, jobid: str) -> list[tuple[str, str]]:
        """The fields of scrapyd's ``schedule.json`` request for this job.

        >>> job = Job("j", "site", parse_cron("* * * * *")[0], (("depth", "1"),), (("A", "b"),))
        >>> job.form("structcrawl", "j-1")  # doctest: +NORMALIZE_WHITESPACE
        [('project', 'structcrawl'), ('spider', 'site'), ('jobid', 'j-1'),
         ('setting', 'A=b'), ('depth', '1')]
        """
        fields = [("project", project), ("spider", self.spider), ("jobid", jobid)]
        if self.version:
            fields.append(("_version", self.version))
        if self.priority is not None:
            fields.append(("priority", repr(self.priority)))
        fields += [("setting", f"{name}={value}") for name, value in self.settings]
        fields += list(self.args)
        return fields


@dataclass(frozen=True, slots=True)
class Schedule:
    path: str
    project: str
    url: str
    timezone: str
    grace_minutes: int
    state: str | None
    jobs: tuple[Job, ...]

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)


def expand_env(text: str, env: Mapping[str, str]) -> tuple[str, list[str]]:
    """``text`` with ``${NAME}`` / ``${NAME:-default}`` replaced, and the unset names.

    >>> expand_env("${OUT:-/tmp/feeds}/${SITE}.jsonl", {"SITE": "demo"})
    ('/tmp/feeds/demo.jsonl', [])
    >>> expand_env("${NOPE}", {})
    ('${NOPE}', ['NOPE'])
    """
    missing: list[str] = []

    def sub(m: re.Match[str]) -> str:
        value, default = env.get(m.group(1)), m.group(2)
        if value is not None and (value or default is None):
            return value
        if default is not None:  # as in the shell: unset or empty
            return default
        missing.append(m.group(1))
        return m.group(0)

    return _VAR.sub(sub, text), missing


def _text(value: Any, env: Mapping[str, str], where: str, errors: list[str]) -> str:
    text, missing = expand_env(value, env)
    errors.extend(f"{where}: environment variable {name} is not set" for name in missing)
    return text


def _expand(value: Any, env: Mapping[str, str], where: str, errors: list[str]) -> Any:
    if isinstance(value, str):
        return _text(value, env, where, errors)
    if isinstance(value, dict):
        return {
            _text(str(k), env, where, errors): _expand(v, env, where, errors)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_expand(v, env, where, errors) for v in value]
    return value


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float)


def _arg_value(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(_arg_value(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _setting_value(value: Any) -> str:
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False, default=str)
    if isinstance(value, list):
        return ",".join(_setting_value(v) for v in value)
    if isinstance(value, bool):
        return "True" if value else "False"
    return str(value)


def _pairs(
    table: Any, kind: str, where: str, env: Mapping[str, str], errors: list[str]
) -> list[tuple[str, Any]]:
    if table is None:
        return []
    if not isinstance(table, dict):
        errors.append(f"{where}: {kind} must be a table")
        return []
    return [(str(k), _expand(v, env, f"{where} {kind}.{k}", errors)) for k, v in table.items()]


def _parse_job(raw: Any, index: int, env: Mapping[str, str], errors: list[str]) -> Job | None:
    where = f"job {index + 1}"
    if not isinstance(raw, dict):
        errors.append(f"{where}: must be a table ([[job]])")
        return None
    name = raw.get("name")
    if isinstance(name, str) and _NAME.fullmatch(name):
        where = f"job {name!r}"
    else:
        errors.append(f"{where}: name must match {_NAME.pattern} (it names files and job ids)")
    before = len(errors)
    errors.extend(f"{where}: unknown key {k!r}" for k in sorted(set(raw) - _JOB_KEYS))
    spider = raw.get("spider")
    if not isinstance(spider, str) or not spider.strip():
        errors.append(f"{where}: spider is required")
    cron, cron_error = parse_cron(raw.get("cron", ""))
    if cron_error:
        errors.append(f"{where}: cron {raw.get('cron')!r}: {cron_error}")
    args = [(k, _arg_value(v)) for k, v in _pairs(raw.get("args"), "args", where, env, errors)]
    errors.extend(
        f"{where}: argument {k!r} is reserved by scrapyd" for k, _ in args if k in _RESERVED_ARGS
    )
    raw_settings = _pairs(raw.get("settings"), "settings", where, env, errors)
    settings = [(k, _setting_value(v)) for k, v in raw_settings]
    priority = raw.get("priority")
    if priority is not None and (isinstance(priority, bool) or not _is_number(priority)):
        errors.append(f"{where}: priority must be a number")
    version = raw.get("version")
    if version is not None and not isinstance(version, str):
        errors.append(f"{where}: version must be a string")
    enabled = raw.get("enabled", True)
    if not isinstance(enabled, bool):
        errors.append(f"{where}: enabled must be true or false")
    if len(errors) > before or cron is None or not isinstance(name, str):
        return None
    return Job(
        name=name,
        spider=str(spider).strip(),
        cron=cron,
        args=tuple(args),
        settings=tuple(settings),
        version=version,
        priority=float(priority) if priority is not None else None,
        enabled=enabled,
    )


def parse_schedule(
    data: Mapping[str, Any], env: Mapping[str, str], path: str = "<schedule>"
) -> tuple[Schedule | None, list[str]]:
    """``(schedule, [])``, or ``(None, problems)``: a file with any problem submits nothing."""
    errors = [f"unknown key {k!r}" for k in sorted(set(data) - _TOP_KEYS)]
    project = data.get("project", "structcrawl")
    if not isinstance(project, str) or not _NAME.fullmatch(project):
        errors.append(f"project must match {_NAME.pattern}")
    url = _text(str(data.get("url") or DEFAULT_URL), env, "url", errors)
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        errors.append(f"url {url!r} is not an http(s) URL")
    elif parts.username or parts.password:
        errors.append("url must not carry credentials: set SCRAPYD_USERNAME/SCRAPYD_PASSWORD")
    timezone = data.get("timezone", "UTC")
    try:
        ZoneInfo(str(timezone))
    except (ZoneInfoNotFoundError, ValueError):
        errors.append(f"timezone {timezone!r} is not an IANA time zone")
    grace = data.get("grace_minutes", 5)
    if isinstance(grace, bool) or not isinstance(grace, int) or not 0 <= grace <= 1440:
        errors.append("grace_minutes must be a whole number from 0 to 1440")
    state = data.get("state")
    if state is not None and not isinstance(state, str):
        errors.append("state must be a path")
    raw_jobs = data.get("job", [])
    if not isinstance(raw_jobs, list) or not raw_jobs:
        errors.append("no [[job]] tables")
        raw_jobs = []
    jobs = [job for i, raw in enumerate(raw_jobs) if (job := _parse_job(raw, i, env, errors))]
    seen: set[str] = set()
    for job in jobs:
        if job.name in seen:
            errors.append(f"job {job.name!r}: the name is used twice")
        seen.add(job.name)
    if errors:
        return None, errors
    if state:
        state = str(Path(path).parent / state) if path != "<schedule>" else state
    return (
        Schedule(
            path=path,
            project=str(project),
            url=url,
            timezone=str(timezone),
            grace_minutes=int(grace),
            state=state,
            jobs=tuple(jobs),
        ),
        [],
    )


def load_schedule(path: str | Path, env: Mapping[str, str]) -> tuple[Schedule | None, list[str]]:
    """Read and check a schedule file (see the module docstring)."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        return None, [f"cannot read {path}: {exc.strerror or exc}"]
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        return None, [f"{path} is not valid TOML: {exc}"]
    schedule, errors = parse_schedule(data, env, str(path))
    return schedule, [f"{path}: {e}" for e in errors]
