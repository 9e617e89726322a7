# cython: language_level=3
"""The element index's one pass (:func:`structcrawl.core._index._scan`) compiled: the same
pass over libxml2's nodes instead of lxml's iterator (an optional speed-up, built where Cython
and a C compiler are at hand; :class:`structcrawl.core._index.ElementIndex` falls back to the
Python pass).

It meets the elements ``root.iter(etree.Element)`` meets, in the same order, names each
element's tag and attributes as lxml does (``{namespace}name`` where one has a namespace), and
makes a proxy (lxml's public C API: ``elementFactory``) only of the elements it keeps; it
reads the other data attributes' names and values for the data words in C (an attribute value
that is not one text node as lxml reads it). ``tests/test_compiled.py`` holds the two passes
equal on every page at hand.
"""

from lxml.includes cimport tree
from lxml.includes.tree cimport xmlAttr, xmlNode, xmlNs
cimport lxml.includes.etreepublic as cetree

cetree.import_lxml__etree()


cdef inline str _name(const unsigned char* name, xmlNs* ns):
    """A tag or attribute name as lxml says it."""
    local = (<const char*>name).decode("utf-8")
    if ns is NULL or ns.href is NULL:
        return local
    return "{" + (<const char*>ns.href).decode("utf-8") + "}" + local


cdef inline xmlNode* _next_element(xmlNode* c, xmlNode* top) noexcept:
    """The element after ``c`` in document order under ``top`` (NULL after the last)."""
    cdef xmlNode* down = c.children
    while down is not NULL:  # its first element child
        if down.type == tree.XML_ELEMENT_NODE:
            return down
        down = down.next
    while c is not top:
        after = c.next
        while after is not NULL:
            if after.type == tree.XML_ELEMENT_NODE:
                return after
            after = after.next
        c = c.parent
    return NULL


cdef bint _mentions(const char* text, tuple words):
    """Whether ``text`` (UTF-8) holds one of ``words`` (lowercase ASCII bytes) in any case of
    its ASCII letters."""
    cdef const char* at
    cdef const char* w
    cdef Py_ssize_t i
    cdef char c
    for word in words:
        w = <bytes>word
        at = text
        while at[0] != 0:
            i = 0
            while w[i] != 0:
                c = at[i]
                if c >= 65 and c <= 90:
                    c = c + 32
                if c != w[i]:
                    break
                i += 1
            if w[i] == 0:
                return True
            at += 1
    return False


cdef inline bint _plain(xmlAttr* a) noexcept:
    """Whether an attribute's value is read here: none, or one text node (an HTML one's)."""
    cdef xmlNode* t = a.children
    return t is NULL or (t.next is NULL and t.type == tree.XML_TEXT_NODE and t.content is not NULL)


cdef bint _attribute_mentions(xmlAttr* a, object el, str key, tuple words):
    """Whether an attribute's name (as lxml spells it) or value holds one of ``words`` (``el``:
    its element's proxy, which reads a value not :func:`_plain`)."""
    cdef xmlNode* t = a.children
    if _mentions(<const char*>a.name, words):
        return True
    if a.ns is not NULL and a.ns.href is not NULL and _mentions(<const char*>a.ns.href, words):
        return True
    if t is NULL:
        return False
    if _plain(a):
        return _mentions(<const char*>t.content, words)
    return _mentions((el.get(key) or "").encode("utf-8"), words)


cdef str _value(xmlAttr* a, object el, str key):
    """An attribute's value: its one text node (an HTML attribute's), else as lxml reads it."""
    cdef xmlNode* t = a.children
    if t is NULL:
        return ""
    if t.next is NULL and t.type == tree.XML_TEXT_NODE and t.content is not NULL:
        return (<char*>t.content).decode("utf-8")
    return el.get(key) or ""


def scan(
    cetree._Element root,
    tuple attributes,
    frozenset tags,
    frozenset blocks_named,
    frozenset links_named,
    tuple data_words,
):
    """``(by_attribute, named, blocks, links, data, size, classes, places)`` of ``root``'s
    elements: what the Python pass finds (see :func:`structcrawl.core._index._scan`;
    ``data_words``: :data:`~structcrawl.core._index.DATA_WORDS` as ASCII bytes)."""
    cdef dict by_attribute = {name: [] for name in attributes}
    cdef list named = [], blocks = [], links = [], data = [], classes = []
    cdef dict places = {}
    cdef list group, at
    cdef cetree._Document doc = root._doc
    cdef xmlNode* top = root._c_node
    cdef xmlNode* c = top
    cdef xmlAttr* a
    cdef Py_ssize_t size = 0
    cdef list found
    cdef bint told
    if c.type != tree.XML_ELEMENT_NODE:
        c = _next_element(c, top)
    while c is not NULL:
        size += 1
        el = None
        tag = _name(c.name, c.ns)
        if tag in tags:
            el = cetree.elementFactory(doc, c)
            group = blocks if tag in blocks_named else links if tag in links_named else named
            at = places.get(tag)
            if at is None:
                at = places[tag] = []
            at.append(len(group))
            group.append(el)
        a = c.properties
        told = False  # the element is in ``data``
        while a is not NULL:
            key = _name(a.name, a.ns)
            found = by_attribute.get(key)
            if found is not None:
                if el is None:
                    el = cetree.elementFactory(doc, c)
                found.append(el)
                if key == "class":
                    classes.append(_value(a, el, key))
            elif not told and (key.startswith("data-") or key.startswith("{")):
                if el is None and not _plain(a):
                    el = cetree.elementFactory(doc, c)  # a value lxml reads
                if _attribute_mentions(a, el, key, data_words):
                    if el is None:
                        el = cetree.elementFactory(doc, c)
                    data.append(el)
                    told = True
            a = a.next
        c = _next_element(c, top)
    return by_attribute, named, blocks, links, data, size, classes, places
