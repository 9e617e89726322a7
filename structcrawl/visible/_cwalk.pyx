# cython: language_level=3
"""The visible walk (:func:`structcrawl.visible.walk._walk`) compiled: the same walk over
libxml2's nodes instead of lxml's walker (an optional speed-up, built where Cython and a C
compiler are at hand; :mod:`structcrawl.visible.walk` falls back to the Python walk).

It meets the nodes ``etree.iterwalk`` meets, in the same order (elements, comments,
processing instructions, entity references), reads each element's attributes from libxml2's
attribute list, and makes the same pieces, headings, seen elements and controls, each element
the lxml proxy its Python twin would hold (``elementFactory``: lxml's public C API). The
regular expressions stay Python's. Attribute values are read from the attribute's text nodes:
lxml's own copy of libxml2 exports none of its functions. A namespaced element's marks are
read by the Python :func:`~structcrawl.visible.tree.walk_marks`. ``tests/test_compiled.py``
holds the two walks equal on every page at hand.

It also reads, from the same nodes, an element's visible text (:func:`visible_text`, the
twin of :func:`structcrawl.visible.text._visible_text`), a control's words
(:func:`control_label`, the twin of :func:`structcrawl.visible.stock._python_label`) and an
article's paragraphs (:func:`paragraphs`, the twin of
:func:`structcrawl.articles._blocks._paragraphs`).
"""

from libc.string cimport strcmp
from lxml.includes cimport tree
from lxml.includes.tree cimport xmlAttr, xmlNode
cimport lxml.includes.etreepublic as cetree

from structcrawl.visible.tree import (
    _BUTTON_TYPES,
    CONTROL_ROLES,
    NOT_RENDERED,
    REGIONS,
    _struck,
    walk_marks,
)
from structcrawl.visible.walk import Piece, Walk
from structcrawl.visible.words import HIDDEN_STYLE, STRUCK, STRUCK_STYLE

cetree.import_lxml__etree()

cdef object _hidden_style = HIDDEN_STYLE.search
cdef object _struck_style = STRUCK_STYLE.search
cdef tuple _NOT_ENTERED = (False, False, False)


cdef tuple _encoded(object tags):
    """The tag names of one of the Python walk's sets, as the bytes libxml2 names them."""
    return tuple(sorted(tag.encode("utf-8") for tag in tags))


#: the Python walk's own sets of tags (not copies of them): what it reads, this reads
cdef tuple _NOT_RENDERED_TAGS = _encoded(NOT_RENDERED)
cdef tuple _REGION_TAGS = _encoded(REGIONS)
cdef tuple _STRUCK_TAGS = _encoded(STRUCK)


cdef inline bint _eq(const char* a, const char* b) noexcept:
    return strcmp(a, b) == 0


cdef inline bint _one_of(const char* n, tuple tags):
    cdef bytes tag
    for tag in tags:
        if strcmp(n, <const char*>tag) == 0:
            return True
    return False


cdef inline bint _not_rendered(const char* n):
    return _one_of(n, _NOT_RENDERED_TAGS)


cdef inline bint _region(const char* n):
    return _one_of(n, _REGION_TAGS)


cdef inline bint _struck_tag(const char* n):
    return _one_of(n, _STRUCK_TAGS)


cdef inline bint _walked(xmlNode* c) noexcept:
    """The nodes ``iterwalk`` gives events for."""
    return (c.type == tree.XML_ELEMENT_NODE or c.type == tree.XML_COMMENT_NODE
            or c.type == tree.XML_PI_NODE or c.type == tree.XML_ENTITY_REF_NODE)


cdef inline xmlNode* _first(xmlNode* c) noexcept:
    c = c.children
    while c is not NULL and not _walked(c):
        c = c.next
    return c


cdef inline xmlNode* _next(xmlNode* c) noexcept:
    c = c.next
    while c is not NULL and not _walked(c):
        c = c.next
    return c


cdef str _value(xmlAttr* a):
    """An attribute's value where it is one text node (an HTML attribute's is), or ``""``
    without one; None where lxml must read it (an XML attribute holding an entity
    reference)."""
    cdef xmlNode* t = a.children
    if t is NULL:
        return ""
    if t.next is NULL and t.type == tree.XML_TEXT_NODE:
        return (<char*>t.content).decode("utf-8") if t.content is not NULL else ""
    return None


cdef tuple _marks(xmlNode* c, object el, dict said_old):
    """:func:`structcrawl.visible.tree.walk_marks` of an element without a namespace (read by
    the Python one where an attribute's value is not one text node)."""
    cdef const char* n = <const char*>c.name
    cdef xmlAttr* a = c.properties
    cdef const char* name
    cdef bint flagged = False, alt = False
    cdef object names = None, ident = None, style = None, role = None, kind = None
    if _not_rendered(n):
        return _NOT_ENTERED
    if a is NULL:  # what the tag alone says
        if _region(n):
            return _NOT_ENTERED
        return (True, _struck_tag(n), _eq(n, "a") or _eq(n, "button"))
    while a is not NULL:
        if a.ns is NULL:
            name = <const char*>a.name
            if _eq(name, "hidden"):
                flagged = True
            elif _eq(name, "alt"):
                alt = True
            elif (_eq(name, "class") or _eq(name, "id") or _eq(name, "style")
                  or _eq(name, "role") or _eq(name, "type")):
                value = _value(a)
                if value is None:
                    return walk_marks(el, said_old)
                if _eq(name, "class"):
                    names = value
                elif _eq(name, "id"):
                    ident = value
                elif _eq(name, "style"):
                    style = value
                elif _eq(name, "role"):
                    role = value
                else:
                    kind = value
        a = a.next
    if flagged or (_eq(n, "input") and kind is not None and kind.lower() == "hidden"):
        return _NOT_ENTERED
    if style and _hidden_style(style):
        return _NOT_ENTERED
    if _region(n) or role in CONTROL_ROLES:
        return _NOT_ENTERED
    cdef object strikes
    if _struck_tag(n):
        strikes = True
    elif names or ident:  # the class and id words read before, else read (and kept) there
        old = said_old.get(f"{names or ''} {ident or ''}")
        if old is None:
            strikes = _struck("", names, ident, style, said_old)
        else:
            strikes = old or bool(style and _struck_style(style))
    else:
        strikes = bool(style and _struck_style(style))
    control = (
        _eq(n, "a") or _eq(n, "button") or role == "button" or (_eq(n, "img") and alt)
        or (_eq(n, "input") and kind in _BUTTON_TYPES)
    )
    return (True, strikes, control)


def walk(cetree._Element start, dict said_old):
    """The :class:`~structcrawl.visible.walk.Walk` of ``start``'s subtree (see the module doc);
    ``said_old``: as :func:`~structcrawl.visible.tree.walk_marks`'s."""
    cdef list pieces = [], heads = [], seen = [], controls = []
    cdef list frames = []  # one per element started and not yet ended; None: not entered
    cdef cetree._Document doc = start._doc
    cdef xmlNode* top = start._c_node
    cdef xmlNode* c = top
    cdef xmlNode* child
    cdef xmlNode* after
    cdef tuple strikers, inner
    cdef bint in_title
    while True:
        # a node met in document order: an element's start, or the only event of another node
        if c.type == tree.XML_ELEMENT_NODE:
            el = cetree.elementFactory(doc, c)
            if c.ns is NULL:
                enters, strikes, control = _marks(c, el, said_old)
            else:
                enters, strikes, control = walk_marks(el, said_old)
            if enters:
                frame = frames[-1] if frames else None
                if frame is not None:
                    strikers, in_title = frame
                else:
                    strikers, in_title = (), False
                in_title = in_title or (c.ns is NULL and _eq(<const char*>c.name, "title"))
                if not in_title:
                    seen.append(el)
                if c.ns is NULL and (_eq(<const char*>c.name, "h1") or _eq(<const char*>c.name, "h2")):
                    heads.append((len(pieces), el))
                if control and frames:
                    controls.append(el)
                inner = (*strikers, el) if strikes else strikers
                frames.append((inner, in_title))
                text = cetree.textOf(c)
                if text and not text.isspace():
                    pieces.append(Piece(" ".join(text.split()), el, len(pieces), bool(inner), inner))
                child = _first(c)
                if child is not NULL:
                    c = child
                    continue
            else:  # its subtree is skipped
                frames.append(None)
        # the node's end: its tail, then the next node (a sibling, or an ancestor's end)
        while True:
            if c.type == tree.XML_ELEMENT_NODE:
                frames.pop()
            if frames:  # the start's own tail is not read
                tail = cetree.tailOf(c)
                if tail and not tail.isspace():
                    inner = frames[-1][0]
                    owner = cetree.elementFactory(doc, c.parent)
                    pieces.append(Piece(" ".join(tail.split()), owner, len(pieces), bool(inner), inner))
            if c is top:
                return Walk(start, pieces, heads, seen, controls)
            after = _next(c)
            if after is not NULL:
                c = after
                break
            c = c.parent


cdef int _shows(xmlNode* c) noexcept:
    """Whether an element may render text (:func:`~structcrawl.visible.tree.rendered`): 1, 0,
    or -1 where the Python one must tell (an attribute whose value is not one text node)."""
    cdef xmlAttr* a = c.properties
    cdef bint plain = c.ns is NULL
    cdef const char* name
    if plain and _not_rendered(<const char*>c.name):
        return 0
    while a is not NULL:
        if a.ns is NULL:
            name = <const char*>a.name
            if _eq(name, "hidden"):
                return 0
            if _eq(name, "style") or (plain and _eq(name, "type") and _eq(<const char*>c.name, "input")):
                value = _value(a)
                if value is None:
                    return -1
                if _eq(name, "style"):
                    if value and _hidden_style(value):
                        return 0
                elif value.lower() == "hidden":
                    return 0
        a = a.next
    return 1


cdef xmlNode* _after(xmlNode* c, xmlNode* top, list texts) except? NULL:
    """The node after ``c``'s subtree in document order under ``top`` (NULL at ``top``'s end),
    the tails met on the way (``c``'s own, then its ancestors' below ``top``) added to
    ``texts``: what lxml's walk reads after a node it is done with."""
    cdef xmlNode* after
    while c is not top:
        tail = cetree.tailOf(c)
        if tail:
            texts.append(tail)
        after = _next(c)
        if after is not NULL:
            return after
        c = c.parent
    return NULL


def visible_text(cetree._Element el, object rendered):
    """:func:`structcrawl.visible.text.visible_text` of ``el`` (its text without its hidden or
    non-rendered descendants), read from libxml2's nodes: the texts and tails lxml reads, in
    the order its walk reads them; ``rendered``: the Python
    :func:`~structcrawl.visible.tree.rendered`, for an element whose attributes this does
    not read."""
    cdef cetree._Document doc = el._doc
    cdef xmlNode* top = el._c_node
    cdef xmlNode* c
    cdef xmlNode* down
    cdef int shows
    cdef list parts = []
    c = top
    while True:
        # a node met: an element's own text and its children (where it renders), else nothing
        down = NULL
        if c.type == tree.XML_ELEMENT_NODE:
            shows = _shows(c)
            if shows < 0:
                shows = rendered(cetree.elementFactory(doc, c))
            if shows:
                text = cetree.textOf(c)
                if text:
                    parts.append(text)
                down = _first(c)
        if down is not NULL:
            c = down
            continue
        c = _after(c, top, parts)  # the node is done
        if c is NULL:
            return "".join(parts)


cdef object _attribute(xmlNode* c, const char* wanted):
    """The value of the element's attribute ``wanted`` (no namespace, read by :func:`_value`):
    None where it has none, ``False`` where lxml must read it (not one text node)."""
    cdef xmlAttr* a = c.properties
    while a is not NULL:
        if a.ns is NULL and _eq(<const char*>a.name, wanted):
            value = _value(a)
            return False if value is None else value
        a = a.next
    return None


def control_label(cetree._Element el, object python):
    """:func:`structcrawl.visible.stock._control_label` of ``el`` (a control's words: its
    ``value``, its text, its images' ``alt``), read from libxml2's nodes; ``python``: that
    function, for an element whose attributes or subtree this does not read (a value that is
    not one text node, an entity reference)."""
    cdef xmlNode* top = el._c_node
    cdef xmlNode* c
    cdef xmlNode* down
    cdef bint plain = top.ns is NULL
    cdef list texts = [], alts = []
    if top.type != tree.XML_ELEMENT_NODE:  # a comment, an entity reference: lxml says it
        return python(el)
    value = _attribute(top, "value")
    if value is False:
        return python(el)
    if plain and _eq(<const char*>top.name, "input"):
        alt = _attribute(top, "alt")
        if alt is False:
            return python(el)
        alts.append(alt or "")
    elif _first(top) is NULL:  # no children: its own text, its own alt if an image
        if plain and _eq(<const char*>top.name, "img"):
            alt = _attribute(top, "alt")
            if alt is False:
                return python(el)
            alts.append(alt or "")
        text = cetree.textOf(top)
        texts.append(text or "")
    else:  # every text and tail under it (itertext), and its images' alt texts
        c = top
        while True:
            down = NULL
            if c.type == tree.XML_ELEMENT_NODE:
                if c.ns is NULL and _eq(<const char*>c.name, "img"):
                    alt = _attribute(c, "alt")
                    if alt is False:
                        return python(el)
                    alts.append(alt or "")
                text = cetree.textOf(c)
                if text:
                    texts.append(text)
                down = _first(c)
            elif c.type == tree.XML_ENTITY_REF_NODE:
                return python(el)
            if down is not NULL:
                c = down
                continue
            c = _after(c, top, texts)  # the node is done
            if c is NULL:
                break
    return " ".join(f"{value or ''} {' '.join(texts)} {' '.join(alts)}".split())


cdef object _paragraph_tag(xmlNode* c, cetree._Document doc, object python_tag):
    """The element's name as :func:`structcrawl.articles._blocks._tag` spells it (its local
    name, lowercased): ASCII lowercased here, any other name by ``python_tag``."""
    cdef const unsigned char* n = <const unsigned char*>c.name
    cdef char buf[32]
    cdef int i = 0
    cdef unsigned char ch
    while n[i] != 0:
        ch = n[i]
        if ch >= 0x80 or ch == 0x7D:  # beyond ASCII, or a "}": lxml's spelling, lowercased
            return python_tag(cetree.elementFactory(doc, c))
        if i >= 31:
            return ""  # longer than any tag name the paragraphs know
        buf[i] = <char>(ch + 32 if 65 <= ch <= 90 else ch)
        i += 1
    return buf[:i].decode("ascii")


cdef bint _hidden_attribute(xmlNode* c) noexcept:
    """Whether the element has a ``hidden`` attribute (no namespace), whatever its value."""
    cdef xmlAttr* a = c.properties
    while a is not NULL:
        if a.ns is NULL and _eq(<const char*>a.name, "hidden"):
            return True
        a = a.next
    return False


cdef void _flush(list current, list out) except *:
    text = " ".join("".join(current).split())
    if text:
        out.append(text)
    del current[:]


def paragraphs(cetree._Element el, frozenset block, frozenset skip, object python_tag):
    """:func:`structcrawl.articles._blocks.paragraphs` of ``el`` (the paragraphs of its shown
    text), read from libxml2's nodes in the order of the Python walk: an element of ``skip``
    or with a ``hidden`` attribute, a comment, a processing instruction or an entity
    reference gives its tail only; an element of ``block`` ends a paragraph where it starts
    and where it ends. ``python_tag``: the Python ``_tag``, for a name beyond ASCII."""
    cdef cetree._Document doc = el._doc
    cdef xmlNode* top = el._c_node
    cdef xmlNode* c = top
    cdef xmlNode* down
    cdef list out = [], current = []
    cdef bint is_block
    while True:
        if c.type == tree.XML_ELEMENT_NODE:
            tag = _paragraph_tag(c, doc, python_tag)
            if tag not in skip and not _hidden_attribute(c):
                is_block = tag in block
                if is_block:
                    _flush(current, out)
                text = cetree.textOf(c)
                if text:
                    current.append(text)
                down = _first(c)
                if down is not NULL:
                    c = down
                    continue
                if is_block:  # no children: it ends here too
                    _flush(current, out)
        # the node is done: its tail, then the next node, or its parent's end
        while c is not top:
            tail = cetree.tailOf(c)
            if tail:
                current.append(tail)
            down = _next(c)
            if down is not NULL:
                break
            c = c.parent  # an element entered: it ends here
            if _paragraph_tag(c, doc, python_tag) in block:
                _flush(current, out)
        if c is top:
            break
        c = down
    _flush(current, out)
    return out
