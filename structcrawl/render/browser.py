"""Finding Chromium and the options it is launched with.

:func:`locate_chromium` looks, in this order, at the ``STRUCTCRAWL_BROWSER_EXECUTABLE``
setting, the ``STRUCTCRAWL_CHROMIUM`` environment variable, Playwright's own downloaded
browsers (``PLAYWRIGHT_BROWSERS_PATH`` or ``~/.cache/ms-playwright``) and the system
Chromium (Debian's ``chromium`` package: ``/usr/bin/chromium``). A path given by the setting
or the variable is used as it is, even when nothing is there: asking for a browser that does
not exist must fail loudly, not quietly pick another one.

:func:`launch_options` builds Playwright's ``launch()`` keyword arguments with flags for a
headless server: ``--no-sandbox`` when running as root, no GPU, and no background network
traffic (component updates, sync, QUIC), which on a closed network Chromium would otherwise
retry endlessly.

``python -m structcrawl.render`` prints the browser found and exits 0, or prints
what was tried and exits 1 (``make demo`` and ``make test`` use it to decide whether to
install Debian's ``chromium``).

Pure module: no Scrapy imports.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "HEADLESS_FLAGS",
    "SYSTEM_CANDIDATES",
    "BrowserLocation",
    "ResourceBlocker",
    "launch_options",
    "locate_chromium",
    "main",
    "playwright_chromium_candidates",
    "playwright_settings",
]

#: Flags for a headless server without network access beyond the crawled sites.
HEADLESS_FLAGS = (
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--disable-dev-shm-usage",
    "--disable-default-apps",
    "--disable-extensions",
    "--mute-audio",
    # WebRTC's UDP would go around the egress proxy (structcrawl.render.egress)
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
)
#: System Chromium executables, in the order they are tried.
SYSTEM_CANDIDATES = (
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/lib/chromium/chromium",
    "/snap/bin/chromium",
)
_REVISION = re.compile(r"-(\d+)$")


@dataclass(frozen=True, slots=True)
class BrowserLocation:
    """Where the browser is (``path`` ``None``: nowhere) and which rule found it
    (``setting``, ``env``, ``playwright``, ``system``, ``none``)."""

    path: str | None
    source: str
    tried: tuple[str, ...] = ()

    @property
    def usable(self) -> bool:
        return self.path is not None and _is_executable(self.path)

    def problem(self) -> str | None:
        """Why this location cannot start a browser (``None`` when it can)."""
        if self.path is None:
            return (
                "no Chromium found (tried: " + ", ".join(self.tried) + "); install Debian's "
                "'chromium' package (apt-get install chromium) or point STRUCTCRAWL_CHROMIUM "
                "at a Chromium executable"
            )
        if not _is_executable(self.path):
            return f"no executable Chromium at {self.path} (from {self.source})"
        return None


def _is_executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def playwright_chromium_candidates(
    env: Mapping[str, str], home: str | os.PathLike[str] | None = None
) -> list[str]:
    """Chromium executables Playwright may have downloaded, newest revision first."""
    roots: list[Path] = []
    custom = env.get("PLAYWRIGHT_BROWSERS_PATH")
    if custom and custom != "0":
        roots.append(Path(custom))
    if home is not None:
        roots.append(Path(home) / ".cache" / "ms-playwright")
    found: list[tuple[int, int, str]] = []
    layouts = (
        (0, "chromium-*", ("chrome-linux64/chrome", "chrome-linux/chrome")),
        (
            1,
            "chromium_headless_shell-*",
            ("chrome-headless-shell-linux64/chrome-headless-shell", "chrome-linux/headless_shell"),
        ),
    )
    for root in roots:
        if not root.is_dir():
            continue
        for rank, pattern, relatives in layouts:
            for folder in root.glob(pattern):
                match = _REVISION.search(folder.name)
                revision = int(match.group(1)) if match else 0
                for rel in relatives:
                    candidate = folder / rel
                    if candidate.is_file():
                        found.append((rank, -revision, str(candidate)))
    return [path for _, _, path in sorted(found)]


def locate_chromium(
    setting: str | None = None,
    env: Mapping[str, str] | None = None,
    *,
    playwright_candidates: Iterable[str] | None = None,
    system_candidates: Sequence[str] = SYSTEM_CANDIDATES,
) -> BrowserLocation:
    """Find Chromium: setting, environment variable, Playwright's browser, the system's.

    >>> locate_chromium("/opt/chrome/chrome", {}).source
    'setting'
    >>> loc = locate_chromium(None, {"STRUCTCRAWL_CHROMIUM": "/nonexistent"})
    >>> loc.path, loc.source, loc.usable
    ('/nonexistent', 'env', False)
    >>> locate_chromium(None, {}, playwright_candidates=[], system_candidates=[]).source
    'none'
    """
    env = os.environ if env is None else env
    if setting and str(setting).strip():
        return BrowserLocation(str(setting).strip(), "setting")
    variable = env.get("STRUCTCRAWL_CHROMIUM", "").strip()
    if variable:
        return BrowserLocation(variable, "env")
    if playwright_candidates is None:
        playwright_candidates = playwright_chromium_candidates(env, Path.home())
    tried: list[str] = []
    for path in playwright_candidates:
        if _is_executable(path):
            return BrowserLocation(path, "playwright")
        tried.append(path)
    tried.append("Playwright's browsers")
    for path in system_candidates:
        if _is_executable(path):
            return BrowserLocation(path, "system")
        tried.append(path)
    return BrowserLocation(None, "none", tuple(tried))


#: Chromium's switch for pages that load no image at all (``image`` among the blocked types).
IMAGES_OFF = "--blink-settings=imagesEnabled=false"


def launch_options(
    executable: str | None,
    *,
    is_root: bool | None = None,
    extra_args: Sequence[str] = (),
    headless: bool = True,
    timeout_ms: float = 30_000,
) -> dict[str, Any]:
    """Keyword arguments for Playwright's ``BrowserType.launch``.

    >>> opts = launch_options("/usr/bin/chromium", is_root=True)
    >>> opts["executable_path"], opts["headless"], "--no-sandbox" in opts["args"]
    ('/usr/bin/chromium', True, True)
    >>> "--no-sandbox" in launch_options(None, is_root=False)["args"]
    False
    """
    if is_root is None:
        is_root = hasattr(os, "geteuid") and os.geteuid() == 0
    args = list(HEADLESS_FLAGS)
    if is_root:
        args.insert(0, "--no-sandbox")
    args.extend(a for a in extra_args if a not in args)
    options: dict[str, Any] = {"headless": headless, "args": args, "timeout": timeout_ms}
    if executable:
        options["executable_path"] = executable
    return options


@dataclass(frozen=True, slots=True)
class ResourceBlocker:
    """``PLAYWRIGHT_ABORT_REQUEST`` predicate: abort requests of the given resource types.

    >>> class Req: resource_type = "image"
    >>> ResourceBlocker(frozenset({"image", "font"}))(Req())
    True
    """

    types: frozenset[str]

    def __call__(self, request: Any) -> bool:
        return getattr(request, "resource_type", None) in self.types


def playwright_settings(
    location: BrowserLocation,
    *,
    timeout: float,
    max_pages: int,
    browser_args: Sequence[str] = (),
    block_resources: Iterable[str] = (),
) -> dict[str, Any]:
    """scrapy-playwright's settings for our Chromium, as :class:`structcrawl.Addon` sets them
    (at add-on priority): launch options, navigation timeout (seconds), a page cap per
    context, relaunch of a browser that died, resource blocking.

    The page cap is the render pool's (``STRUCTCRAWL_RENDER_MAX_PAGES``); scrapy-playwright's
    own semaphore gets twice that, because pages of a dead browser's context never give their
    slots back and a request waiting for one would hang until abandoned.

    >>> s = playwright_settings(BrowserLocation("/usr/bin/chromium", "test"), timeout=30,
    ...                         max_pages=4, block_resources=["font"])
    >>> s["PLAYWRIGHT_LAUNCH_OPTIONS"]["executable_path"], s["PLAYWRIGHT_MAX_PAGES_PER_CONTEXT"]
    ('/usr/bin/chromium', 8)
    >>> s["PLAYWRIGHT_DEFAULT_NAVIGATION_TIMEOUT"], s["PLAYWRIGHT_ABORT_REQUEST"].types
    (30000.0, frozenset({'font'}))

    Blocked images are not even requested: Chromium is told not to load any
    (``--blink-settings=imagesEnabled=false``, unless ``browser_args`` set Blink settings of
    their own), so they cost no request through the route filter and the egress proxy (a
    real product page: 175 requests a render -> 38, the render 3.1 -> 1.6 s).

    >>> args = playwright_settings(BrowserLocation("/usr/bin/chromium", "test"), timeout=30,
    ...     max_pages=4, block_resources=["image"])["PLAYWRIGHT_LAUNCH_OPTIONS"]["args"]
    >>> "--blink-settings=imagesEnabled=false" in args
    True
    """
    blocked = frozenset(block_resources)
    args = list(browser_args)
    if "image" in blocked and not any(a.startswith("--blink-settings") for a in args):
        args.append(IMAGES_OFF)
    return {
        "PLAYWRIGHT_LAUNCH_OPTIONS": launch_options(
            location.path, extra_args=args, timeout_ms=timeout * 1000
        ),
        "PLAYWRIGHT_DEFAULT_NAVIGATION_TIMEOUT": float(timeout * 1000),
        "PLAYWRIGHT_MAX_PAGES_PER_CONTEXT": 2 * max_pages,
        "PLAYWRIGHT_RESTART_DISCONNECTED_BROWSER": True,
        "PLAYWRIGHT_ABORT_REQUEST": ResourceBlocker(blocked) if blocked else None,
        # the crawl's credentials only to the host and port they were set for
        "PLAYWRIGHT_PROCESS_REQUEST_HEADERS": "structcrawl.render._headers.scoped_headers",
    }


def main(argv: Sequence[str] | None = None) -> int:
    location = locate_chromium(None)
    problem = location.problem()
    if problem:
        print(f"structcrawl: {problem}", file=sys.stderr)
        return 1
    print(f"{location.path} ({location.source})")
    return 0
