"""Literal values: element text, ``rdf:XMLLiteral`` / ``rdf:HTML`` markup, HTML5 time typing."""

from __future__ import annotations

import re
from html import escape

from lxml import etree

from ._model import XSD_NS

__all__ = ["text_content", "xml_literal", "html_literal", "temporal_datatype"]

_XHTML_NS = "http://www.w3.org/1999/xhtml"


def text_content(element: etree._Element) -> str:
    """Concatenated descendant text nodes in document order (comments excluded)."""
    if len(element) == 0:
        return element.text or ""
    return "".join(element.itertext())


def _escape_text(text: str) -> str:
    return escape(text, quote=False)


def xml_literal(element: etree._Element) -> str:
    """The element's content serialized as XML, each top-level element declaring XHTML.

    The HTML parser gives elements without a namespace; an ``rdf:XMLLiteral`` should carry the
    namespaces in scope, so the XHTML default namespace is declared on each top-level element.
    """
    parts: list[str] = [_escape_text(element.text or "")]
    for child in element:
        if isinstance(child.tag, str):
            markup = etree.tostring(child, method="xml", encoding="unicode", with_tail=False)
            if not child.tag.startswith("{") and "xmlns=" not in markup.split(">", 1)[0]:
                name_end = 1 + len(child.tag)
                markup = markup[:name_end] + f' xmlns="{_XHTML_NS}"' + markup[name_end:]
            parts.append(markup)
        else:
            parts.append(etree.tostring(child, method="xml", encoding="unicode", with_tail=False))
        parts.append(_escape_text(child.tail or ""))
    return "".join(parts)


def html_literal(element: etree._Element) -> str:
    """The element's content serialized as HTML (its inner HTML)."""
    parts: list[str] = [_escape_text(element.text or "")]
    for child in element:
        parts.append(etree.tostring(child, method="html", encoding="unicode", with_tail=False))
        parts.append(_escape_text(child.tail or ""))
    return "".join(parts)


# XML Schema lexical spaces, tried in the order HTML+RDFa 1.1 lists them.
_TZ = r"(?:Z|[+-](?:(?:0\d|1[0-3]):[0-5]\d|14:00))?"
_YEAR = r"-?(?:[1-9]\d{3,}|0\d{3})"
_MONTH = r"(?:0[1-9]|1[0-2])"
_DAY = r"(?:0[1-9]|[12]\d|3[01])"
_TIME = r"(?:(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?|24:00:00(?:\.0+)?)"
_TEMPORAL: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            r"-?P(?=\d|T\d)(?:\d+Y)?(?:\d+M)?(?:\d+D)?"
            r"(?:T(?=\d)(?:\d+H)?(?:\d+M)?(?:\d+(?:\.\d+)?S)?)?\Z"
        ),
        XSD_NS + "duration",
    ),
    (re.compile(f"{_YEAR}-{_MONTH}-{_DAY}T{_TIME}{_TZ}\\Z"), XSD_NS + "dateTime"),
    (re.compile(f"{_YEAR}-{_MONTH}-{_DAY}{_TZ}\\Z"), XSD_NS + "date"),
    (re.compile(f"{_TIME}{_TZ}\\Z"), XSD_NS + "time"),
    (re.compile(f"{_YEAR}-{_MONTH}{_TZ}\\Z"), XSD_NS + "gYearMonth"),
    (re.compile(f"{_YEAR}{_TZ}\\Z"), XSD_NS + "gYear"),
)


def temporal_datatype(value: str) -> str | None:
    """The XSD datatype whose lexical space ``value`` is in, per HTML+RDFa ``@datetime`` rules.

    >>> temporal_datatype("2012-03-18")
    'http://www.w3.org/2001/XMLSchema#date'
    >>> temporal_datatype(" 2012-03-18") is None
    True
    """
    for pattern, datatype in _TEMPORAL:
        if pattern.match(value):
            return datatype
    return None
