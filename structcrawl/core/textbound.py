"""A lower bound of the text a page shows a reader, told from its bytes (pure).

:func:`shows_text` says whether a page surely shows at least so many characters of text
(:func:`structcrawl.core.challenge.visible_text_length`: tags, scripts, styles, noscript and
template blocks left out, whitespace collapsed), reading its bytes only as far as needed:
what lets a bot-challenge check pass over a page with content of its own without scanning it
for every vendor's markers (~2 ms over the prefix of a large page without structured data).
It never says more than the text shows; where the bytes cannot tell it as the decoded text
would, it says False, and the caller reads the page the longer way.
"""

from __future__ import annotations

import re

__all__ = ["BLOCK_NAMES", "shows_text"]

#: the elements whose content is no text a reader sees: the count leaves their blocks out
#: (:mod:`structcrawl.core.challenge` builds its pattern of them from these, so the bound and
#: the count cannot come to read different blocks)
BLOCK_NAMES = ("script", "style", "noscript", "template")
#: the start of a block whose content is no text (one the count leaves out), and its name
_BLOCK_START = re.compile(rb"<(" + "|".join(BLOCK_NAMES).encode() + rb")\b")
#: a block's end as the count finds it (``</\1\s*>``, whose ``\s`` in text also takes
#: ``\x1c``-``\x1f``), or a non-ASCII byte where the end's ``>`` would be: Unicode whitespace
#: in the text, perhaps, which a search of the bytes does not tell
_BLOCK_ENDS = {
    name: re.compile(rb"</" + name + rb"[\s\x1c-\x1f]*(?:(>)|[\x80-\xff])")
    for name in (n.encode() for n in BLOCK_NAMES)
}
#: a tag's ``>`` and the text after it, up to the next ``<``, holding a counted byte (what
#: comes before it taken once, possessively: no backtracking over a run of other bytes)
_SHOWN_RUN = re.compile(rb">[^\x21-\x7e\xc2-\xf4]*+[\x21-\x3b\x3d-\x7e\xc2-\xf4][^<]*")
#: every byte but those counted, deleted from a run: printable ASCII (each a character of the
#: decoded text, not whitespace) and UTF-8's lead bytes (each starts a character of the text,
#: or a U+FFFD where no valid sequence follows: decoding never takes a lead byte for another
#: sequence's continuation)
_UNCOUNTED = bytes(b for b in range(256) if not (0x21 <= b <= 0x7E or 0xC2 <= b <= 0xF4))
#: the whitespace characters beyond ASCII (``str.isspace``: what the count collapses), in
#: UTF-8: each lead byte of one is taken back from the count
_WIDE_SPACE = re.compile(
    rb"\xc2[\x85\xa0]|\xe1\x9a\x80|\xe2\x80[\x80-\x8a\xa8\xa9\xaf]|\xe2\x81\x9f|\xe3\x80\x80"
)
#: the bytes of a run counted at most (a long run's start holds enough text)
_RUN_BYTES = 4096
#: blocks read at most before giving up (real pages: at most ~110 before 600 characters): a
#: prefix of thousands of tiny or unclosed blocks costs under a millisecond
_MOST_BLOCKS = 500


def shows_text(lowered: bytes, least: int) -> bool:
    """Whether the page of ``lowered`` (its bytes, ASCII letters lowercased) surely shows a
    reader at least ``least`` characters of text, read only as far as needed.

    What is counted is a lower bound of the visible text's length as
    :func:`structcrawl.core.challenge.visible_text_length` counts it: the characters of the
    text that are not whitespace, told by their bytes (printable ASCII, and UTF-8 lead bytes
    but those of the wide spaces), after a ``>`` and before the next ``<`` (no tag holds
    them), outside the blocks it leaves out, found as it finds them (from the
    first start that has an end, to its first end). Where the bytes do not tell a block as the
    text does (a non-ASCII character after a block's name or where its end's ``>`` would be),
    and after :data:`_MOST_BLOCKS` blocks, False: the markers are looked for as before.

    >>> shows_text(b"<p>" + b"word " * 150 + b"</p>", 600), shows_text(b"<p>few words</p>", 600)
    (True, False)
    >>> shows_text(b"<script>" + b"<p>code</p>" * 100 + b"</script><p>hi</p>", 600)
    False
    """
    shown = 0
    at = 0
    end = len(lowered)
    endless: set[bytes] = set()  # names with no end after a start: none after a later one
    for _ in range(_MOST_BLOCKS):
        start = _BLOCK_START.search(lowered, at)
        stop = start.start() if start is not None else end
        for run in _SHOWN_RUN.finditer(lowered, at, stop):
            text = run.group()
            if len(text) > _RUN_BYTES:
                text = _cut(text, _RUN_BYTES)
            shown += len(text.translate(None, _UNCOUNTED)) - 1  # the ">" aside
            if not text.isascii():
                shown -= len(_WIDE_SPACE.findall(text))
            if shown >= least:
                return True
        if start is None:
            return False
        name_end = start.end()
        if name_end < end and lowered[name_end] >= 0x80:
            return False  # a word character after the name, perhaps: no block in the text
        name = start.group(1)
        close = None if name in endless else _BLOCK_ENDS[name].search(lowered, name_end)
        if close is None:  # no end: no block, and the text goes on after the start's "<"
            endless.add(name)
            at = start.start() + 1
        elif close.group(1) is None:
            return False
        else:
            at = close.end()
    return False


def _cut(text: bytes, size: int) -> bytes:
    """``text``'s first ``size`` bytes, less the last character begun in its last four (one
    the cut may have split: its lead byte is not counted without the bytes that may make it a
    wide space).

    >>> _cut("ab\u3000".encode(), 4), _cut(b"abcdef", 4)
    (b'ab', b'abcd')
    """
    cut = text[:size]
    for back in range(1, min(4, len(cut)) + 1):
        if cut[-back] >= 0xC0:
            return cut[:-back]
    return cut
