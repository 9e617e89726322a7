"""JSON-LD in HTML as the JSON-LD 1.1 API reads it (§9.5 "Process HTML", §9.5.2 "Extract Script
Content"): which ``<script type="application/ld+json">`` elements are read, and the errors.

* without a fragment, the first JSON-LD script element, or with ``extract_all_scripts`` all of
  them, their arrays concatenated (an object becomes one item of the result);
* with a fragment (``page.html#name``), the element whose ``id`` is the percent-decoded
  fragment, which must be a JSON-LD script element;
* each script's text is strict JSON (no repairs): otherwise ``invalid script element``; no
  element found: ``loading document failed``.

The document base is :attr:`structcrawl.core.document.Document.base_url` (``<base href>``
resolved against the document URL). :func:`expand_options` gives PyLD the options that keep
every step offline: the bundled schema.org context (:mod:`structcrawl.extract._schemacontext`)
stands in for ``https://schema.org``, and any other remote context or document is refused
(``loading remote context failed``), never fetched.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from lxml import etree
from pyld.jsonld import JsonLdError

from structcrawl.core.document import Document
from structcrawl.extract._jsonparse import parse_json
from structcrawl.extract._schemacontext import SCHEMA_CONTEXT_URLS, schema_context
from structcrawl.extract.jsonld import ld_json_scripts

__all__ = [
    "JsonLdHtmlError",
    "expand_options",
    "load_html_jsonld",
    "offline_document_loader",
    "script_by_fragment",
    "script_content",
]


class JsonLdHtmlError(Exception):
    """A JSON-LD API error raised while loading JSON-LD from HTML (``code`` per §9.6.2)."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code


def script_by_fragment(doc: Document, fragment: str) -> etree._Element:
    """The JSON-LD script element targeted by ``#fragment`` (§9.5.1 step 2): the first element,
    in tree order, whose ``id`` is the percent-decoded fragment; it must be a JSON-LD script
    element, else ``loading document failed``."""
    wanted = unquote(fragment)
    target = next(
        (el for el in doc.root.iter() if isinstance(el.tag, str) and el.get("id") == wanted),
        None,
    )
    if target is None:
        raise JsonLdHtmlError("loading document failed", f"no element with id {wanted!r}")
    if target not in ld_json_scripts(doc):
        raise JsonLdHtmlError(
            "loading document failed",
            f"element #{wanted} is a <{target.tag} type={target.get('type')!r}>,"
            " not a JSON-LD script element",
        )
    return target


def script_content(script: etree._Element) -> Any:
    """Extract Script Content (§9.5.2): the script text as strict JSON, no repairs."""
    parsed = parse_json(script.text or "", repair=False)
    if not parsed.ok:
        raise JsonLdHtmlError("invalid script element", parsed.error or "invalid JSON")
    (value,) = parsed.values
    return value


def load_html_jsonld(doc: Document, fragment: str | None, *, extract_all_scripts: bool) -> Any:
    """The JSON-LD document an HTML page carries (§9.5.1 steps 2-5), or JsonLdHtmlError."""
    if fragment:
        return script_content(script_by_fragment(doc, fragment))
    scripts = ld_json_scripts(doc)
    if not extract_all_scripts:
        if not scripts:
            raise JsonLdHtmlError("loading document failed", "no JSON-LD script element")
        return script_content(scripts[0])
    document: list[Any] = []
    for script in scripts:
        content = script_content(script)
        if isinstance(content, list):
            document.extend(content)
        else:
            document.append(content)
    return document


def offline_document_loader(url: str, options: Any = None) -> dict[str, Any]:
    """A PyLD document loader that never touches the network: schema.org's context comes
    from the package, anything else is refused."""
    if url.split("#")[0] in SCHEMA_CONTEXT_URLS:
        return {
            "contentType": "application/ld+json",
            "contextUrl": None,
            "documentUrl": url,
            "document": schema_context(),
        }
    raise JsonLdError(
        f"remote document {url!r} not loaded: structcrawl never fetches JSON-LD contexts",
        "jsonld.LoadDocumentError",
        {"url": url},
        code="loading remote context failed",
    )


def expand_options(base: str, **extra: Any) -> dict[str, Any]:
    """PyLD options for a document at ``base``: JSON-LD 1.1, the offline loader."""
    return {
        "base": base,
        "processingMode": "json-ld-1.1",
        "documentLoader": offline_document_loader,
        **extra,
    }
