"""A crawl run as a child process (``structcrawl crawl``, ``make demo``): signals, progress,
and no crawl outliving the process that started it. No Scrapy imports.

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
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import IO, Any

__all__ = ["ChildRun", "ProgressTail", "run_child"]

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
    env: Mapping[str, str] | None = None,
    tail: ProgressTail | None = None,
    on_signal: Callable[[str, int], None] | None = None,
    poll: float = 0.5,
    timeout: float | None = None,
) -> ChildRun:
    """Run ``cmd`` to its end, forwarding SIGINT (as SIGINT), SIGTERM and SIGHUP (as SIGTERM)
    to it, and showing its progress through ``tail``. ``on_signal(name, count)`` is told of
    each forwarded signal (the count of signals so far). Past ``timeout`` seconds the child
    is ended and ``subprocess.TimeoutExpired`` raised."""
    run = ChildRun(code=0)
    child = subprocess.Popen(
        cmd,
        env=dict(env) if env is not None else None,
        start_new_session=True,
        preexec_fn=_die_with_parent,  # noqa: PLW1509 (no threads fork here)
    )
    deadline = None if timeout is None else time.monotonic() + timeout

    def forward(signum: int, frame: FrameType | None) -> None:
        name = signal.Signals(signum).name
        run.signals.append(name)
        if child.poll() is None:
            child.send_signal(signal.SIGINT if signum == signal.SIGINT else signal.SIGTERM)
        if on_signal is not None:
            on_signal(name, len(run.signals))

    previous: dict[signal.Signals, Any] = {}
    try:
        if threading.current_thread() is threading.main_thread():
            for sig in _FORWARDED:
                previous[sig] = signal.signal(sig, forward)
        while True:
            try:
                run.code = child.wait(timeout=poll)
                break
            except subprocess.TimeoutExpired:
                if tail is not None:
                    tail.poll()
                if deadline is not None and time.monotonic() > deadline:
                    raise subprocess.TimeoutExpired(cmd, timeout or 0) from None
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
