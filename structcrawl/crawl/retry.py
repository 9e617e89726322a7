"""What a failed fetch is called, whether it is worth another try, and how long to wait (pure).

* :func:`fetch_error_code` names a download failure for the page's error record:
  ``fetch-TimeoutError``, ``fetch-ResponseNeverReceived``, ``too-large``, ``redirect-loop``,
  ``fetch-IgnoreRequest`` (robots.txt: the message says so)... (the exception's own
  ``fetch_error_code`` wins when it has one).
* :func:`retry_after_seconds` reads a ``Retry-After`` header (seconds or an HTTP date).
* :func:`retry_delay` decides the wait before retry number ``attempt``: the server's
  ``Retry-After`` when it gave one (``None``, i.e. do not retry, when it asks for longer than
  the policy's cap), else exponential backoff ``base * 2 ** (attempt - 1)`` capped at ``max``.

Which failures are retried at all is Scrapy's ``RETRY_HTTP_CODES`` / ``RETRY_EXCEPTIONS``
(transient ones: 5xx, 408, 429, timeouts, resets, data loss); deterministic ones (404, 410,
redirect loops, too large, a wrong content type) never are. The Scrapy side is
:class:`structcrawl.crawl.middlewares.BackoffRetryMiddleware`.

No Scrapy imports: exceptions are recognised by class name.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

__all__ = [
    "RetryPolicy",
    "fetch_error_code",
    "fetch_error_message",
    "retry_after_seconds",
    "retry_delay",
]

# Scrapy's own download exceptions that wrap a Twisted one: the Twisted name says more
# (ResponseNeverReceived, ConnectionLost, DNSLookupError, ...).
_WRAPPERS = frozenset(
    {
        "DownloadFailedError",
        "DownloadConnectionRefusedError",
        "CannotResolveHostError",
        "DownloadTimeoutError",
    }
)


def fetch_error_code(exc: BaseException) -> str:
    """The error code of a failed fetch.

    >>> class DownloadTimeoutError(Exception): pass
    >>> fetch_error_code(DownloadTimeoutError("took longer than 2 seconds"))
    'fetch-TimeoutError'
    >>> class ResponseNeverReceived(Exception): pass
    >>> class DownloadFailedError(Exception): pass
    >>> wrapped = DownloadFailedError("reset")
    >>> wrapped.__cause__ = ResponseNeverReceived()
    >>> fetch_error_code(wrapped)
    'fetch-ResponseNeverReceived'
    >>> class IgnoreRequest(Exception): pass
    >>> fetch_error_code(IgnoreRequest("Forbidden by robots.txt"))  # the message says why
    'fetch-IgnoreRequest'
    >>> class DownloadCancelledError(Exception): pass
    >>> fetch_error_code(DownloadCancelledError("Expected to receive 9 bytes which is larger "
    ...                                          "than download max size (5)"))
    'too-large'
    """
    own = getattr(exc, "fetch_error_code", None)
    if isinstance(own, str) and own:
        return own
    name = type(exc).__name__
    message = str(exc)
    if name == "IgnoreRequest" and "max redirections" in message:
        return "redirect-too-many"
    if name == "DownloadCancelledError" and ("max size" in message or not message):
        return "too-large"  # the only reason Scrapy's HTTP handler cancels a download
    if name == "DownloadTimeoutError":
        return "fetch-TimeoutError"
    cause = exc.__cause__
    if name in _WRAPPERS and cause is not None:
        return f"fetch-{type(cause).__name__}"
    return f"fetch-{name}"


def fetch_error_message(exc: BaseException) -> str:
    """The exception's message; for one without (Scrapy's ``ResponseDataLossError()``), its
    cause's, else the first line of its class's docstring, else its class name.

    >>> DataLoss = type("ResponseDataLossError", (Exception,), {"__doc__": "Incomplete body."})
    >>> fetch_error_message(DataLoss())
    'Incomplete body.'
    >>> fetch_error_message(ValueError("bad"))
    'bad'
    """
    text = str(exc).strip()
    if text:
        return text
    cause = exc.__cause__
    if cause is not None and str(cause).strip():
        return str(cause).strip()
    doc = (type(exc).__doc__ or "").strip().splitlines()
    return doc[0].strip() if doc else type(exc).__name__


def retry_after_seconds(value: str | bytes | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` value (delay-seconds or an HTTP date); ``None``
    when absent or unreadable. A date in the past gives 0.

    >>> retry_after_seconds("120"), retry_after_seconds(b" 3 "), retry_after_seconds("soon")
    (120.0, 3.0, None)
    >>> now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    >>> retry_after_seconds("Thu, 01 Jan 2026 12:00:30 GMT", now)
    30.0
    >>> retry_after_seconds("Thu, 01 Jan 2026 11:00:00 GMT", now)
    0.0
    """
    if value is None:
        return None
    text = value.decode("latin-1") if isinstance(value, bytes) else value
    text = text.strip()
    if not text:
        return None
    if text.isdigit():
        return float(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    seconds = (when - (now or datetime.now(UTC))).total_seconds()
    return max(seconds, 0.0)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Backoff between retries: ``base`` seconds before the first retry, doubled each time,
    at most ``max``; a server's ``Retry-After`` is honoured up to ``retry_after_max``."""

    base: float = 1.0
    max: float = 30.0
    retry_after_max: float = 60.0


def retry_delay(attempt: int, retry_after: float | None, policy: RetryPolicy) -> float | None:
    """Seconds to wait before retry number ``attempt`` (1 = the first retry), or ``None``
    when the server asked for a longer wait than the policy allows (do not retry).

    >>> p = RetryPolicy(base=0.5, max=3.0, retry_after_max=10.0)
    >>> [retry_delay(n, None, p) for n in (1, 2, 3, 4)]
    [0.5, 1.0, 2.0, 3.0]
    >>> retry_delay(1, 7.0, p), retry_delay(1, 0.0, p), retry_delay(1, 60.0, p) is None
    (7.0, 0.0, True)
    """
    if retry_after is not None:
        return retry_after if retry_after <= policy.retry_after_max else None
    return float(min(policy.base * 2 ** max(attempt - 1, 0), policy.max))
