"""Bot challenges and consent walls, recognised in a response (pure: no Scrapy, no browser).

:func:`detect_challenge` says whether a response is a bot-protection interstitial (a
JavaScript or CAPTCHA challenge, a block page) rather than the page that was asked for:

* a vendor's challenge marker in a *blocking* response (status 403, 429 or 503, or
  Cloudflare's ``cf-mitigated: challenge`` header): Cloudflare (``/cdn-cgi/challenge-platform``,
  ``cf_chl_opt``, "Just a moment..."), Akamai (``errors.edgesuite.net`` "Reference #", the
  ``bm-verify`` interstitial), DataDome (``captcha-delivery.com``), PerimeterX/HUMAN
  (``_pxAppId``, ``px-captcha``), Imperva/Incapsula (``_Incapsula_Resource``), AWS WAF,
  hCaptcha, reCAPTCHA, Turnstile, or a generic "verify you are human" text;
* the same markers in a 2xx page that has *no content of its own* (little visible text, no
  structured data): Cloudflare, for one, injects its challenge-platform script into ordinary
  pages, so a marker alone never makes a normal page a challenge.

:func:`detect_consent` finds a consent-management dialog (OneTrust, Cookiebot, Didomi,
Quantcast, TrustArc, Usercentrics, Sourcepoint, Google's consent interstitials, generic
cookie banners), and says whether it is a *wall* (the page has no content besides it).

Both read at most the first :data:`SCAN_BYTES` of the body, with plain substring and regex
tests: nothing is parsed, nothing executed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from html import unescape

__all__ = [
    "BLOCKING_STATUSES",
    "CHALLENGE_META",
    "SCAN_BYTES",
    "Challenge",
    "Consent",
    "challenge_message",
    "detect_challenge",
    "detect_consent",
    "visible_text_length",
]

#: Request meta key: the challenge a response was recognised as (``Challenge.to_dict()``).
CHALLENGE_META = "structcrawl_challenge"
#: Statuses bot protections answer a challenged request with.
BLOCKING_STATUSES = frozenset({403, 429, 503})
#: How much of a body the detectors read.
SCAN_BYTES = 256 * 1024
#: Below this many characters of visible text (and without structured data) a page has no
#: content of its own.
_THIN_TEXT = 600

# (vendor, pattern): markers of a challenge or block page, case-insensitive.
_CHALLENGE_MARKERS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (vendor, re.compile(pattern, re.I))
    for vendor, pattern in (
        ("cloudflare", r"/cdn-cgi/challenge-platform/|cf_chl_opt|cf-browser-verification"
                       r"|<title>\s*just a moment\.\.\.|attention required! \| cloudflare"
                       r"|cf-error-details"),
        ("akamai", r"errors\.edgesuite\.net|bm-verify|/_sec/cp_challenge/"
                   r"|you don't have permission to access .{0,200}reference #"),
        ("datadome", r"captcha-delivery\.com|\bdatadome\b"),
        ("perimeterx", r"_pxappid|px-captcha|captcha\.px-cd[n]\.net|perimeterx"),
        ("imperva", r"_incapsula_resource|incapsula incident id"),
        ("aws-waf", r"awswaf\.com|aws-waf-token|gokuprops"),
        ("turnstile", r"challenges\.cloudflare\.com/turnstile|cf-turnstile"),
        ("hcaptcha", r"hcaptcha\.com/1/api\.js|class=[\"']h-captcha"),
        ("recaptcha", r"google\.com/recaptcha/|recaptcha/api\.js|class=[\"']g-recaptcha"),
        ("generic", r"verify (?:that )?you are (?:a )?human|are you a robot"
                    r"|unusual traffic from your (?:computer )?network"
                    r"|checking (?:if the site connection is secure|your browser before)"
                    r"|please enable (?:javascript and )?cookies to continue"
                    r"|access to this page has been denied"),
    )
)  # fmt: skip

# (vendor, pattern): consent-management dialogs.
_CONSENT_MARKERS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (vendor, re.compile(pattern, re.I))
    for vendor, pattern in (
        ("onetrust", r"onetrust-banner-sdk|onetrust-consent-sdk|cdn\.cookielaw\.org|optanon"),
        ("cookiebot", r"CybotCookiebotDialog|consent\.cookiebot\.com"),
        ("didomi", r"didomi-host|didomi-notice|sdk\.privacy-center\.org"),
        ("quantcast", r"qc-cmp2|quantcast\.mgr\.consensu\.org|cmp\.quantcast\.com"),
        ("trustarc", r"truste-consent|consent\.trustarc\.com|truste_box_overlay"),
        ("usercentrics", r"usercentrics\.eu|id=[\"']usercentrics-root"),
        ("sourcepoint", r"sp_message_container|sourcepoint\.mgr\.consensu\.org"),
        ("google", r"fundingchoicesmessages\.google\.com|fc-consent-root"
                   r"|consent\.google\.com|before you continue to google"),
        ("generic", r"id=[\"'](?:cookie-?(?:consent|banner|notice)|gdpr-consent)[\"']"
                    r"|class=[\"'][^\"']*\bcookie-?(?:consent|banner)\b"),
    )
)  # fmt: skip

_SCRIPT_STYLE = re.compile(r"<(script|style|noscript|template)\b.*?</\1\s*>", re.I | re.S)
_TAG = re.compile(r"<[^>]*>", re.S)
_SPACE = re.compile(r"\s+")
_STRUCTURED = re.compile(r"application/ld\+json|\bitemscope\b|\btypeof=|property=[\"']og:", re.I)


@dataclass(frozen=True, slots=True)
class Challenge:
    """A recognised bot challenge: the vendor, and the evidence (``status:403``,
    ``marker:datadome``, ``header:cf-mitigated``, ``thin-page``)."""

    vendor: str
    signals: tuple[str, ...]

    def message(self) -> str:
        return f"bot challenge ({self.vendor}): {', '.join(self.signals)}"

    def to_dict(self) -> dict[str, object]:
        return {"vendor": self.vendor, "signals": list(self.signals)}


def challenge_message(found: Mapping[str, object]) -> str:
    """The error message of a challenged page, from ``Challenge.to_dict()``.

    >>> challenge_message({"vendor": "datadome", "signals": ["status:403"]})
    'bot challenge (datadome): status:403'
    """
    signals = found.get("signals")
    listed = ", ".join(map(str, signals)) if isinstance(signals, list) else ""
    return f"bot challenge ({found.get('vendor')}): {listed}"


@dataclass(frozen=True, slots=True)
class Consent:
    """A consent-management dialog: its vendor, and whether it walls the page off."""

    vendor: str
    wall: bool

    def to_dict(self) -> dict[str, object]:
        return {"vendor": self.vendor, "wall": self.wall}


def _text(body: bytes | str) -> str:
    """The scanned prefix, character references decoded (block pages escape their text:
    ``errors&#46;edgesuite&#46;net``); only HTML's named and numeric references."""
    text = body[:SCAN_BYTES].decode("utf-8", "replace") if isinstance(body, bytes) else body
    return unescape(text[:SCAN_BYTES])


def _header(headers: Mapping[str, Iterable[str] | str] | None, name: str) -> str:
    if not headers:
        return ""
    for key, values in headers.items():
        if str(key).lower() == name:
            return values if isinstance(values, str) else ", ".join(map(str, values))
    return ""


def visible_text_length(html: str) -> int:
    """Characters of text a reader would see (scripts, styles and tags left out).

    >>> visible_text_length("<p>Hello <b>world</b></p><script>var x = 1;</script>")
    11
    """
    text = _TAG.sub(" ", _SCRIPT_STYLE.sub(" ", html))
    return len(_SPACE.sub(" ", text).strip())


def _thin(html: str) -> bool:
    return visible_text_length(html) < _THIN_TEXT and not _STRUCTURED.search(html)


def detect_challenge(
    status: int | None,
    headers: Mapping[str, Iterable[str] | str] | None,
    body: bytes | str,
) -> Challenge | None:
    """The challenge a response is, or None (see the module documentation).

    >>> page = ('<html><title>Just a moment...</title><script '
    ...         'src="/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1"></script></html>')
    >>> detect_challenge(403, {"Server": "cloudflare"}, page).vendor
    'cloudflare'
    >>> detect_challenge(404, {}, "<h1>Not found</h1>") is None
    True
    """
    html = _text(body)
    signals: list[str] = []
    mitigated = _header(headers, "cf-mitigated").lower()
    if "challenge" in mitigated:
        signals.append("header:cf-mitigated")
    found = [vendor for vendor, pattern in _CHALLENGE_MARKERS if pattern.search(html)]
    if _header(headers, "x-datadome") and status in BLOCKING_STATUSES and "datadome" not in found:
        found.append("datadome")
    if not found and not signals:
        return None
    blocking = status in BLOCKING_STATUSES or bool(signals)
    if not blocking:
        if status is not None and not 200 <= status < 300:
            return None
        if not _thin(html):
            return None  # a marker in a page with content of its own: not a challenge
        signals.append("thin-page")
    if status is not None:
        signals.insert(0, f"status:{status}")
    signals.extend(f"marker:{vendor}" for vendor in found)
    vendor = next((v for v in found if v != "generic"), found[0] if found else "cloudflare")
    return Challenge(vendor=vendor, signals=tuple(signals))


def detect_consent(body: bytes | str) -> Consent | None:
    """The consent dialog a page carries, or None; ``wall`` when it has no content besides.

    >>> detect_consent('<div id="onetrust-banner-sdk">We use cookies</div>')
    Consent(vendor='onetrust', wall=True)
    >>> detect_consent("<p>No banner here</p>") is None
    True
    """
    html = _text(body)
    for vendor, pattern in _CONSENT_MARKERS:
        if pattern.search(html):
            return Consent(vendor=vendor, wall=_thin(html))
    return None
