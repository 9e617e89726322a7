"""A small client for scrapyd's JSON API (``schedule.json``, ``listjobs.json``), over urllib.

Scrapyd answers most errors with HTTP 200 and ``{"status": "error", "message": ...}``; every
call here returns an :class:`Answer` whose ``ok`` is true only for ``"status": "ok"``. Network
failures, HTTP errors and non-JSON bodies are answers too, never exceptions. The account comes
from the environment (``SCRAPYD_USERNAME``, ``SCRAPYD_PASSWORD``) and is sent as HTTP basic
authentication; it is never printed.
"""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urljoin

from structcrawl import __version__

__all__ = ["Answer", "ScrapydClient", "account_problem", "answer_from_text"]


@dataclass(frozen=True, slots=True)
class Answer:
    ok: bool
    data: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


def answer_from_text(text: str) -> Answer:
    """Judge a scrapyd JSON answer (the body ``scrapyd-deploy`` prints, too).

    >>> answer_from_text('{"status": "ok", "jobid": "j1"}').ok
    True
    >>> answer_from_text('{"status": "error", "message": "spider \\'x\\' not found"}').error
    "scrapyd: spider 'x' not found"
    >>> answer_from_text("<html>Bad Gateway</html>").error
    'not a scrapyd JSON answer: <html>Bad Gateway</html>'
    """
    try:
        data = json.loads(text)
    except ValueError:
        return Answer(False, {}, f"not a scrapyd JSON answer: {text.strip()[:200]}")
    if not isinstance(data, dict):
        return Answer(False, {}, f"not a scrapyd JSON answer: {text.strip()[:200]}")
    if data.get("status") != "ok":
        return Answer(False, data, f"scrapyd: {data.get('message') or data.get('status')}")
    return Answer(True, data, None)


def account_problem(env: Mapping[str, str]) -> str | None:
    """Why the scrapyd account in ``env`` cannot be used, or ``None``: a username without a
    password would go out with an empty password (or, through scrapyd-client, the literal
    ``${SCRAPYD_PASSWORD}``), so it is refused before anything is sent.

    >>> account_problem({"SCRAPYD_USERNAME": "ops"})
    'SCRAPYD_USERNAME is set but SCRAPYD_PASSWORD is not: set both, or neither'
    >>> account_problem({}) is None
    True
    """
    if env.get("SCRAPYD_USERNAME") and not env.get("SCRAPYD_PASSWORD"):
        return "SCRAPYD_USERNAME is set but SCRAPYD_PASSWORD is not: set both, or neither"
    if env.get("SCRAPYD_PASSWORD") and not env.get("SCRAPYD_USERNAME"):
        return "SCRAPYD_PASSWORD is set but SCRAPYD_USERNAME is not: set both, or neither"
    return None


class ScrapydClient:
    """``ScrapydClient(url, username, password)``; :meth:`from_env` reads the account."""

    def __init__(
        self,
        url: str,
        username: str | None = None,
        password: str | None = None,
        timeout: float = 30.0,
    ):
        self.url = url if url.endswith("/") else url + "/"
        self.timeout = timeout
        self._auth: str | None = None
        if bool(username) != bool(password):
            raise ValueError(
                account_problem(
                    {"SCRAPYD_USERNAME": username or "", "SCRAPYD_PASSWORD": password or ""}
                )
            )
        if username:
            token = base64.b64encode(f"{username}:{password or ''}".encode()).decode("ascii")
            self._auth = f"Basic {token}"

    @classmethod
    def from_env(cls, url: str, env: Mapping[str, str], timeout: float = 30.0) -> ScrapydClient:
        return cls(url, env.get("SCRAPYD_USERNAME"), env.get("SCRAPYD_PASSWORD"), timeout)

    def __repr__(self) -> str:
        return f"ScrapydClient({self.url!r}, auth={'yes' if self._auth else 'no'})"

    def _call(self, endpoint: str, form: list[tuple[str, str]] | None, query: str = "") -> Answer:
        url = urljoin(self.url, endpoint) + (f"?{query}" if query else "")
        data = urlencode(form).encode() if form is not None else None
        method = "POST" if form is not None else "GET"
        request = urllib.request.Request(url, data=data, method=method)
        request.add_header("User-Agent", f"structcrawl/{__version__}")
        if self._auth:
            request.add_header("Authorization", self._auth)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as resp:  # noqa: S310
                body = resp.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as exc:
            hint = " (check SCRAPYD_USERNAME/SCRAPYD_PASSWORD)" if exc.code == 401 else ""
            return Answer(False, {}, f"{url}: HTTP {exc.code} {exc.reason}{hint}")
        except (urllib.error.URLError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", exc)
            return Answer(False, {}, f"{url}: {reason}")
        return answer_from_text(body)

    def get(self, endpoint: str, **params: str) -> Answer:
        """GET ``endpoint`` (``daemonstatus.json``, ``listspiders.json``, ...)."""
        return self._call(endpoint, None, urlencode(params))

    def post(self, endpoint: str, form: list[tuple[str, str]]) -> Answer:
        """POST a form to ``endpoint`` (``cancel.json``, ...)."""
        return self._call(endpoint, form)

    def schedule(self, form: list[tuple[str, str]]) -> Answer:
        """POST ``schedule.json``; ``answer.data["jobid"]`` on success."""
        return self.post("schedule.json", form)

    def listjobs(self, project: str) -> Answer:
        """GET ``listjobs.json``: ``pending``, ``running`` and ``finished`` lists."""
        return self.get("listjobs.json", project=project)

    def job_ids(self, project: str) -> tuple[set[str] | None, str | None]:
        """Ids of the project's pending, running and finished jobs (scrapyd keeps
        ``finished_to_keep`` finished ones), or ``(None, error)``."""
        answer = self.listjobs(project)
        if not answer.ok:
            return None, answer.error
        ids = {
            str(job.get("id"))
            for state in ("pending", "running", "finished")
            for job in answer.data.get(state) or []
            if isinstance(job, dict)
        }
        return ids, None
