"""Scheduled crawls: submit the jobs of a schedule file to scrapyd when their cron slot is due.

    structcrawl schedule FILE --once [--dry-run] [--state PATH] [--url URL] [--now TIME]
    structcrawl schedule FILE --loop [--state PATH] [--url URL]

``--once`` submits what is due now and exits (run it from cron every minute); ``--loop`` runs
until stopped, sleeping until the next due slot (at most a minute at a time, re-reading the
file each time). A job is due for the latest slot of its cron expression that lies at most
``grace_minutes`` back, unless that slot was already submitted: the state file remembers the
last submitted slot of each job, the read-submit-write runs under a file lock (two runs at
once do not both submit), and the scrapyd job id is derived from the slot
(``<job>-<YYYYmmddTHHMM>Z``), so a slot the server already knows is recorded, not resubmitted.
A failed submission is not recorded: the next run retries it while the slot is in grace.
``--dry-run`` prints, per job, whether it is due and the request it would send (secrets
redacted), and neither submits nor writes state.

Exit codes: 0 (submitted, or nothing due), 1 (a submission failed), 2 (a bad schedule or state
file, or bad arguments). See docs/deployment.md, and :mod:`structcrawl.ops._schedfile` for the
file format.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol, TextIO
from zoneinfo import ZoneInfo

from structcrawl.core.logsafety import redact_value
from structcrawl.ops._cron import CronSpec, parse_cron
from structcrawl.ops._schedfile import Job, Schedule, expand_env, load_schedule, parse_schedule
from structcrawl.ops._scrapyd import Answer, ScrapydClient, account_problem

__all__ = [
    "CronSpec",
    "Job",
    "Schedule",
    "Submitter",
    "add_arguments",
    "default_state_path",
    "due_slot",
    "expand_env",
    "job_id",
    "load_schedule",
    "load_state",
    "main",
    "next_due",
    "parse_cron",
    "parse_schedule",
    "run",
    "run_loop",
    "run_once",
    "save_state",
]

# how far around "now" wall-clock candidates are looked for: more than any DST shift
_DST_SLACK = timedelta(hours=3)
State = dict[str, dict[str, str]]


class Submitter(Protocol):
    """What :func:`run_once` needs from scrapyd
    (:class:`structcrawl.ops._scrapyd.ScrapydClient`)."""

    def schedule(self, form: list[tuple[str, str]]) -> Answer: ...

    def job_ids(self, project: str) -> tuple[set[str] | None, str | None]: ...


def _instant(wall: datetime, zone: ZoneInfo) -> datetime | None:
    """The UTC instant of a wall-clock minute; None when a DST change skips it. A repeated
    wall time (clocks turned back) is its first occurrence."""
    utc = wall.replace(tzinfo=zone).astimezone(UTC)
    return utc if utc.astimezone(zone).replace(tzinfo=None) == wall else None


def _minute(now: datetime) -> datetime:
    return now.astimezone(UTC).replace(second=0, microsecond=0)


def due_slot(
    cron: CronSpec,
    now: datetime,
    zone: ZoneInfo,
    grace_minutes: int = 5,
    last: datetime | None = None,
) -> datetime | None:
    """The slot (a UTC instant) that is due at ``now`` (aware), or None.

    The latest instant matching ``cron`` in ``zone`` within ``[now - grace, now]`` (minutes),
    unless it is not after ``last``, the last submitted slot.

    >>> cron = parse_cron("0 * * * *")[0]
    >>> due_slot(cron, datetime(2026, 1, 1, 10, 3, 30, tzinfo=UTC), ZoneInfo("UTC"))
    datetime.datetime(2026, 1, 1, 10, 0, tzinfo=datetime.timezone.utc)
    >>> due_slot(cron, datetime(2026, 1, 1, 10, 6, tzinfo=UTC), ZoneInfo("UTC")) is None
    True
    """
    now = _minute(now)
    earliest = now - timedelta(minutes=grace_minutes)
    wall_now = now.astimezone(zone).replace(tzinfo=None)
    start = wall_now - timedelta(minutes=grace_minutes) - _DST_SLACK
    window = cron.between(start, wall_now + _DST_SLACK)
    slots = [i for w in window if (i := _instant(w, zone)) is not None and earliest <= i <= now]
    if not slots:
        return None
    slot = max(slots)
    return None if last is not None and slot <= last else slot


def next_due(cron: CronSpec, now: datetime, zone: ZoneInfo) -> datetime | None:
    """The first slot (a UTC instant) after ``now``; None if the expression never matches.

    >>> next_due(parse_cron("30 2 * * *")[0], datetime(2026, 3, 29, 0, 0, tzinfo=UTC),
    ...          ZoneInfo("Europe/Berlin"))  # 02:30 does not exist that night: the next day
    datetime.datetime(2026, 3, 30, 0, 30, tzinfo=datetime.timezone.utc)
    """
    wall = now.astimezone(zone).replace(tzinfo=None) - _DST_SLACK
    while (candidate := cron.next_after(wall)) is not None:
        instant = _instant(candidate, zone)
        if instant is not None and instant > now:
            return instant
        wall = candidate
    return None


def job_id(name: str, slot: datetime) -> str:
    """The scrapyd job id of a job's slot.

    >>> job_id("demo-site", datetime(2026, 11, 29, 17, 0, tzinfo=UTC))
    'demo-site-20261129T1700Z'
    """
    return f"{name}-{slot.astimezone(UTC):%Y%m%dT%H%M}Z"


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _parse_iso(text: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        return None
    return moment if moment.tzinfo else None


def default_state_path(schedule: Schedule, env: Mapping[str, str]) -> Path:
    """The file's ``state``, else ``$XDG_STATE_HOME/structcrawl/<file stem>.json``."""
    if schedule.state:
        return Path(schedule.state)
    home = Path(env.get("HOME") or "~").expanduser()
    base = env.get("XDG_STATE_HOME") or str(home / ".local" / "state")
    return Path(base) / "structcrawl" / f"{Path(schedule.path).stem}.json"


def load_state(path: Path) -> tuple[State | None, str | None]:
    """``(state, None)``: job name -> {slot, jobid, submitted_at}; a missing file is empty."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}, None
    except (OSError, ValueError) as exc:
        return None, f"state file {path} cannot be read ({exc}); fix or remove it"
    jobs = data.get("jobs") if isinstance(data, dict) else None
    if not isinstance(jobs, dict):
        return None, f"state file {path} has no 'jobs' table; fix or remove it"
    return {str(k): dict(v) for k, v in jobs.items() if isinstance(v, dict)}, None


def save_state(path: Path, state: State) -> None:
    """Write the state atomically (a crash leaves the old or the new file, never half)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"version": 1, "jobs": state}, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, path)


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _shown_form(form: list[tuple[str, str]]) -> list[list[str]]:
    shown = []
    for key, value in form:
        if key == "setting":
            name, _, setting = value.partition("=")
            value = f"{name}={redact_value({name: setting})[name]}"
        shown.append([key, value])
    return shown


def _dry_run(schedule: Schedule, state: State, now: datetime, url: str, out: TextIO) -> int:
    for job in schedule.jobs:
        last = _parse_iso(state.get(job.name, {}).get("slot", ""))
        slot = due_slot(job.cron, now, schedule.zone, schedule.grace_minutes, last)
        upcoming = next_due(job.cron, now, schedule.zone)
        line: dict[str, Any] = {
            "job": job.name,
            "enabled": job.enabled,
            "due": bool(slot and job.enabled),
            "slot": _iso(slot) if slot else None,
            "next": _iso(upcoming) if upcoming else None,
            "last": _iso(last) if last else None,
        }
        if slot and job.enabled:
            jobid = job_id(job.name, slot)
            line |= {"jobid": jobid, "url": url + "schedule.json"}
            line["form"] = _shown_form(job.form(schedule.project, jobid))
        out.write(json.dumps(line, ensure_ascii=False) + "\n")
    return 0


def run_once(
    schedule: Schedule,
    client: Submitter,
    state_path: Path,
    now: datetime,
    *,
    dry_run: bool = False,
    url: str = "",
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Submit every enabled job that is due at ``now``; the exit code (0, 1 or 2)."""
    out, err = out or sys.stdout, err or sys.stderr
    if dry_run:
        state, error = load_state(state_path)
        if state is None:
            err.write(f"structcrawl schedule: {error}\n")
            return 2
        return _dry_run(schedule, state, now, url or schedule.url, out)
    failures = 0
    with _locked(state_path):
        state, error = load_state(state_path)
        if state is None:
            err.write(f"structcrawl schedule: {error}\n")
            return 2
        due: list[tuple[Job, datetime]] = []
        for job in schedule.jobs:
            last = _parse_iso(state.get(job.name, {}).get("slot", ""))
            slot = due_slot(job.cron, now, schedule.zone, schedule.grace_minutes, last)
            if job.enabled and slot is not None:
                due.append((job, slot))
        if not due:
            return 0
        known, error = client.job_ids(schedule.project)
        if known is None:
            err.write(f"structcrawl schedule: cannot list scrapyd's jobs: {error}\n")
            return 1
        for job, slot in due:
            jobid = job_id(job.name, slot)
            if jobid in known:
                out.write(f"{job.name}: slot {_iso(slot)} already on scrapyd as {jobid}\n")
            else:
                answer = client.schedule(job.form(schedule.project, jobid))
                if not answer.ok:
                    failures += 1
                    err.write(f"structcrawl schedule: {job.name} ({_iso(slot)}): {answer.error}\n")
                    continue
                jobid = str(answer.data.get("jobid") or jobid)
                out.write(f"{job.name}: submitted slot {_iso(slot)} as job {jobid}\n")
            state[job.name] = {"slot": _iso(slot), "jobid": jobid, "submitted_at": _iso(now)}
            save_state(state_path, state)
    return 1 if failures else 0


def _utcnow() -> datetime:
    return datetime.now(UTC)


def run_loop(
    path: str | Path,
    env: Mapping[str, str],
    make_client: Callable[[Schedule], tuple[Submitter, str]],
    state_path: Callable[[Schedule], Path],
    *,
    clock: Callable[[], datetime] = _utcnow,
    sleep: Callable[[float], None] = time.sleep,
    max_sleep: float = 60.0,
    iterations: int | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Submit due jobs, sleep until the next slot (at most ``max_sleep``), repeat.

    The file is re-read on each wake; a broken edit is reported and the last good schedule
    kept (a file broken from the start exits 2). ``iterations`` bounds the loop (tests)."""
    out, err = out or sys.stdout, err or sys.stderr
    schedule: Schedule | None = None
    done = 0
    while iterations is None or done < iterations:
        done += 1
        loaded, errors = load_schedule(path, env)
        for problem in errors:
            err.write(f"structcrawl schedule: {problem}\n")
        schedule = loaded or schedule
        if schedule is None:
            return 2
        client, url = make_client(schedule)
        run_once(schedule, client, state_path(schedule), clock(), url=url, out=out, err=err)
        out.flush()
        now = clock()
        zone = schedule.zone
        upcoming = [t for j in schedule.jobs if j.enabled and (t := next_due(j.cron, now, zone))]
        delay = (min(upcoming) - now).total_seconds() + 0.5 if upcoming else max_sleep
        if iterations is None or done < iterations:
            sleep(min(max(delay, 0.5), max_sleep))
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="the schedule file (TOML), e.g. schedules/demo.toml")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--once", action="store_true", help="submit what is due now and exit")
    mode.add_argument("--loop", action="store_true", help="run until stopped")
    parser.add_argument(
        "--dry-run", action="store_true", help="print what would be submitted; change nothing"
    )
    parser.add_argument("--state", help="state file (default: the file's, else XDG state dir)")
    parser.add_argument("--url", help="scrapyd URL (default: $SCRAPYD_URL, else the file's)")
    parser.add_argument("--now", help="act as if it were this ISO 8601 time (once/dry-run)")


def run(args: argparse.Namespace, env: Mapping[str, str] | None = None) -> int:
    """``structcrawl schedule``: see the module docstring."""
    env = os.environ if env is None else env
    if args.loop and (args.dry_run or args.now):
        print("structcrawl schedule: --loop takes neither --dry-run nor --now", file=sys.stderr)
        return 2
    if not args.loop and not args.once and not args.dry_run:
        print("structcrawl schedule: give --once, --loop or --dry-run", file=sys.stderr)
        return 2
    if problem := account_problem(env):
        print(f"structcrawl schedule: {problem}", file=sys.stderr)
        return 2

    def make_client(schedule: Schedule) -> tuple[ScrapydClient, str]:
        url = args.url or env.get("SCRAPYD_URL") or schedule.url
        client = ScrapydClient.from_env(url, env)
        return client, client.url

    def state_path(schedule: Schedule) -> Path:
        return Path(args.state) if args.state else default_state_path(schedule, env)

    if args.loop:
        try:
            return run_loop(args.file, env, make_client, state_path)
        except KeyboardInterrupt:
            return 0
    schedule, errors = load_schedule(args.file, env)
    if schedule is None:
        for problem in errors:
            print(f"structcrawl schedule: {problem}", file=sys.stderr)
        return 2
    now = _utcnow()
    if args.now:
        try:
            now = datetime.fromisoformat(args.now)
        except ValueError:
            print(f"structcrawl schedule: --now {args.now!r} is not ISO 8601", file=sys.stderr)
            return 2
        now = now if now.tzinfo else now.replace(tzinfo=schedule.zone)
    client, url = make_client(schedule)
    return run_once(schedule, client, state_path(schedule), now, dry_run=args.dry_run, url=url)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="structcrawl schedule", description="scheduled crawls")
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
