"""Locale facts from CLDR (through Babel), loaded lazily and cached per language tag.

Only the slow paths use this module (dates that are not ISO 8601, numbers whose separators
need a locale to be read): machine values never load locale data.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from babel import Locale, UnknownLocaleError
from babel.dates import get_date_format, get_day_names, get_month_names
from babel.localedata import locale_identifiers
from babel.numbers import get_decimal_symbol, get_group_symbol

__all__ = [
    "babel_locale",
    "day_month_order",
    "fold",
    "month_number",
    "is_filler",
    "number_symbols",
    "currency_decimal",
]

# Words that may sit around a date without changing it ("le 3 mars", "3 de marzo de 2025",
# "am 14. März", "March 3rd at 10:00", "18 Uhr").
_PARTICLES = frozenset(
    "the of on at le la de del du à a am um den der uhr el em op il di kl klo h".split()
)


def fold(word: str) -> str:
    """Case- and accent-insensitive form of a word, without trailing dots.

    >>> fold("Févr.")
    'fevr'
    """
    word = word.casefold().rstrip(".")
    if word.isascii():
        return word
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@lru_cache(maxsize=128)
def babel_locale(language: str | None) -> Locale | None:
    """The Babel locale for a BCP 47 tag (``de``, ``en-GB``, ``pt_BR``), or ``None``.

    >>> str(babel_locale("en-GB"))
    'en_GB'
    >>> babel_locale("xx-nope") is None
    True
    """
    if not language:
        return None
    tag = language.strip().replace("_", "-")
    while tag:
        try:
            return Locale.parse(tag, sep="-")
        except (UnknownLocaleError, ValueError, TypeError):
            tag = tag.rpartition("-")[0]
    return None


def _words(names: object) -> dict[str, int]:
    out: dict[str, int] = {}
    for number, name in dict(names).items():  # type: ignore[call-overload]
        key = fold(str(name))
        out.setdefault(key, int(number))
    return out


@lru_cache(maxsize=128)
def _month_words(loc: Locale) -> dict[str, int]:
    out: dict[str, int] = {}
    for width in ("wide", "abbreviated"):
        for context in ("format", "stand-alone"):
            for key, number in _words(get_month_names(width, context, loc)).items():
                out.setdefault(key, number)
    return out


@lru_cache(maxsize=128)
def _weekday_words(loc: Locale) -> frozenset[str]:
    out: set[str] = set()
    for width in ("wide", "abbreviated", "short"):
        for context in ("format", "stand-alone"):
            out.update(_words(get_day_names(width, context, loc)))
    return frozenset(out)


_ENGLISH = Locale.parse("en")
_EXTRA_ENGLISH = {"sept": 9}


def month_number(word: str, language: str | None) -> int | None:
    """The month a word names in ``language`` (then English, the web's default), or ``None``.

    >>> month_number("März", "de"), month_number("mars", "fr"), month_number("Sept.", None)
    (3, 3, 9)
    >>> month_number("mars", None) is None
    True
    """
    key = fold(word)
    loc = babel_locale(language)
    if loc is not None:
        found = _month_words(loc).get(key)
        if found is not None:
            return found
    return _month_words(_ENGLISH).get(key) or _EXTRA_ENGLISH.get(key)


def is_filler(word: str, language: str | None) -> bool:
    """True for weekday names and particles that carry nothing a date needs."""
    key = fold(word)
    if key in _PARTICLES or key in _weekday_words(_ENGLISH):
        return True
    loc = babel_locale(language)
    return loc is not None and key in _weekday_words(loc)


def _order_of(loc: Locale) -> str | None:
    """``"DM"`` or ``"MD"`` for a locale whose short date pattern puts the year last."""
    pattern = get_date_format("short", loc).pattern
    d, m, y = pattern.find("d"), pattern.find("M"), pattern.find("y")
    if min(d, m, y) < 0 or y < max(d, m):
        return None
    return "DM" if d < m else "MD"


@lru_cache(maxsize=128)
def day_month_order(language: str | None) -> str | None:
    """``"DM"`` or ``"MD"`` when ``language`` fixes the order of numeric day and month, else
    ``None``. A tag with a region answers for that region; a bare language answers only when
    every region that writes the year last agrees (``de`` does, ``en`` does not).

    >>> day_month_order("de"), day_month_order("en-US"), day_month_order("en-GB")
    ('DM', 'MD', 'DM')
    >>> day_month_order("en") is None
    True
    """
    loc = babel_locale(language)
    if loc is None:
        return None
    if loc.territory:
        return _order_of(loc)
    orders = set()
    prefix = loc.language + "_"
    for ident in locale_identifiers():
        if ident == loc.language or ident.startswith(prefix):
            try:
                order = _order_of(Locale.parse(ident))
            except (UnknownLocaleError, ValueError):
                continue
            if order:
                orders.add(order)
    return orders.pop() if len(orders) == 1 else None


@lru_cache(maxsize=128)
def number_symbols(language: str | None) -> tuple[str, str] | None:
    """``(decimal, group)`` symbols of the locale ``language`` names (a bare language takes
    its default region: ``de`` reads as Germany's German).

    >>> number_symbols("de"), number_symbols("en")
    ((',', '.'), ('.', ','))
    """
    loc = babel_locale(language)
    if loc is None:
        return None
    return get_decimal_symbol(loc), get_group_symbol(loc)


@lru_cache(maxsize=64)
def currency_decimal(code: str | None) -> str | None:
    """The decimal symbol every locale of the territories that use currency ``code`` agrees
    on (CLDR), or ``None`` where they differ (EUR: ``,`` in Germany, ``.`` in Ireland).

    >>> currency_decimal("ARS"), currency_decimal("GBP"), currency_decimal("EUR")
    (',', '.', None)
    """
    if not code:
        return None
    from babel.core import get_global
    from babel.languages import get_official_languages

    symbols: set[str] = set()
    for territory, currencies in get_global("territory_currencies").items():
        if not any(c[0] == code and c[2] is None and c[3] for c in currencies):
            continue
        for language in get_official_languages(territory, de_facto=True):
            try:
                symbols.add(get_decimal_symbol(Locale.parse(f"{language}_{territory}")))
            except (UnknownLocaleError, ValueError):
                continue
    return symbols.pop() if len(symbols) == 1 else None
