"""Secrets never reach the logs.

:func:`install` wraps the logging record factory once per process (``structcrawl.settings``
calls it, so every Scrapy command and scrapyd job of the project gets it): every log record's
arguments are scanned, and values under sensitive names (``AWS_SECRET_ACCESS_KEY``,
``HTTPPROXY_AUTH_ENCODING`` is fine, ``Authorization``, ``Cookie``, ``*_PASSWORD``,
``*_TOKEN`` ...) become ``[REDACTED]``, as do credentials in URLs (``https://user:pw@host``) and
header lines (``Cookie: ...``) in messages. Scrapy itself logs "Overridden settings" verbatim.

>>> redact_value({"AWS_SECRET_ACCESS_KEY": "s3cr3t", "LOG_LEVEL": "INFO"})
{'AWS_SECRET_ACCESS_KEY': '[REDACTED]', 'LOG_LEVEL': 'INFO'}
>>> redact_text("GET https://bob:hunter2@x.example/ with Cookie: a=1")
'GET https://[REDACTED]@x.example/ with Cookie: [REDACTED]'
>>> redact_text("{'AWS_SECRET_ACCESS_KEY': 'x', 'LOG_LEVEL': 'INFO'}")
"{'AWS_SECRET_ACCESS_KEY': '[REDACTED]', 'LOG_LEVEL': 'INFO'}"
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any

from structcrawl.core.redact import REDACTED, is_sensitive

__all__ = ["install", "redact_text", "redact_value"]

_SENSITIVE_SETTING = re.compile(
    r"(SECRET|PASSWORD|PASSWD|TOKEN|ACCESS_KEY|API_KEY|CREDENTIAL|AUTH(?!OTHROTTLE)|COOKIE)",
    re.I,
)
_URL_USERINFO = re.compile(r"(\b[a-z][a-z0-9+.-]*://)[^/\s@:]+(?::[^/\s@]*)?@", re.I)
_HEADER_LINE = re.compile(
    r"\b(Authorization|Proxy-Authorization|Cookie|Set-Cookie|X-Api-Key|X-Auth-Token)"
    r"(\s*[:=]\s*)([^\n,}]+)",
    re.I,
)
# a quoted "NAME": "value" pair in text (pprint-ed settings, JSON, dict reprs)
_QUOTED_PAIR = re.compile(r"""(['"])([\w.-]+)\1(\s*:\s*)(['"])((?:(?!\4).)*)\4""")
_INSTALLED = False
_FORMATTER = logging.Formatter()


def _sensitive_name(name: str) -> bool:
    return bool(_SENSITIVE_SETTING.search(name)) or is_sensitive(name)


def _pair(m: re.Match[str]) -> str:
    if not _sensitive_name(m.group(2)):
        return m.group(0)
    return f"{m.group(1)}{m.group(2)}{m.group(1)}{m.group(3)}{m.group(4)}{REDACTED}{m.group(4)}"


def redact_text(text: str) -> str:
    text = _URL_USERINFO.sub(lambda m: m.group(1) + REDACTED + "@", text)
    text = _QUOTED_PAIR.sub(_pair, text)
    return _HEADER_LINE.sub(lambda m: m.group(1) + m.group(2) + REDACTED, text)


def redact_value(value: Any, depth: int = 0) -> Any:
    """A copy of ``value`` with secrets replaced (dict keys by name, strings by pattern)."""
    if depth > 6:
        return value
    if isinstance(value, str):
        return redact_text(value) if ("@" in value or ":" in value) else value
    if isinstance(value, Mapping):
        return {
            k: REDACTED
            if isinstance(k, (str, bytes))
            and _sensitive_name(k if isinstance(k, str) else k.decode("latin-1"))
            else redact_value(v, depth + 1)
            for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return type(value)(redact_value(v, depth + 1) for v in value)
    if isinstance(value, (int, float, bool, type(None), bytes)):
        return value
    text = str(value)  # a logged object (a Request, a Response, an exception): its text
    return redact_text(text) if _URL_USERINFO.search(text) else value


def install() -> None:
    """Wrap the log record factory (idempotent)."""
    global _INSTALLED
    if _INSTALLED:
        return
    previous = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        if record.args:
            record.args = redact_value(record.args)
        if isinstance(record.msg, str) and ("@" in record.msg or ":" in record.msg):
            record.msg = redact_text(record.msg)
        elif not isinstance(record.msg, str):
            record.msg = redact_value(record.msg)
        if record.exc_info and record.exc_info[0] is not None and not record.exc_text:
            # formatted here, once, so the traceback's text (URLs in its messages) is redacted
            record.exc_text = redact_text(_FORMATTER.formatException(record.exc_info))
        return record

    logging.setLogRecordFactory(factory)
    _INSTALLED = True
