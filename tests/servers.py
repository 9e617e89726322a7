"""Real servers for tests, on 127.0.0.1, started as child processes and stopped by PID.

Under ``CI=true`` a server that cannot be started is a test failure; elsewhere the tests that
need it skip with the reason.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

__all__ = ["free_port", "moto_s3", "real_pages_corpus", "require"]


def require(condition: bool, reason: str) -> None:
    """Skip (or fail under CI=true) when a service the test needs is missing."""
    if condition:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"required service missing in CI: {reason}", pytrace=False)
    pytest.skip(reason)


def real_pages_corpus() -> Path:
    """The shared corpus of real pages (``bench.realpages.corpus_dir``): missing, the test
    skips, or fails under CI=true as a missing service does."""
    from bench.realpages import corpus_dir

    try:
        return corpus_dir()
    except FileNotFoundError as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(str(exc), pytrace=False)
        pytest.skip(str(exc))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_port(port: int, proc: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {timeout}s")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()


def moto_client(endpoint: str) -> Any:
    """A boto3 S3 client of the :func:`moto_s3` endpoint (moto's test credentials)."""
    import boto3

    return boto3.client(
        "s3", endpoint_url=endpoint, region_name="us-east-1",
        aws_access_key_id="testing", aws_secret_access_key="testing",
    )  # fmt: skip


@contextmanager
def moto_s3(log_dir: Path) -> Iterator[str]:
    """A real S3-compatible endpoint (moto's standalone server); yields its URL."""
    exe = shutil.which("moto_server") or str(Path(sys.executable).with_name("moto_server"))
    require(Path(exe).exists(), "moto_server is not installed (pip install 'moto[server]')")
    port = free_port()
    log = (log_dir / "moto.log").open("wb")
    proc = subprocess.Popen([exe, "-H", "127.0.0.1", "-p", str(port)], stdout=log, stderr=log)
    try:
        _wait_port(port, proc, 30)
        yield f"http://127.0.0.1:{port}"
    finally:
        _stop(proc)
        log.close()
