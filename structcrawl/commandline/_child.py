"""Running ``scrapy crawl`` as a child of ``structcrawl crawl``: signals and progress.

* The child runs in its own session, so a Ctrl-C at the terminal reaches only this process,
  which forwards it: the first SIGINT asks Scrapy for a graceful shutdown (the requests in
  flight finish, the feeds, the report and the page ledger are written, the job state is kept
  for ``--resume``), a second one forces it, as in Scrapy. SIGTERM and SIGHUP are forwarded as
  SIGTERM the same way; on Linux the child also gets SIGTERM when this process dies without a
  word (``PR_SET_PDEATHSIG``), so no crawl is left running behind a killed command.
* While the child runs, the progress lines it logs (``structcrawl.crawl.progress``) are read
  from its log file and shown on stderr: rewritten in place on a terminal, one line each
  otherwise.
"""

from __future__ import annotations

import ctypes
import signal
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import IO, Any

__all__ = ["ChildRun", "ProgressTail", "run_child", "stderr_notice"]

_PR_SET_PDEATHSIG = 1
_FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_PROGRESS_MARK = "[structcrawl.crawl.progress] INFO: "


def _die_with_parent() -> None:  # pragma: no cover (runs in the child, between fork and exec)
    """Ask Linux to send the child SIGTERM when its parent dies (any other system: nothing)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass


@dataclass
class ChildRun:
    """How the child ended: its exit code and the signals this process forwarded to it."""

    code: int
    signals: list[str] = field(default_factory=list)

    @property
    def interrupted(self) -> bool:
        return bool(self.signals)


class ProgressTail:
    """The progress lines of a growing log file, shown on ``stream`` as they come."""

    def __init__(self, log: Path, stream: IO[str]):
        self.log = log
        self.stream = stream
        self.live = bool(getattr(stream, "isatty", lambda: False)())
        self.offset = log.stat().st_size if log.exists() else 0  # a resumed run appends
        self.partial = ""
        self.shown = False

    def poll(self) -> None:
        try:
            with self.log.open("r", encoding="utf-8", errors="replace") as fh:
                fh.seek(self.offset)
                chunk = fh.read()
                self.offset = fh.tell()
        except OSError:  # not there yet
            return
        lines = (self.partial + chunk).split("\n")
        self.partial = lines.pop()
        for line in lines:
            _, mark, text = line.partition(_PROGRESS_MARK)
            if mark:
                self.show(text.strip())

    def show(self, text: str) -> None:
        if self.live:
            self.stream.write(f"\r\x1b[K{text}")
        else:
            self.stream.write(text + "\n")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        self.poll()
        if self.live and self.shown:
            self.stream.write("\n")
            self.stream.flush()


def run_child(
    cmd: list[str],
    env: Mapping[str, str],
    tail: ProgressTail | None = None,
    on_signal: Callable[[str, int], None] | None = None,
    poll: float = 0.5,
) -> ChildRun:
    """Run ``cmd`` to its end, forwarding SIGINT (as SIGINT), SIGTERM and SIGHUP (as SIGTERM)
    to it, and showing its progress through ``tail``. ``on_signal(name, count)`` is told of
    each forwarded signal (the count of signals so far)."""
    run = ChildRun(code=0)
    child = subprocess.Popen(
        cmd, env=dict(env), start_new_session=True, preexec_fn=_die_with_parent
    )

    def forward(signum: int, frame: FrameType | None) -> None:
        name = signal.Signals(signum).name
        run.signals.append(name)
        if child.poll() is None:
            child.send_signal(signal.SIGINT if signum == signal.SIGINT else signal.SIGTERM)
        if on_signal is not None:
            on_signal(name, len(run.signals))

    previous: dict[signal.Signals, Any] = {}
    try:
        for sig in _FORWARDED:
            previous[sig] = signal.signal(sig, forward)
        while True:
            try:
                run.code = child.wait(timeout=poll)
                break
            except subprocess.TimeoutExpired:
                if tail is not None:
                    tail.poll()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if child.poll() is None:  # this process is going away: take the crawl with it
            child.terminate()
            try:
                child.wait(timeout=30)
            except subprocess.TimeoutExpired:
                child.kill()
        if tail is not None:
            tail.close()
    return run


def stderr_notice(text: str) -> None:
    """One line on stderr, on a line of its own even after a live progress line."""
    prefix = "\n" if getattr(sys.stderr, "isatty", lambda: False)() else ""
    sys.stderr.write(f"{prefix}{text}\n")
    sys.stderr.flush()
