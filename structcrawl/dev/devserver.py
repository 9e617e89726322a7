"""A small static file server for the demo site and tests, on 127.0.0.1 only.

    python -m structcrawl.dev.devserver --root fixtures/site [--port 0] [--pidfile F] [--portfile F]

``--port 0`` picks a free port; the chosen port is printed and written to ``--portfile``.
Stop it by PID (SIGTERM). Content types come from file extensions.
"""

from __future__ import annotations

import argparse
import functools
import os
import signal
import subprocess
import sys
import tempfile
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

__all__ = ["BackgroundServer", "make_server", "main"]


class _Handler(SimpleHTTPRequestHandler):
    extensions_map = {
        **SimpleHTTPRequestHandler.extensions_map,
        ".json": "application/json",
        ".jsonld": "application/ld+json",
        ".html": "text/html; charset=utf-8",
        ".xml": "application/xml",
        ".pdf": "application/pdf",
        ".svg": "image/svg+xml",
        ".js": "application/javascript",
    }

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass


def make_server(root: str | os.PathLike[str], port: int = 0) -> ThreadingHTTPServer:
    handler = functools.partial(_Handler, directory=str(Path(root).resolve()))
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.daemon_threads = True
    return server


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


class BackgroundServer:
    """The server in a child process, stopped by PID: ``with BackgroundServer(root) as srv``."""

    def __init__(self, root: str | os.PathLike[str], port: int = 0, timeout: float = 20.0):
        self.root, self.port, self.timeout = str(root), port, timeout
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> BackgroundServer:
        with tempfile.TemporaryDirectory() as tmp:
            portfile = Path(tmp) / "port"
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "structcrawl.dev.devserver",
                    "--root",
                    self.root,
                    "--port",
                    str(self.port),
                    "--portfile",
                    str(portfile),
                ],
                stdout=subprocess.DEVNULL,
            )
            deadline = time.monotonic() + self.timeout
            while not (portfile.exists() and portfile.read_text().strip()):
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"devserver for {self.root} did not start")
                time.sleep(0.05)
            self.port = int(portfile.read_text())
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.proc = None

    def __enter__(self) -> BackgroundServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--pidfile")
    parser.add_argument("--portfile")
    args = parser.parse_args(argv)
    server = make_server(args.root, args.port)
    port = server.server_address[1]
    if args.pidfile:
        Path(args.pidfile).write_text(str(os.getpid()))
    if args.portfile:
        Path(args.portfile).write_text(str(port))
    signal.signal(signal.SIGTERM, _interrupt)
    print(f"serving {args.root} on http://127.0.0.1:{port}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
