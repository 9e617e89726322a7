"""What an application shell looks like in its HTML (pure; used by
:func:`structcrawl.render.routing.judge_html`).

* a **mount point** is empty when it holds no content element (text, links, images, lists,
  forms, ...) and no text but a loading placeholder: Angular's ``<app-root>Loading...``,
  ``<div id="root"><div class="spinner"></div></div>``;
* a **body shell**: the whole body shows nothing (no text but a loading placeholder, no
  content element) while scripts run: Ember (``{{content-for "body"}}`` is empty), SvelteKit's
  SPA pages (``<div style="display: contents">`` holding only the start script);
* a **web-component shell**: the body's content is custom elements (Lit, Stencil, ...)
  and it shows next to no text of its own (their content is rendered into shadow roots);
* an **empty framework payload** is a data block that carries no page data: Next.js's
  ``__NEXT_DATA__`` with empty ``pageProps`` (a client-only page) and Nuxt's ``__NUXT_DATA__``
  marked ``data-ssr="false"`` (``ssr: false``); it is not a content layer.

The payload is read as strict JSON (never as JavaScript).
"""

from __future__ import annotations

import re

from lxml import etree

from structcrawl.extract._jsonparse import parse_json

__all__ = ["body_shell", "empty_payload", "mount_is_empty"]

_LOADING = re.compile(
    r"^\W*(loading|please wait|one moment|chargement|wird geladen|laden|cargando|caricamento|"
    r"carregando)(\W+(please wait|app|application|page|content|\.\.\.))?\W*$",
    re.I,
)
#: Elements that are content in themselves, whatever their text (a page holding one is not an
#: empty shell); text elements (``p``, headings, ...) count by their text, so
#: ``<p>Loading...</p>`` is still a placeholder.
_CONTENT_TAGS = frozenset(
    {
        "a", "img", "picture", "video", "audio", "table", "form", "input", "select",
        "textarea", "iframe", "canvas", "object", "embed",
    }
)  # fmt: skip
_SKIP = frozenset({"script", "style", "noscript", "template", "link", "meta"})
_MAX_PAYLOAD = 200_000  # characters of a framework payload read to see whether it is empty
_WEB_COMPONENT_TEXT = 200  # at most this much own text beside the custom elements


def _walk(el: etree._Element, limit: int, stop: bool = True) -> tuple[str, bool]:
    """``el``'s visible text (scripts, styles, templates skipped; cut short past ``limit``
    characters) and whether it holds a content element (with ``stop``, the walk stops at
    the first)."""
    parts: list[str] = []
    size = 0
    stack: list[etree._Element] = [el]
    while stack:
        node = stack.pop()
        tag = node.tag
        own = node is el
        if not own and node.tail and node.tail.strip():
            parts.append(node.tail)
            size += len(node.tail.strip())
        if not isinstance(tag, str) or tag in _SKIP:
            continue
        if stop and not own and tag in _CONTENT_TAGS:
            return " ".join(" ".join(parts).split()), True
        if node.text and node.text.strip():
            parts.append(node.text)
            size += len(node.text.strip())
        if size > limit:
            break
        stack.extend(reversed(list(node)))
    return " ".join(" ".join(parts).split()), False


def _shows_nothing(el: etree._Element) -> bool:
    text, content = _walk(el, 60)
    return not content and (not text or _LOADING.match(text) is not None)


def mount_is_empty(el: etree._Element) -> bool:
    """Whether a mount point shows nothing yet (empty, or a loading placeholder).

    >>> from lxml import html
    >>> mount_is_empty(html.fromstring('<app-root>Loading...</app-root>'))
    True
    >>> mount_is_empty(html.fromstring('<div id="root"><div class="spinner"></div></div>'))
    True
    >>> mount_is_empty(html.fromstring('<div id="root"><h1>Loading docks</h1></div>'))
    False
    >>> mount_is_empty(html.fromstring('<div id="app">Loading times are long in winter.</div>'))
    False
    """
    return _shows_nothing(el)


def body_shell(root: etree._Element) -> str | None:
    """``empty-body`` (the body shows nothing), ``web-components`` (custom elements and next
    to no text of the body's own), or None.

    >>> from lxml import html
    >>> body_shell(html.fromstring('<html><body><div style="display: contents">'
    ...     '<script>import("/_app/start.js")</script></div></body></html>'))
    'empty-body'
    >>> body_shell(html.fromstring('<html><body><my-element><h1>Get started</h1>'
    ...     '</my-element></body></html>'))
    'web-components'
    >>> body_shell(html.fromstring('<html><body><p>Text</p><my-card></my-card></body></html>'))
    """
    body = root.find("body")
    if body is None:
        return None
    if _shows_nothing(body):
        return "empty-body"
    children = [c for c in body if isinstance(c.tag, str) and c.tag not in _SKIP]
    if not children or not all("-" in c.tag for c in children):
        return None
    text, _ = _walk(body, _WEB_COMPONENT_TEXT, stop=False)
    return "web-components" if len(text) <= _WEB_COMPONENT_TEXT else None


def empty_payload(script: etree._Element) -> bool:
    """Whether a framework's data block carries no page data (a client-only page).

    >>> from lxml import etree
    >>> empty_payload(etree.fromstring('<script id="__NEXT_DATA__" type="application/json">'
    ...     '{"props": {"pageProps": {}}, "page": "/account"}</script>'))
    True
    >>> empty_payload(etree.fromstring('<script id="__NEXT_DATA__" type="application/json">'
    ...     '{"props": {"pageProps": {"product": {"name": "Tent"}}}}</script>'))
    False
    >>> empty_payload(etree.fromstring('<script id="__NUXT_DATA__" type="application/json" '
    ...     'data-ssr="false">[{"serverRendered": 1}, false]</script>'))
    True
    """
    block = script.get("id")
    if block == "__NUXT_DATA__":
        return script.get("data-ssr") == "false"
    if block != "__NEXT_DATA__":
        return False
    text = script.text or ""
    if len(text) > _MAX_PAYLOAD:
        return False
    parsed = parse_json(text, repair=False, max_depth=64)
    if not parsed.ok or not parsed.values:
        return False
    data = parsed.values[0]
    props = data.get("props") if isinstance(data, dict) else None
    if not isinstance(props, dict):
        return False
    page_props = props.get("pageProps")
    others = {k: v for k, v in props.items() if k not in ("pageProps", "__N_SSG", "__N_SSP")}
    return page_props in (None, {}) and not any(others.values())
