"""Scheduled crawls: the cron matcher, due slots across boundaries, the schedule file, and
``structcrawl schedule`` submitting each slot once (with a recording stand-in for scrapyd; the
real scrapyd is in tests/test_deploy_scrapyd.py)."""

from __future__ import annotations

import io
import json
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from structcrawl.commandline import main as cli_main
from structcrawl.ops._scrapyd import Answer, answer_from_text
from structcrawl.ops.schedule import (
    due_slot,
    job_id,
    load_schedule,
    load_state,
    next_due,
    parse_cron,
    parse_schedule,
    run_loop,
    run_once,
)

ROOT = Path(__file__).resolve().parents[1]
UTCZ = ZoneInfo("UTC")
BERLIN = ZoneInfo("Europe/Berlin")


def cron(expr: str):
    spec, error = parse_cron(expr)
    assert error is None, error
    return spec


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


# --- cron expressions ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expr", "field", "values"),
    [
        ("* * * * *", "minutes", tuple(range(60))),
        ("*/15 * * * *", "minutes", (0, 15, 30, 45)),
        ("5,10-12,50-59/5 * * * *", "minutes", (5, 10, 11, 12, 50, 55)),
        ("7/20 * * * *", "minutes", (7, 27, 47)),
        ("0 9-17/4 * * *", "hours", frozenset({9, 13, 17})),
        ("0 0 1,15,31 * *", "days", frozenset({1, 15, 31})),
        ("0 0 * jan,JUL-sep *", "months", frozenset({1, 7, 8, 9})),
        ("0 0 * */3 *", "months", frozenset({1, 4, 7, 10})),
        ("0 0 * * mon-fri", "weekdays", frozenset({1, 2, 3, 4, 5})),
        ("0 0 * * 7", "weekdays", frozenset({0})),
        ("0 0 * * 5-7", "weekdays", frozenset({5, 6, 0})),
        ("0 0 * * */2", "weekdays", frozenset({0, 2, 4, 6})),
        ("@hourly", "minutes", (0,)),
        ("@daily", "hours", frozenset({0})),
    ],
)
def test_fields_parse_lists_ranges_steps_and_names(expr, field, values):
    assert getattr(cron(expr), field) == values


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ("", "5 fields"),
        ("* * * *", "got 4"),
        ("* * * * * *", "got 6"),
        ("60 * * * *", "minute: 60 is out of range 0-59"),
        ("* 24 * * *", "hour: 24 is out of range 0-23"),
        ("* * 0 * *", "day of month: 0 is out of range 1-31"),
        ("* * * 13 *", "month: 13 is out of range 1-12"),
        ("* * * * 8", "day of week: 8 is out of range 0-7"),
        ("*/0 * * * *", "step '0' must be a positive number"),
        ("*/x * * * *", "step 'x' must be a positive number"),
        ("30-10 * * * *", "runs backwards"),
        ("1,,2 * * * *", "empty item"),
        ("* * * foo *", "'foo' is not a number or a name (jan, feb, ...)"),
        ("-1 * * * *", "'' is not a number"),
        ("٣ * * * *", "is not a number"),  # a non-ASCII digit
        ("@reboot", "unknown macro '@reboot'"),
    ],
)
def test_bad_expressions_return_a_reason(expr, message):
    spec, error = parse_cron(expr)
    assert spec is None and message in error


def test_a_non_string_is_a_reason_not_an_exception():
    assert parse_cron(None) == (None, "a cron expression is a string, got NoneType")  # type: ignore[arg-type]


def test_day_of_month_and_weekday_match_either_when_both_are_restricted():
    spec = cron("0 12 13 * fri")  # Vixie cron: the 13th OR a Friday
    assert spec.matches(datetime(2026, 11, 13, 12, 0))  # Friday the 13th
    assert spec.matches(datetime(2026, 11, 20, 12, 0))  # a Friday
    assert spec.matches(datetime(2026, 10, 13, 12, 0))  # a Tuesday, the 13th
    assert not spec.matches(datetime(2026, 11, 19, 12, 0))
    # one field starting with "*" restricts nothing: both must match
    both = cron("0 12 */2 * fri")
    assert both.matches(datetime(2026, 11, 13, 12, 0))  # odd day, Friday
    assert not both.matches(datetime(2026, 11, 20, 12, 0))  # a Friday, even day
    assert not both.matches(datetime(2026, 11, 15, 12, 0))  # odd day, Sunday


@pytest.mark.parametrize(
    ("expr", "after", "expected"),
    [
        ("*/5 * * * *", datetime(2026, 1, 1, 10, 58, 59), datetime(2026, 1, 1, 11, 0)),  # hour
        ("* * * * *", datetime(2026, 1, 1, 23, 59, 30), datetime(2026, 1, 2, 0, 0)),  # day
        ("0 0 * * *", datetime(2026, 1, 31, 0, 0), datetime(2026, 2, 1, 0, 0)),  # month
        ("30 23 31 12 *", datetime(2026, 12, 31, 23, 30), datetime(2027, 12, 31, 23, 30)),
        ("0 0 1 * *", datetime(2026, 12, 15), datetime(2027, 1, 1)),  # year
        ("0 0 31 * *", datetime(2026, 2, 1), datetime(2026, 3, 31)),  # skips short months
        ("0 0 29 2 *", datetime(2026, 1, 1), datetime(2028, 2, 29)),  # leap day
        ("0 0 29 2 *", datetime(2096, 3, 1), datetime(2104, 2, 29)),  # 2100 is no leap year
        ("0 9 * * mon", datetime(2026, 11, 29, 12, 0), datetime(2026, 11, 30, 9, 0)),
        ("15 10 * * *", datetime(2026, 1, 1, 10, 15), datetime(2026, 1, 2, 10, 15)),  # strict
    ],
)
def test_next_after_crosses_minute_hour_day_month_and_year(expr, after, expected):
    assert cron(expr).next_after(after) == expected


def test_an_expression_that_never_matches_has_no_next_time():
    assert cron("0 0 30 2 *").next_after(datetime(2026, 1, 1)) is None
    assert cron("0 0 31 4,6,9,11 *").next_after(datetime(2026, 1, 1)) is None


def test_next_after_agrees_with_minute_by_minute_matching():
    for expr in ("*/7 3-5 * * *", "0 0 1,15 * mon", "45 23 * 2 sun", "1-3 * 28-31 * *"):
        spec = cron(expr)
        t = datetime(2026, 2, 1)
        brute = []
        while len(brute) < 5:
            if spec.matches(t):
                brute.append(t)
            t += timedelta(minutes=1)
        fast = []
        t = datetime(2026, 2, 1) - timedelta(minutes=1)
        for _ in range(5):
            t = spec.next_after(t)
            fast.append(t)
        assert fast == brute, expr


# --- due slots -----------------------------------------------------------------------------


def test_a_job_is_due_in_its_minute_and_within_the_grace_period():
    hourly = cron("0 * * * *")
    assert due_slot(hourly, utc(2026, 1, 1, 10, 0, 0), UTCZ, 5) == utc(2026, 1, 1, 10, 0)
    assert due_slot(hourly, utc(2026, 1, 1, 10, 0, 59), UTCZ, 5) == utc(2026, 1, 1, 10, 0)
    assert due_slot(hourly, utc(2026, 1, 1, 10, 5, 59), UTCZ, 5) == utc(2026, 1, 1, 10, 0)
    assert due_slot(hourly, utc(2026, 1, 1, 10, 6), UTCZ, 5) is None
    assert due_slot(hourly, utc(2026, 1, 1, 9, 59, 59), UTCZ, 5) is None
    assert due_slot(hourly, utc(2026, 1, 1, 10, 1), UTCZ, 0) is None  # no grace: its minute only


def test_due_slots_across_hour_day_month_and_year_boundaries():
    daily = cron("0 0 * * *")
    # cron ran a little late, after midnight of a new month and year
    assert due_slot(daily, utc(2027, 1, 1, 0, 3), UTCZ, 5) == utc(2027, 1, 1, 0, 0)
    # just before midnight nothing is due yet; yesterday's slot is long past the grace period
    assert due_slot(daily, utc(2026, 12, 31, 23, 59), UTCZ, 5) is None
    late = cron("58 23 * * *")  # the grace period reaches back over midnight
    assert due_slot(late, utc(2026, 3, 1, 0, 2), UTCZ, 5) == utc(2026, 2, 28, 23, 58)
    every = cron("*/10 * * * *")  # the latest slot wins, over an hour boundary
    assert due_slot(every, utc(2026, 1, 1, 11, 1), UTCZ, 15) == utc(2026, 1, 1, 11, 0)


def test_a_submitted_slot_is_not_due_again():
    every = cron("*/10 * * * *")
    now = utc(2026, 1, 1, 10, 2)
    slot = due_slot(every, now, UTCZ, 5)
    assert slot == utc(2026, 1, 1, 10, 0)
    assert due_slot(every, now, UTCZ, 5, last=slot) is None
    assert due_slot(every, utc(2026, 1, 1, 10, 5), UTCZ, 5, last=slot) is None
    assert due_slot(every, utc(2026, 1, 1, 10, 10), UTCZ, 5, last=slot) == utc(2026, 1, 1, 10, 10)


def test_cron_reads_the_schedule_time_zone_and_dst_changes():
    job = cron("30 2 * * *")
    # Europe/Berlin in winter: 02:30 CET is 01:30 UTC
    assert due_slot(job, utc(2026, 1, 15, 1, 31), BERLIN, 5) == utc(2026, 1, 15, 1, 30)
    assert due_slot(job, utc(2026, 1, 15, 2, 31), BERLIN, 5) is None
    # 2026-03-29: clocks jump from 02:00 to 03:00, 02:30 does not exist: no slot that day
    assert next_due(job, utc(2026, 3, 28, 12, 0), BERLIN) == utc(2026, 3, 30, 0, 30)
    for minute in range(0, 24 * 60, 7):
        assert due_slot(job, utc(2026, 3, 29) + timedelta(minutes=minute), BERLIN, 5) is None
    # 2026-10-25: 02:00-03:00 happens twice; the job runs once, at the first 02:30
    first = utc(2026, 10, 25, 0, 30)  # 02:30 CEST
    assert next_due(job, utc(2026, 10, 24, 12, 0), BERLIN) == first
    assert due_slot(job, first + timedelta(minutes=1), BERLIN, 5) == first
    second = utc(2026, 10, 25, 1, 30)  # 02:30 CET, the repeated wall time
    assert due_slot(job, second + timedelta(minutes=1), BERLIN, 5, last=first) is None
    assert next_due(job, second, BERLIN) == utc(2026, 10, 26, 1, 30)


def test_next_due_is_strictly_after_now():
    assert next_due(cron("* * * * *"), utc(2026, 1, 1, 10, 0, 30), UTCZ) == utc(2026, 1, 1, 10, 1)
    assert next_due(cron("0 0 30 2 *"), utc(2026, 1, 1), UTCZ) is None


# --- the schedule file ---------------------------------------------------------------------

JOB = {"name": "demo", "spider": "site", "cron": "*/10 * * * *"}


def test_the_shipped_demo_schedule_loads_and_expands_the_environment(tmp_path):
    env = {"DEMO_SITE_URL": "http://127.0.0.1:9999/", "DEMO_OUT": str(tmp_path)}
    schedule, errors = load_schedule(ROOT / "schedules" / "demo.toml", env)
    assert errors == [] and schedule is not None
    (job,) = schedule.jobs
    assert (schedule.project, schedule.timezone, job.spider) == ("structcrawl", "UTC", "site")
    assert dict(job.args) == {"start_urls": "http://127.0.0.1:9999/", "depth": "3"}
    settings = dict(job.settings)
    feeds = json.loads(settings["FEEDS"])
    assert feeds[f"{tmp_path}/%(time)s/entities.jsonl"] == {"format": "entities"}
    assert settings["STRUCTCRAWL_BODY_STORE"] == f"{tmp_path}/bodies"
    # defaults apply when the environment says nothing
    schedule, _ = load_schedule(ROOT / "schedules" / "demo.toml", {})
    assert dict(schedule.jobs[0].args)["start_urls"] == "http://127.0.0.1:8765/"


def test_values_become_scrapyd_form_fields():
    data = {
        "job": [
            {
                **JOB,
                "args": {"start_urls": ["http://a.example/", "http://b.example/"], "depth": 2},
                "settings": {"LOG_LEVEL": "INFO", "ROBOTSTXT_OBEY": False, "X": {"a": 1}},
                "version": "r7",
                "priority": 1,
            }
        ]
    }
    schedule, errors = parse_schedule(data, {})
    assert errors == []
    form = schedule.jobs[0].form("structcrawl", "demo-1")
    assert form == [
        ("project", "structcrawl"),
        ("spider", "site"),
        ("jobid", "demo-1"),
        ("_version", "r7"),
        ("priority", "1.0"),
        ("setting", "LOG_LEVEL=INFO"),
        ("setting", "ROBOTSTXT_OBEY=False"),
        ("setting", 'X={"a": 1}'),
        ("start_urls", "http://a.example/,http://b.example/"),
        ("depth", "2"),
    ]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({}, "no [[job]] tables"),
        ({"jobs": [JOB]}, "unknown key 'jobs'"),
        ({"job": [{**JOB, "setings": {}}]}, "job 'demo': unknown key 'setings'"),
        ({"job": [{**JOB, "cron": "* * *"}]}, "job 'demo': cron '* * *': a cron expression has 5"),
        ({"job": [{"name": "demo", "cron": "* * * * *"}]}, "job 'demo': spider is required"),
        ({"job": [{**JOB, "name": "../x"}]}, "job 1: name must match"),
        ({"job": [JOB, JOB]}, "job 'demo': the name is used twice"),
        ({"job": [{**JOB, "args": {"jobid": "x"}}]}, "argument 'jobid' is reserved by scrapyd"),
        ({"job": [{**JOB, "args": {"a": "${NOPE}"}}]}, "environment variable NOPE is not set"),
        ({"job": [{**JOB, "args": "depth=1"}]}, "args must be a table"),
        ({"job": [{**JOB, "priority": "high"}]}, "priority must be a number"),
        ({"job": [{**JOB, "enabled": "yes"}]}, "enabled must be true or false"),
        ({"job": [JOB], "timezone": "Mars/Base"}, "timezone 'Mars/Base' is not an IANA time zone"),
        ({"job": [JOB], "grace_minutes": -1}, "grace_minutes must be a whole number"),
        ({"job": [JOB], "url": "ftp://x.example/"}, "is not an http(s) URL"),
        ({"job": [JOB], "url": "http://bob:pw@x.example/"}, "url must not carry credentials"),
    ],
)
def test_a_bad_schedule_returns_every_problem_and_no_jobs(data, message):
    schedule, errors = parse_schedule(data, {})
    assert schedule is None
    assert any(message in e for e in errors), errors


def test_an_unreadable_file_is_a_problem_not_an_exception(tmp_path):
    assert load_schedule(tmp_path / "missing.toml", {})[1][0].startswith("cannot read")
    bad = tmp_path / "bad.toml"
    bad.write_text("[[job]\n")
    assert "is not valid TOML" in load_schedule(bad, {})[1][0]


def test_the_state_path_is_relative_to_the_schedule_file(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(
        'state = "state/s.json"\n[[job]]\nname = "a"\nspider = "site"\ncron = "@daily"\n'
    )
    schedule, _ = load_schedule(path, {})
    assert schedule.state == str(tmp_path / "state" / "s.json")


# --- submitting ----------------------------------------------------------------------------


class Recorder:
    """Stands in for scrapyd: records schedule.json forms; answers like scrapyd."""

    def __init__(self, fail: bool = False, known: set[str] | None = None, delay: float = 0.0):
        self.forms: list[dict[str, list[str]]] = []
        self.fail, self.known, self.delay = fail, set(known or ()), delay
        self.lock = threading.Lock()

    def schedule(self, form):
        time.sleep(self.delay)
        fields: dict[str, list[str]] = {}
        for key, value in form:
            fields.setdefault(key, []).append(value)
        with self.lock:
            self.forms.append(fields)
        if self.fail:
            return answer_from_text('{"status": "error", "message": "spider \'site\' not found"}')
        self.known.add(fields["jobid"][0])
        return Answer(True, {"status": "ok", "jobid": fields["jobid"][0]})

    def job_ids(self, project):
        return set(self.known), None


def two_jobs():
    schedule, errors = parse_schedule(
        {
            "job": [
                {**JOB, "name": "often", "cron": "*/10 * * * *", "args": {"depth": 1}},
                {**JOB, "name": "daily", "cron": "0 3 * * *"},
                {**JOB, "name": "off", "cron": "* * * * *", "enabled": False},
            ]
        },
        {},
        "<schedule>",
    )
    assert errors == []
    return schedule


def test_due_jobs_are_submitted_once_per_slot(tmp_path):
    schedule, client, state = two_jobs(), Recorder(), tmp_path / "state.json"
    out = io.StringIO()
    assert run_once(schedule, client, state, utc(2026, 1, 1, 3, 0, 20), out=out) == 0
    assert sorted(f["jobid"][0] for f in client.forms) == [
        "daily-20260101T0300Z",
        "often-20260101T0300Z",
    ]
    assert (
        "often: submitted slot 2026-01-01T03:00:00Z as job often-20260101T0300Z" in out.getvalue()
    )
    often = next(f for f in client.forms if f["jobid"][0].startswith("often"))
    assert often["project"] == ["structcrawl"] and often["spider"] == ["site"]
    assert often["depth"] == ["1"]
    saved, _ = load_state(state)
    assert saved["daily"]["slot"] == "2026-01-01T03:00:00Z"
    assert saved["daily"]["jobid"] == "daily-20260101T0300Z"
    # the same minute again, and later in the grace period: nothing new
    for seconds in (40, 120, 299):
        now = utc(2026, 1, 1, 3, 0) + timedelta(seconds=seconds)
        assert run_once(schedule, client, state, now, out=io.StringIO()) == 0
    assert len(client.forms) == 2
    # the next slot of the frequent job
    assert run_once(schedule, client, state, utc(2026, 1, 1, 3, 10, 1), out=io.StringIO()) == 0
    assert [f["jobid"][0] for f in client.forms][-1] == "often-20260101T0310Z"
    assert len(client.forms) == 3


def test_nothing_due_submits_nothing_and_prints_nothing(tmp_path):
    client, out = Recorder(), io.StringIO()
    assert run_once(two_jobs(), client, tmp_path / "s.json", utc(2026, 1, 1, 3, 7), out=out) == 0
    assert client.forms == [] and out.getvalue() == ""
    assert not (tmp_path / "s.json").exists()


def test_a_failed_submission_is_reported_and_retried_within_grace(tmp_path):
    schedule, state = two_jobs(), tmp_path / "s.json"
    failing, err = Recorder(fail=True), io.StringIO()
    now = utc(2026, 1, 1, 3, 10)
    assert run_once(schedule, failing, state, now, out=io.StringIO(), err=err) == 1
    assert "often (2026-01-01T03:10:00Z): scrapyd: spider 'site' not found" in err.getvalue()
    assert load_state(state)[0] == {}
    working = Recorder()
    assert run_once(schedule, working, state, now + timedelta(minutes=2), out=io.StringIO()) == 0
    assert [f["jobid"][0] for f in working.forms] == ["often-20260101T0310Z"]


def test_a_slot_the_server_already_has_is_recorded_not_resubmitted(tmp_path):
    # e.g. the state file was lost, or the last run died after scrapyd accepted the job
    client, out = Recorder(known={"often-20260101T0310Z"}), io.StringIO()
    state = tmp_path / "s.json"
    assert run_once(two_jobs(), client, state, utc(2026, 1, 1, 3, 11), out=out) == 0
    assert client.forms == []
    assert "already on scrapyd as often-20260101T0310Z" in out.getvalue()
    assert load_state(state)[0]["often"]["jobid"] == "often-20260101T0310Z"


def test_concurrent_runs_submit_a_slot_once(tmp_path):
    schedule, state = two_jobs(), tmp_path / "s.json"
    client = Recorder(delay=0.2)
    codes: list[int] = []
    now = utc(2026, 1, 1, 3, 20)

    def once():
        codes.append(run_once(schedule, client, state, now, out=io.StringIO()))

    threads = [threading.Thread(target=once) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert codes == [0, 0, 0, 0]
    assert [f["jobid"][0] for f in client.forms] == ["often-20260101T0320Z"]


def test_a_broken_state_file_stops_the_run(tmp_path):
    state = tmp_path / "s.json"
    state.write_text("{not json")
    client, err = Recorder(), io.StringIO()
    assert run_once(two_jobs(), client, state, utc(2026, 1, 1, 3, 0), err=err) == 2
    assert "fix or remove it" in err.getvalue() and client.forms == []


def test_dry_run_prints_the_requests_and_changes_nothing(tmp_path):
    schedule, errors = parse_schedule(
        {"job": [{**JOB, "settings": {"AWS_SECRET_ACCESS_KEY": "${KEY}", "LOG_LEVEL": "INFO"}}]},
        {"KEY": "s3cr3t"},
    )
    client, out, state = Recorder(), io.StringIO(), tmp_path / "s.json"
    assert run_once(schedule, client, state, utc(2026, 1, 1, 3, 0), dry_run=True, out=out) == 0
    (line,) = [json.loads(x) for x in out.getvalue().splitlines()]
    assert line["due"] is True and line["jobid"] == "demo-20260101T0300Z"
    assert line["next"] == "2026-01-01T03:10:00Z"
    assert ["setting", "AWS_SECRET_ACCESS_KEY=[REDACTED]"] in line["form"]
    assert ["setting", "LOG_LEVEL=INFO"] in line["form"]
    assert "s3cr3t" not in out.getvalue()
    assert client.forms == [] and not state.exists()


def test_loop_sleeps_until_the_next_slot_and_submits_each_once(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('[[job]]\nname = "q"\nspider = "site"\ncron = "*/15 * * * *"\n')
    clock = [utc(2026, 1, 1, 10, 0, 10)]
    sleeps: list[float] = []
    client = Recorder()

    def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        clock[0] += timedelta(seconds=seconds)

    code = run_loop(
        path,
        {},
        lambda schedule: (client, "http://scrapyd.invalid/"),
        lambda schedule: tmp_path / "state.json",
        clock=lambda: clock[0],
        sleep=sleep,
        max_sleep=3600,
        iterations=4,
        out=io.StringIO(),
    )
    assert code == 0
    assert [f["jobid"][0] for f in client.forms] == [
        "q-20260101T1000Z",
        "q-20260101T1015Z",
        "q-20260101T1030Z",
        "q-20260101T1045Z",
    ]
    assert sleeps[0] == pytest.approx(14 * 60 + 50.5)  # until 10:15:00.5
    assert sleeps[1:] == [pytest.approx(900)] * 2


def test_loop_caps_its_sleep_and_exits_on_a_broken_file(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('[[job]]\nname = "y"\nspider = "site"\ncron = "0 0 1 1 *"\n')
    sleeps: list[float] = []
    run_loop(
        path,
        {},
        lambda s: (Recorder(), ""),
        lambda s: tmp_path / "state.json",
        clock=lambda: utc(2026, 6, 1),
        sleep=sleeps.append,
        iterations=2,
        out=io.StringIO(),
    )
    assert sleeps == [60.0]
    path.write_text("cron = ")
    err = io.StringIO()
    code = run_loop(
        path,
        {},
        lambda s: (Recorder(), ""),
        lambda s: tmp_path / "x.json",
        sleep=sleeps.append,
        iterations=1,
        err=err,
    )
    assert code == 2 and "is not valid TOML" in err.getvalue()


def test_job_ids_name_the_job_and_its_utc_slot():
    slot = datetime(2026, 1, 15, 2, 30, tzinfo=BERLIN)
    assert job_id("nightly", slot) == "nightly-20260115T0130Z"


# --- the command ---------------------------------------------------------------------------


def test_cli_dry_run_with_a_given_time(tmp_path, capsys):
    code = cli_main(
        [
            "schedule",
            str(ROOT / "schedules" / "demo.toml"),
            "--dry-run",
            "--now",
            "2026-11-29T18:17:00+00:00",
            "--state",
            str(tmp_path / "state.json"),
            "--url",
            "http://127.0.0.1:1/",
        ]
    )
    assert code == 0
    line = json.loads(capsys.readouterr().out)
    assert line["slot"] == "2026-11-29T18:15:00Z" and line["jobid"] == "demo-site-20261129T1815Z"
    assert line["url"] == "http://127.0.0.1:1/schedule.json"
    assert not (tmp_path / "state.json").exists()


def test_cli_reports_bad_files_and_arguments(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text('[[job]]\nname = "x"\nspider = "site"\ncron = "99 * * * *"\n')
    assert cli_main(["schedule", str(bad), "--once"]) == 2
    assert "minute: 99 is out of range 0-59" in capsys.readouterr().err
    assert cli_main(["schedule", str(bad)]) == 2
    assert "give --once, --loop or --dry-run" in capsys.readouterr().err
    demo = str(ROOT / "schedules" / "demo.toml")
    assert cli_main(["schedule", demo, "--once", "--now", "tomorrow"]) == 2
    assert cli_main(["schedule", demo, "--loop", "--dry-run"]) == 2


def test_cli_once_against_an_unreachable_scrapyd_fails(tmp_path, capsys):
    from tests.servers import free_port

    code = cli_main(
        [
            "schedule",
            str(ROOT / "schedules" / "demo.toml"),
            "--once",
            "--now",
            "2026-11-29T18:15:00Z",
            "--state",
            str(tmp_path / "state.json"),
            "--url",
            f"http://127.0.0.1:{free_port()}/",
        ]
    )
    assert code == 1
    assert "cannot list scrapyd's jobs" in capsys.readouterr().err
    assert load_state(tmp_path / "state.json")[0] == {}
